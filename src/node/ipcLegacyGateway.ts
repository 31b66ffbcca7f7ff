// The legacy routes' gateway in an HTTP worker process (server.workers > 1). The node key that
// re-makes a CREATE and the pending pool a status needs are in the primary, so both go there
// over IPC; a TRANSFER is prepared here first, on this process's verification threads (as
// IpcBroadcaster does for v2.0), and a body the worker can already refuse never leaves it.
import { codes, type ErrorCode } from "../errors/codes.js";
import { LedgerError, toLedgerError, type Rejection } from "../errors/ledgerError.js";
import type { LegacyGateway, LegacyPosted, LegacyStatus } from "../http/routes/legacy.js";
import { readLegacyBody } from "../legacy/readLegacyBody.js";
import type { PreparedLegacyTx } from "../legacy/types.js";
import { encodeBytes, ipcTag, isIpcMessage, type LegacyRequest, type LegacyResponse } from "./ipcMessages.js";
import type { IpcChannel } from "./ipcBroadcaster.js";

/** The process's IPC channel to the primary, narrowed to what this needs (tests pass a fake). */
export type LegacyIpcChannel = IpcChannel<LegacyRequest>;

export interface IpcLegacyGatewayDeps {
  readonly pool: { prepare(bytes: Uint8Array, kind: "legacy"): Promise<PreparedLegacyTx | Rejection> };
  readonly channel: LegacyIpcChannel;
}

interface Waiting {
  readonly resolve: (value: LegacyPosted | LegacyStatus | null) => void;
  readonly reject: (error: Error) => void;
}

export class IpcLegacyGateway implements LegacyGateway {
  private readonly waiting = new Map<number, Waiting>();
  private nextRequestId = 0;
  private disconnected = false;

  constructor(private readonly deps: IpcLegacyGatewayDeps) {
    deps.channel.onMessage((message) => {
      if (isIpcMessage(message) && message.type === "legacyResult") this.settle(message as LegacyResponse);
    });
    deps.channel.onDisconnect(() => this.disconnect());
  }

  async post(bytes: Uint8Array): Promise<LegacyPosted> {
    const body = readLegacyBody(bytes);
    if ("code" in body) throw toLedgerError(body);
    let prepared: PreparedLegacyTx | null = null;
    // A CREATE's signature is never checked (the primary re-makes it); a TRANSFER's is, here.
    if (body.operation === "TRANSFER") {
      const result = await this.deps.pool.prepare(bytes, "legacy");
      if ("code" in result) throw toLedgerError(result);
      prepared = result;
    }
    const value = await this.request((requestId) => ({
      tag: ipcTag,
      type: "legacyPost",
      requestId,
      bytes: encodeBytes(bytes),
      prepared,
    }));
    return value as LegacyPosted;
  }

  async status(id: string): Promise<LegacyStatus | null> {
    const value = await this.request((requestId) => ({ tag: ipcTag, type: "legacyStatus", requestId, id }));
    return value as LegacyStatus | null;
  }

  private request(make: (requestId: number) => LegacyRequest): Promise<LegacyPosted | LegacyStatus | null> {
    if (this.disconnected) return Promise.reject(unavailable());
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(requestId, { resolve, reject });
      this.deps.channel.send(make(requestId));
    });
  }

  private settle(response: LegacyResponse): void {
    const waiting = this.waiting.get(response.requestId);
    if (waiting === undefined) return;
    this.waiting.delete(response.requestId);
    if (response.ok) {
      waiting.resolve(response.value);
      return;
    }
    const code: ErrorCode = response.code in codes ? response.code : "Internal";
    waiting.reject(new LedgerError(code, response.message));
  }

  private disconnect(): void {
    this.disconnected = true;
    for (const waiting of this.waiting.values()) waiting.reject(unavailable());
    this.waiting.clear();
  }
}

function unavailable(): LedgerError {
  return new LedgerError("EngineUnavailable", "The node's primary process cannot be reached");
}
