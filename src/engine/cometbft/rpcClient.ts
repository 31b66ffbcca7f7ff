// A JSON-RPC 2.0 client for CometBFT's RPC over HTTP POST (`rpc/jsonrpc/server/http_json_handler.go`):
// `{"jsonrpc":"2.0","id":N,"method":"broadcast_tx_sync","params":{"tx":"<base64>"}}` to `/`.
// The answer is `{"result": ...}` or `{"error": {"code", "message", "data"}}`; in v0.38 an error
// returned by a method is `code -32603, message "Internal error", data <the error's text>`.
// Connections are kept alive and bounded (options.rpcSocketsMax). Calls of `batchMethods` made
// in the same turn of the event loop share one HTTP request as a JSON-RPC batch (an array, which
// CometBFT answers with an array; a batch of one is sent and answered as a plain object).
//
// A kept-alive connection CometBFT closed as this client sent a request on it (Go's server closes
// one idle for its read timeout) fails with no answer: that request is sent again, once, on a
// new connection. CometBFT did not read it, or, if it did, its mempool cache refuses the
// transaction a second time ("tx already exists in cache"), which the failure's `resent` tells
// the broadcaster. Any other failure is the caller's.
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";
import { systemClock, type Clock } from "../../clock/clock.js";

/** What went wrong with a call, as the broadcaster needs to tell it apart. */
export type RpcFailureKind =
  /** No connection: CometBFT is not running or not listening there. */
  | "unreachable"
  /** No answer within the time allowed. */
  | "timeout"
  /** CometBFT answered with a JSON-RPC error. */
  | "rpc"
  /** The answer was not JSON-RPC (a proxy's error page, a cut connection). */
  | "protocol";

export class RpcFailure extends Error {
  override readonly name = "RpcFailure";

  constructor(
    readonly kind: RpcFailureKind,
    message: string,
    /** For "rpc": the error's `data`, which holds CometBFT's reason (`tx already exists in cache`). */
    readonly data: string = "",
    options: { cause?: unknown; resent?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.resent = options.resent ?? false;
  }

  /** The call was sent a second time, its first connection closed without an answer. */
  readonly resent: boolean;
}

export interface RpcClientOptions {
  readonly url: string;
  readonly socketsMax: number;
  /** Largest answer read, in bytes: a broadcast's answer is small. */
  readonly responseBytesMax: number;
  /**
   * Methods whose calls made in the same turn of the event loop go out as one JSON-RPC batch
   * (one HTTP request). On loopback most of a call's cost is the HTTP round trip, so under load
   * this divides it by the batch size. Never `broadcast_tx_commit`: CometBFT runs a batch's
   * calls one after another, and each of those waits for a block.
   */
  readonly batchMethods: ReadonlySet<string>;
  /** Most calls in one batch. */
  readonly batchCallsMax: number;
  /** Most request bytes in one batch (CometBFT's `rpc.max_body_bytes` is 1,000,000 by default). */
  readonly batchBytesMax: number;
}

export const rpcResponseBytesMaxDefault = 4 * 1024 * 1024;

/** What the broadcaster calls: one method, so tests can stand in for CometBFT. */
export interface RpcCaller {
  call(method: string, params: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<unknown>;
}

interface Pending {
  readonly id: number;
  readonly body: string;
  readonly timeoutMs: number;
  /** Settles the call once; later answers (after a timeout) are dropped. */
  readonly finish: (error: RpcFailure | null, result?: unknown) => void;
}

export class CometBftRpcClient implements RpcCaller {
  private readonly agent: Agent;
  private readonly target: URL;
  private nextId = 1;
  private queue: Pending[] = [];
  private flushScheduled = false;

  private readonly clock: Clock;

  /** `deps.clock`: the calls' timeouts run on it; Node's timers by default. */
  constructor(private readonly options: RpcClientOptions, deps: { readonly clock?: Clock } = {}) {
    this.clock = deps.clock ?? systemClock;
    this.target = new URL(options.url);
    if (this.target.protocol !== "http:") throw new Error(`CometBFT RPC URL must be http://, got ${options.url}`);
    this.agent = new Agent({ keepAlive: true, maxSockets: options.socketsMax, maxFreeSockets: options.socketsMax });
  }

