// Requests from an HTTP worker process to the primary and their answers, over node:cluster's
// IPC channel: numbered, answered in any order, every waiting request failed with 503 when the
// primary goes. What the requests are is the caller's (ipcBroadcaster.ts, ipcLegacyGateway.ts).
import { codes, type ErrorCode } from "../../errors/codes.js";
import { LedgerError } from "../../errors/ledgerError.js";
import { isIpcMessage, type IpcResult } from "./ipcMessages.js";

/** The process's IPC channel to the primary, narrowed to what this needs (tests pass a fake). */
export interface IpcChannel<Request> {
  send(message: Request): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the channel to the primary is gone. */
  onDisconnect(listener: () => void): void;
}

interface Waiting<Ok> {
  readonly resolve: (ok: Ok) => void;
  readonly reject: (error: Error) => void;
}

export class IpcRequester<Request, Ok> {
  private readonly waiting = new Map<number, Waiting<Ok>>();
  private nextRequestId = 0;
  private disconnected = false;

  /** Answers are the channel's messages of type `resultType`. */
  constructor(
    private readonly channel: IpcChannel<Request>,
    resultType: string,
  ) {
    channel.onMessage((message) => {
      if (isIpcMessage(message) && message.type === resultType) this.settle(message as IpcResult<Ok>);
    });
    channel.onDisconnect(() => this.disconnect());
  }

  /** Requests sent and not answered yet. */
  get pendingCount(): number {
    return this.waiting.size;
  }

  /** Sends the request `make` builds with its number; resolves with the answer's ok part. */
  request(make: (requestId: number) => Request): Promise<Ok> {
    if (this.disconnected) return Promise.reject(unavailable());
    const requestId = this.nextRequestId++;
    return new Promise<Ok>((resolve, reject) => {
      this.waiting.set(requestId, { resolve, reject });
      this.channel.send(make(requestId));
    });
  }

  private settle(response: IpcResult<Ok>): void {
    const waiting = this.waiting.get(response.requestId);
    if (waiting === undefined) return;
    this.waiting.delete(response.requestId);
    if (response.ok) {
      waiting.resolve(response);
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
