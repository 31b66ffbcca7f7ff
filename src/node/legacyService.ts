// The node's side of the legacy routes (variants A and B, docs/compatibility.md #13-#16), in the
// process that holds the ledger, the engine and the node key (the primary, when HTTP runs in
// workers):
// - POST: read the body's variant and shape; a CREATE is thrown away and re-made by this node,
//   signed with the node key, with a timestamp from the clock and a uuid from the random source
//   (docs/legacy-variants.md §1.6, docs/compatibility.md #15); then the transaction goes through
// the same engine as every
//   kind, posted through the `legacy` door, in `sync` semantics. The answer carries this node's key
// as `assignee` (docs/legacy-variants.md §7.3).
// - status: `backlog` while pending in the ledger, then what the store recorded (`valid` or
//   `invalid`), else unknown (404).
import { Buffer } from "node:buffer";
import type { Broadcaster } from "../engine/broadcaster.js";
import { toLedgerError } from "../errors/ledgerError.js";
import type { LegacyGateway, LegacyPosted, LegacyStatus } from "../http/routes/legacy.js";
import { legacyDoor } from "../ledger/doors.js";
import type { LedgerApp } from "../ledger/ledgerApp.js";
import type { PreparedBase } from "../ledger/txKind.js";
import { readLegacyBody } from "../legacy/readLegacyBody.js";
import { remakeCreate } from "../legacy/remakeCreate.js";
import type { LegacySigner } from "../legacy/types.js";
import type { Store } from "../store/store.js";
import { writeJson } from "../json/writeJson.js";

export interface LegacyServiceDeps {
  readonly engine: Broadcaster;
  readonly ledger: Pick<LedgerApp, "isPending" | "remember">;
  readonly store: Pick<Store, "getLegacyRecord">;
  /** The node key: it signs every re-made CREATE and is the `assignee`. */
  readonly signer: LegacySigner;
  /** Milliseconds since the epoch (a CREATE's `timestamp`, in whole seconds as the originals wrote it). */
  readonly now: () => number;
  /** A new random lowercase UUID (a CREATE's `data.uuid`). */
  readonly uuid: () => string;
}

export class LegacyService implements LegacyGateway {
  constructor(private readonly deps: LegacyServiceDeps) {}

  /**
   * `prepared`: a TRANSFER an HTTP worker of this node already prepared (parsed and
   * signature-checked) from these very bytes; the ledger takes it as its own, as for v2.0.
   */
  async post(bytes: Uint8Array, prepared?: PreparedBase): Promise<LegacyPosted> {
    const body = readLegacyBody(bytes);
    if ("code" in body) throw toLedgerError(body);
    let sent = bytes;
    if (body.operation === "CREATE") {
      // `str(round(time.time()))` (docs/legacy-variants.md §1.7); a fresh uuid4 and id
      // (docs/legacy-variants.md §1.6).
      const timestamp = String(Math.round(this.deps.now() / 1000));
      const remade = remakeCreate(body.tx, body.variant, this.deps.signer, timestamp, this.deps.uuid());
      sent = Buffer.from(writeJson(remade), "utf8");
    } else if (prepared !== undefined) {
      this.deps.ledger.remember(bytes, prepared);
    }
    const tx = await this.deps.engine.broadcast(sent, "sync", legacyDoor);
    return { json: tx.json, assignee: this.deps.signer.publicKey };
  }

  async status(id: string): Promise<LegacyStatus | null> {
    // Pending first: a commit writes the store before it releases the pending pool, so an id
    // not pending here that was committed is in the store already (no moment of neither).
    if (this.deps.ledger.isPending(id, legacyDoor)) return "backlog";
    const record = await this.deps.store.getLegacyRecord(id);
    return record === null ? null : record.status;
  }
}
