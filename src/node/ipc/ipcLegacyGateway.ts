// The legacy routes' gateway in an HTTP worker process (server.workers > 1). The node key that
// re-makes a CREATE and the pending pool a status needs are in the primary, so both go there
// over IPC; a TRANSFER is prepared here first, on this process's verification threads (as
// IpcBroadcaster does for every kind), and a body the worker can already refuse never leaves it.
import { toLedgerError, type Rejection } from "../../errors/ledgerError.js";
import type { LegacyGateway, LegacyPosted, LegacyStatus } from "../../http/routes/legacy.js";
import { legacyDoor } from "../../ledger/doors.js";
import type { Door, PreparedBase } from "../../ledger/txKind.js";
import { readLegacyBody } from "../../legacy/readLegacyBody.js";
import { encodeBytes, encodePrepared, ipcTag, type EncodedPrepared, type LegacyRequest } from "./ipcMessages.js";
import { IpcRequester, type IpcChannel } from "./ipcRequester.js";

/** The process's IPC channel to the primary, narrowed to what this needs (tests pass a fake). */
export type LegacyIpcChannel = IpcChannel<LegacyRequest>;

export interface IpcLegacyGatewayDeps {
  readonly pool: { prepare(bytes: Uint8Array, door?: Door): Promise<PreparedBase | Rejection> };
  readonly channel: LegacyIpcChannel;
}

type Value = LegacyPosted | LegacyStatus | null;

export class IpcLegacyGateway implements LegacyGateway {
  private readonly requester: IpcRequester<LegacyRequest, { readonly value: Value }>;

  constructor(private readonly deps: IpcLegacyGatewayDeps) {
    this.requester = new IpcRequester(deps.channel, "legacyResult");
  }

  async post(bytes: Uint8Array): Promise<LegacyPosted> {
    const body = readLegacyBody(bytes);
    if ("code" in body) throw toLedgerError(body);
    let prepared: EncodedPrepared | null = null;
    // A CREATE's signature is never checked (the primary re-makes it); a TRANSFER's is, here.
    if (body.operation === "TRANSFER") {
      const result = await this.deps.pool.prepare(bytes, legacyDoor);
      if ("code" in result) throw toLedgerError(result);
      prepared = encodePrepared(result);
    }
    const encoded = encodeBytes(bytes);
    const answer = await this.requester.request((requestId) => ({
      tag: ipcTag,
      type: "legacyPost",
      requestId,
      bytes: encoded,
      prepared,
    }));
    return answer.value as LegacyPosted;
  }

  async status(id: string): Promise<LegacyStatus | null> {
    const answer = await this.requester.request((requestId) => ({ tag: ipcTag, type: "legacyStatus", requestId, id }));
    return answer.value as LegacyStatus | null;
  }
}
