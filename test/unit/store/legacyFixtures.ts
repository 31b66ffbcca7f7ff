// Hand-made committed legacy transactions (variants A and B) for the store tests. The JSON has
// the legacy shape and the ids look like Keccak ids, but nothing is signed or hashed for real:
// the store never checks either, only what the ledger hands it.

import type { BlockWrite } from "../../../src/store/store.js";
import type { CommittedLegacyOutput, CommittedLegacyTx, LegacyInvalidTx, LegacyOutputRef, LegacyVariant } from "../../../src/legacy/committed.js";
import type { CommittedTx } from "../../../src/transaction/committed.js";
import { hex64, publicKey } from "./fixtures.js";

export interface LegacySpec {
  readonly label: string;
  readonly variant?: LegacyVariant;
  /** One key list per output; default one output owned by `publicKey(label)`. */
  readonly outputs?: readonly (readonly string[])[];
  /** TRANSFER when given. */
  readonly spends?: readonly LegacyOutputRef[];
}

/** A legacy transaction; its `position` is set by `mixedBlock`. */
export function legacyTx(spec: LegacySpec): CommittedLegacyTx {
  const variant = spec.variant ?? "A";
  const id = hex64(`legacy:${spec.label}`);
  const spends = spec.spends ?? [];
  const operation = spends.length === 0 ? "CREATE" : "TRANSFER";
  const outputs: CommittedLegacyOutput[] = (spec.outputs ?? [[publicKey(spec.label)]]).map((keys, cid) => ({
    cid,
    conditionUri: `cc:${keys.length > 1 ? "2:29" : "4:20"}:${Buffer.from(hex64(`uri:${keys.join()}`), "hex").toString("base64url")}:96`,
    publicKeys: [...keys],
  }));
  const [before, after] = variant === "A" ? ["owners_before", "owners_after"] : ["current_owners", "new_owners"];
  const transaction: Record<string, unknown> = {
    conditions: outputs.map((o) => ({ cid: o.cid, condition: { details: {}, uri: o.conditionUri }, [after]: o.publicKeys })),
    data: { payload: { label: spec.label }, uuid: "00000000-0000-4000-8000-000000000000" },
    fulfillments: (spends.length === 0 ? [null] : spends).map((input, fid) => ({
      [before]: [publicKey(`${spec.label}:${fid}`)],
      fid,
      fulfillment: `cf:4:${hex64(`sig:${spec.label}:${fid}`)}`,
      input,
    })),
    operation,
    timestamp: "1700000000",
  };
  if (variant === "A") transaction["version"] = 1;
  const json = variant === "A" ? { id, transaction } : { id, transaction, version: 1 };
  return { id, variant, operation, json: JSON.stringify(json), position: 0, outputs, spends };
}

export function legacyRef(tx: CommittedLegacyTx, cid: number): LegacyOutputRef {
  return { txid: tx.id, cid };
}

/**
 * A block of v2.0 and legacy transactions in the given order (legacy positions follow it), and
 * legacy refusals. No legacy part at all when there is neither.
 */
export function mixedBlock(
  height: number,
  items: readonly (CommittedTx | CommittedLegacyTx)[],
  invalid: readonly LegacyInvalidTx[] = [],
): BlockWrite {
  const txs: CommittedTx[] = [];
  const legacy: CommittedLegacyTx[] = [];
  items.forEach((item, position) => {
    if ("variant" in item) legacy.push({ ...item, position });
    else txs.push(item);
  });
  const appHash = items.length === 0 ? "" : hex64(`app:${height}:${items.map((t) => t.id).join()}`);
  if (legacy.length === 0 && invalid.length === 0) return { height, appHash, txs };
  return { height, appHash, txs, legacy: { txs: legacy, invalid } };
}
