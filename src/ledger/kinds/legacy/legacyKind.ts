// The legacy transactions (BigchainDB's earlier interface variants A and B, `POST /transactions`,
// docs/compatibility.md #13-#16) as a kind of the ledger: their pure rules are src/legacy/
// (prepareLegacy, validateLegacy); this folder adds the committed reads (their own namespace and
// the federation), the pending and block views, and the store write, where a transaction its
// block refused is recorded as `invalid`. They are not on the event stream.
import assert from "node:assert/strict";
import type { Rejection } from "../../../errors/ledgerError.js";
import { isJsonObject, type JsonValue } from "../../../json/jsonValue.js";
import { legacyOutputKey, type CommittedLegacyTx, type LegacyInvalidTx } from "../../../legacy/committed.js";
import { prepareLegacy } from "../../../legacy/prepareLegacy.js";
import { legacyTxId } from "../../../legacy/legacyTxId.js";
import { readJsonOrNull } from "../../../json/readJson.js";
import type { LegacyTx, PreparedLegacyTx } from "../../../legacy/types.js";
import { validateLegacy } from "../../../legacy/validateLegacy.js";
import type { LedgerStore, StoredLegacyOutput } from "../../../store/store.js";
import { legacyDoor } from "../../doors.js";
import type { KindBlock, PreparedBase, TxKind } from "../../txKind.js";
import {
  federationOf,
  LegacyBlockOverlay,
  legacyPendingView,
  legacySpendsOf,
  toCommittedLegacyTx,
  type LegacyCommittedState,
} from "./legacyState.js";

export const legacyKind: TxKind<PreparedLegacyTx, LegacyCommittedState> = {
  name: "legacy",
  storedId(json) {
    return legacyKind.idOfBody(readJsonOrNull(json));
  },
  idOfBody(body) {
    if (!isJsonObject(body) || !isJsonObject(body["transaction"])) return null;
    try {
      return legacyTxId(body as LegacyTx);
    } catch {
      return null;
    }
  },
  stored(json, position) {
    const body = readJsonOrNull(json);
    const tx = body === null ? null : prepareLegacy(body, json);
    if (tx === null || "code" in tx) return `it no longer passes the checks: ${tx?.message ?? "not JSON"}`;
    return { legacy: { txs: [toCommittedLegacyTx(tx, position)], invalid: [] } };
  },
  door: legacyDoor,
  claims: hasLegacyShape,
  prepare: prepareLegacy,
  owns: (tx: PreparedBase) => "variant" in tx,
  forEachSpend(tx, visit) {
    for (const ref of tx.spends) visit(legacyOutputKey(ref), ref.txid);
  },
  // A CREATE is checked against the federation too, which a commit may change.
  recheckBySpends: false,
  read: readLegacyCommitted,
  validatePending: (tx, committed, pending, self) => validateLegacy(tx, legacyPendingView(committed, pending, self)),
  openBlock: (committed) => new LegacyBlock(committed),
  event: () => null,
  // Strings, numbers and arrays only: JSON-safe as it is.
  encode: (tx) => tx,
  decode: (wire) => decodePreparedLegacyTx(wire as PreparedLegacyTx),
};

/**
 * A body of the legacy shape: a top-level `transaction` object, which both variants have and a
 * v2.0 transaction cannot (its schema allows no such member). Which variant, or whether the
 * shape is mixed, is `classifyLegacy`'s business.
 */
export function hasLegacyShape(body: JsonValue): boolean {
  return isJsonObject(body) && isJsonObject(body["transaction"]);
}

/**
 * One batched read of what legacy validation needs from committed state: which of the ids
 * exist, the spent outputs, and the federation = the validator set in force at `height` (a
 * block's own height, so every node decides alike) or the latest (checkTx).
 */
async function readLegacyCommitted(
  store: LedgerStore,
  txs: readonly PreparedLegacyTx[],
  height: number | null,
): Promise<LegacyCommittedState> {
  const refs = legacySpendsOf(txs);
  const [ids, outputs, validators] = await Promise.all([
    store.findLegacyTransactions(txs.map((tx) => tx.id)),
    refs.length === 0 ? new Map<string, StoredLegacyOutput>() : store.getLegacyOutputs(refs),
    height === null ? store.getValidators() : store.getValidators(height),
  ]);
  return { ids, outputs, federation: federationOf(validators) };
}

/** A block's legacy transactions: the valid ones stored, the refused ones recorded `invalid`. */
class LegacyBlock implements KindBlock<PreparedLegacyTx> {
  private readonly overlay: LegacyBlockOverlay;
  private readonly committed: CommittedLegacyTx[] = [];
  private readonly refused: LegacyInvalidTx[] = [];

  constructor(state: LegacyCommittedState) {
    this.overlay = new LegacyBlockOverlay(state);
  }

  execute(tx: PreparedLegacyTx, position: number): Rejection | null {
    const rejection = validateLegacy(tx, this.overlay);
    if (rejection === null) {
      this.overlay.apply(tx);
      this.committed.push(toCommittedLegacyTx(tx, position));
    } else if (!this.overlay.hasTransaction(tx.id)) {
      // Refused at execution: status `invalid`. A copy of a transaction already committed (or
      // valid earlier in this block) is not recorded: that transaction is valid.
      this.refused.push({ id: tx.id, code: rejection.code, message: rejection.message, json: tx.json, position });
    }
    return rejection;
  }

  write(): { legacy: { txs: readonly CommittedLegacyTx[]; invalid: readonly LegacyInvalidTx[] } } {
    return { legacy: { txs: this.committed, invalid: this.refused } };
  }
}

/**
 * The PreparedLegacyTx another process of this node sent, rebuilt field by field (nothing else
 * rides along). That process is this node's own: a malformed message is our bug, an assertion.
 */
export function decodePreparedLegacyTx(encoded: PreparedLegacyTx): PreparedLegacyTx {
  assert.ok(encoded.variant === "A" || encoded.variant === "B", "IPC legacy variant");
  assert.ok(encoded.operation === "CREATE" || encoded.operation === "TRANSFER", "IPC legacy operation");
  return {
    id: encoded.id,
    variant: encoded.variant,
    operation: encoded.operation,
    json: encoded.json,
    spends: encoded.spends.map((ref) => ({ txid: ref.txid, cid: ref.cid })),
    outputs: encoded.outputs.map((o) => ({
      cid: o.cid,
      conditionUri: o.conditionUri,
      publicKeys: [...o.publicKeys],
    })),
    fulfilledUris: [...encoded.fulfilledUris],
    creator: encoded.creator,
  };
}
