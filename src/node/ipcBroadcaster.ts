// The Broadcaster an HTTP worker process hands its Fastify app (server.workers > 1). It prepares
// each transaction here, on this process's own verification threads (signatures are checked in
// the workers, which is why there are workers), then sends the bytes and the prepared result to
// the primary, which owns the ledger and the engine. The HTTP code only sees a Broadcaster.
import type { BroadcastMode, Broadcaster } from "../engine/broadcaster.js";
import { codes, type ErrorCode } from "../errors/codes.js";
import { LedgerError, toLedgerError, type Rejection } from "../errors/ledgerError.js";
import type { PreparedTx } from "../transaction/types.js";
import {
  encodeBytes,
  encodePreparedTx,
  ipcTag,
  isIpcMessage,
  type BroadcastRequest,
  type BroadcastResponse,
} from "./ipcMessages.js";

/** The process's IPC channel to the primary, narrowed to what this needs (tests pass a fake). */
export interface IpcChannel<Request = BroadcastRequest> {
  send(message: Request): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the channel to the primary is gone. */
  onDisconnect(listener: () => void): void;
}

export interface IpcBroadcasterDeps {
  /** The process's verification threads, read as v2.0 (a legacy body gets the v2.0 rejection). */
  readonly pool: { prepare(bytes: Uint8Array, kind: "current"): Promise<PreparedTx | Rejection> };
  readonly channel: IpcChannel;
}

interface Pending {
  readonly tx: PreparedTx;
  readonly resolve: (tx: PreparedTx) => void;
  readonly reject: (error: Error) => void;
}

export class IpcBroadcaster implements Broadcaster {
  private readonly pending = new Map<number, Pending>();
  private nextRequestId = 0;
  private disconnected = false;

  constructor(private readonly deps: IpcBroadcasterDeps) {
    deps.channel.onMessage((message) => {
      if (isIpcMessage(message) && message.type === "broadcastResult") this.settle(message as BroadcastResponse);
    });
    deps.channel.onDisconnect(() => this.disconnect());
  }

  /** Requests sent to the primary and not answered yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  async broadcast(bytes: Uint8Array, mode: BroadcastMode): Promise<PreparedTx> {
    const prepared = await this.deps.pool.prepare(bytes, "current");
    // A transaction that fails the stateless checks never reaches the primary.
    if ("code" in prepared) throw toLedgerError(prepared);
    if (this.disconnected) throw unavailable();
    const requestId = this.nextRequestId++;
    return new Promise<PreparedTx>((resolve, reject) => {
      this.pending.set(requestId, { tx: prepared, resolve, reject });
      const request: BroadcastRequest = {
        tag: ipcTag,
        type: "broadcast",
        requestId,
        bytes: encodeBytes(bytes),
        prepared: encodePreparedTx(prepared),
        mode,
      };
      this.deps.channel.send(request);
    });
  }

  private settle(response: BroadcastResponse): void {
    const pending = this.pending.get(response.requestId);
    if (pending === undefined) return;
    this.pending.delete(response.requestId);
    if (response.ok) {
      // The primary took the id from what we sent; any other id is a bug in the node.
      if (response.id === pending.tx.id) pending.resolve(pending.tx);
      else pending.reject(new Error(`IPC answer for ${response.id}, expected ${pending.tx.id}`));
      return;
    }
    const code: ErrorCode = response.code in codes ? response.code : "Internal";
    pending.reject(new LedgerError(code, response.message));
  }

  private disconnect(): void {
    this.disconnected = true;
    for (const pending of this.pending.values()) pending.reject(unavailable());
    this.pending.clear();
  }
}

function unavailable(): LedgerError {
  return new LedgerError("EngineUnavailable", "The node's primary process cannot be reached");
}