  /** Calls `method` and resolves with its `result`, or throws an RpcFailure. */
  call(method: string, params: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => {
      let done = false;
      const timer = this.clock.setTimeout(() => {
        finish(new RpcFailure("timeout", `CometBFT did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const finish = (error: RpcFailure | null, result?: unknown): void => {
        if (done) return;
        done = true;
        this.clock.clearTimeout(timer);
        if (error === null) resolve(result);
        else reject(error);
      };
      const call: Pending = { id, body, timeoutMs, finish };
      if (!this.options.batchMethods.has(method)) {
        this.send([call]);
        return;
      }
      this.queue.push(call);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  close(): void {
    this.agent.destroy();
  }

  /** Sends the queued calls in batches within the limits. */
  private flush(): void {
    this.flushScheduled = false;
    while (this.queue.length > 0) {
      let bytes = 0;
      let count = 0;
      for (const call of this.queue) {
        if (count > 0 && (count >= this.options.batchCallsMax || bytes + call.body.length > this.options.batchBytesMax)) break;
        bytes += call.body.length + 1;
        count++;
      }
      this.send(this.queue.splice(0, count));
    }
  }

  /**
   * One HTTP request: a single call as an object, several as a JSON-RPC batch (an array).
   * `resent`: the second try, on a connection of its own (`agent: false`), not the pool's.
   */
  private send(calls: readonly Pending[], resent = false): void {
    const body = Buffer.from(calls.length === 1 ? calls[0]!.body : `[${calls.map((c) => c.body).join(",")}]`, "utf8");
    const failAll = (failure: RpcFailure): void => calls.forEach((c) => c.finish(failure));
    let timedOut = false;
    /** The socket and what it had read before this request (a stale one reads nothing more). */
    let socket: { readonly bytesRead: number } | null = null;
    let readBefore = 0;
    const req = httpRequest(
      {
        agent: resent ? false : this.agent,
        host: this.target.hostname.replace(/^\[|\]$/g, ""),
        port: this.target.port === "" ? 80 : Number(this.target.port),
        path: this.target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": body.length },
      },
      (res) => {
        readBody(res, this.options.responseBytesMax).then(
          (text) => deliver(calls, text, res.statusCode ?? 0, resent),
          (error: unknown) => failAll(new RpcFailure("protocol", `reading CometBFT's answer failed: ${(error as Error).message}`, "", { cause: error })),
        );
      },
    );
    // The request lives as long as its most patient call; each call times out on its own.
    const timer = this.clock.setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, Math.max(...calls.map((c) => c.timeoutMs)));
    req.on("close", () => this.clock.clearTimeout(timer));
    req.on("socket", (s) => {
      socket = s;
      readBefore = s.bytesRead;
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      // Cut before any answer, on a connection kept from an earlier request, by the peer.
      const stale = req.reusedSocket && socket?.bytesRead === readBefore && staleSocketCodes.has(code);
      if (stale && !resent && !timedOut) {
        this.send(calls, true);
        return;
      }
      const kind = connectCodes.has(code) ? "unreachable" : "protocol";
      const message = `CometBFT RPC at ${this.options.url}: ${error.message}`;
      failAll(new RpcFailure(kind, message, "", { cause: error, resent }));
    });
    req.end(body);
  }
}

/** Hands each call its answer from a single answer or a batch's array, matched by id. */
function deliver(calls: readonly Pending[], text: string, status: number, resent: boolean): void {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    const failure = new RpcFailure("protocol", `CometBFT answered HTTP ${status} with a body that is not JSON`);
    calls.forEach((c) => c.finish(failure));
    return;
  }
  const answers = Array.isArray(answer) ? answer : [answer];
  const byId = new Map<unknown, unknown>();
  for (const entry of answers) if (typeof entry === "object" && entry !== null) byId.set((entry as { id?: unknown }).id, entry);
  for (const call of calls) {
    // A lone answer that is not an array (an error about the request as a whole, such as a
    // batch over CometBFT's rpc.max_request_batch_size) is every call's.
    const entry = byId.get(call.id) ?? (Array.isArray(answer) ? undefined : answer);
    if (entry === undefined) {
      call.finish(new RpcFailure("protocol", `CometBFT's answer (HTTP ${status}) has nothing for call ${call.id}`));
      continue;
    }
    call.finish(...parseEntry(entry, status, resent));
  }
}

/** How a request on a kept-alive connection CometBFT closed fails ("socket hang up": ECONNRESET). */
const staleSocketCodes: ReadonlySet<string> = new Set(["ECONNRESET", "EPIPE"]);

/** Errors that mean nothing reached CometBFT, so the transaction was not handed over. */
const connectCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
  "EPIPE",
]);

function readBody(res: IncomingMessage, bytesMax: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    res.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > bytesMax) {
        res.destroy(new Error(`answer is over ${bytesMax} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    res.on("error", reject);
    res.on("aborted", () => reject(new Error("connection cut")));
  });
}

/** A JSON-RPC answer as [failure, result] for `finish`. */
export function parseAnswer(text: string, status: number): [RpcFailure | null, unknown?] {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return [new RpcFailure("protocol", `CometBFT answered HTTP ${status} with a body that is not JSON`)];
  }
  return parseEntry(answer, status);
}

/** One parsed JSON-RPC response object as [failure, result]; `resent` as in RpcFailure. */
function parseEntry(answer: unknown, status: number, resent = false): [RpcFailure | null, unknown?] {
  if (typeof answer !== "object" || answer === null) {
    return [new RpcFailure("protocol", `CometBFT answered HTTP ${status} without a JSON-RPC object`)];
  }
  const { result, error } = answer as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (error !== undefined && error !== null) {
    const message = typeof error.message === "string" ? error.message : "error";
    const data = typeof error.data === "string" ? error.data : "";
    return [new RpcFailure("rpc", data === "" ? message : `${message} - ${data}`, data, { resent })];
  }
  if (result === undefined) return [new RpcFailure("protocol", `CometBFT answered HTTP ${status} with neither result nor error`)];
  return [null, result];
}
