// A JSON-RPC 2.0 client for CometBFT's RPC over HTTP POST (`rpc/jsonrpc/server/http_json_handler.go`):
// `{"jsonrpc":"2.0","id":N,"method":"broadcast_tx_sync","params":{"tx":"<base64>"}}` to `/`.
// The answer is `{"result": ...}` or `{"error": {"code", "message", "data"}}`; in v0.38 an error
// returned by a method is `code -32603, message "Internal error", data <the error's text>`.
// Connections are kept alive and bounded (options.rpcSocketsMax).
import { Agent, request as httpRequest, type IncomingMessage } from "node:http";

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
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

export interface RpcClientOptions {
  readonly url: string;
  readonly socketsMax: number;
  /** Largest answer read, in bytes: a broadcast's answer is small. */
  readonly responseBytesMax: number;
}

export const rpcResponseBytesMaxDefault = 4 * 1024 * 1024;

/** What the broadcaster calls: one method, so tests can stand in for CometBFT. */
export interface RpcCaller {
  call(method: string, params: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<unknown>;
}

export class CometBftRpcClient implements RpcCaller {
  private readonly agent: Agent;
  private readonly target: URL;
  private nextId = 1;

  constructor(private readonly options: RpcClientOptions) {
    this.target = new URL(options.url);
    if (this.target.protocol !== "http:") throw new Error(`CometBFT RPC URL must be http://, got ${options.url}`);
    this.agent = new Agent({ keepAlive: true, maxSockets: options.socketsMax, maxFreeSockets: options.socketsMax });
  }

  /** Calls `method` and resolves with its `result`, or throws an RpcFailure. */
  call(method: string, params: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params }), "utf8");
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (error: RpcFailure | null, result?: unknown): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (error === null) resolve(result);
        else reject(error);
      };
      const req = httpRequest(
        {
          agent: this.agent,
          host: this.target.hostname.replace(/^\[|\]$/g, ""),
          port: this.target.port === "" ? 80 : Number(this.target.port),
          path: this.target.pathname,
          method: "POST",
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (res) => {
          readBody(res, this.options.responseBytesMax).then(
            (text) => finish(...parseAnswer(text, res.statusCode ?? 0)),
            (error: unknown) => finish(new RpcFailure("protocol", `reading CometBFT's answer failed: ${(error as Error).message}`, "", { cause: error })),
          );
        },
      );
      const timer = setTimeout(() => {
        finish(new RpcFailure("timeout", `CometBFT did not answer ${method} within ${timeoutMs} ms`));
        req.destroy();
      }, timeoutMs);
      req.on("error", (error: NodeJS.ErrnoException) => {
        const kind = connectCodes.has(error.code ?? "") ? "unreachable" : "protocol";
        finish(new RpcFailure(kind, `CometBFT RPC at ${this.options.url}: ${error.message}`, "", { cause: error }));
      });
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

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
  if (typeof answer !== "object" || answer === null) {
    return [new RpcFailure("protocol", `CometBFT answered HTTP ${status} without a JSON-RPC object`)];
  }
  const { result, error } = answer as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (error !== undefined && error !== null) {
    const message = typeof error.message === "string" ? error.message : "error";
    const data = typeof error.data === "string" ? error.data : "";
    return [new RpcFailure("rpc", data === "" ? message : `${message} - ${data}`, data)];
  }
  if (result === undefined) return [new RpcFailure("protocol", `CometBFT answered HTTP ${status} with neither result nor error`)];
  return [null, result];
}
