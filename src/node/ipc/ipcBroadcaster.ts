// The Broadcaster an HTTP worker process hands its Fastify app (server.workers > 1). It prepares
// each transaction here, on this process's own verification threads (signatures are checked in
// the workers, which is why there are workers), then sends the bytes and the prepared result to
// the primary, which owns the ledger and the engine. Every kind goes the same way: the HTTP code
// only sees a Broadcaster, and the prepared result travels as its kind encodes it.
import type { BroadcastMode, Broadcaster } from "../../engine/broadcaster.js";
import { toLedgerError, type Rejection } from "../../errors/ledgerError.js";
import type { Door, PreparedBase } from "../../ledger/txKind.js";
import { encodeBytes, encodePrepared, ipcTag, type BroadcastRequest } from "./ipcMessages.js";
import { IpcRequester, type IpcChannel } from "./ipcRequester.js";

export interface IpcBroadcasterDeps {
  /** The process's verification threads (PreparePool). */
  readonly pool: { prepare(bytes: Uint8Array, door?: Door): Promise<PreparedBase | Rejection> };
  readonly channel: IpcChannel<BroadcastRequest>;
}

export class IpcBroadcaster implements Broadcaster {
  private readonly requester: IpcRequester<BroadcastRequest, { readonly id: string }>;

  constructor(private readonly deps: IpcBroadcasterDeps) {
    this.requester = new IpcRequester(deps.channel, "broadcastResult");
  }

  /** Requests sent to the primary and not answered yet. */
  get pendingCount(): number {
    return this.requester.pendingCount;
  }

  async broadcast(bytes: Uint8Array, mode: BroadcastMode, door?: Door): Promise<PreparedBase> {
    const prepared = await this.deps.pool.prepare(bytes, door);
    // A transaction that fails the stateless checks never reaches the primary.
    if ("code" in prepared) throw toLedgerError(prepared);
    const answer = await this.requester.request((requestId) => ({
      tag: ipcTag,
      type: "broadcast",
      requestId,
      bytes: encodeBytes(bytes),
      door: door ?? null,
      prepared: encodePrepared(prepared),
      mode,
    }));
    // The primary took the id from what we sent; any other id is a bug in the node.
    if (answer.id !== prepared.id) throw new Error(`IPC answer for ${answer.id}, expected ${prepared.id}`);
    return prepared;
  }
}
