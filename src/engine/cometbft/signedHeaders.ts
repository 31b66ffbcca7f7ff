// CometBFT's signed headers for the proofs (http/routes/proofs.ts), read from its RPC's `commit`:
// a header and the commit that signed it, the last block's when no height is given. A node
// process and each HTTP worker make their own (one or two calls per proof, none on other routes).
import type { Clock } from "../../clock/clock.js";
import { LedgerError } from "../../errors/ledgerError.js";
import type { SignedHeader } from "../../proofs/verify.js";
import { CometBftRpcClient, RpcFailure, rpcResponseBytesMaxDefault, type RpcCaller } from "./rpcClient.js";

/** Sockets for the proofs' RPC calls: few, they are rare next to broadcasts. */
const proofRpcSocketsMax = 4;

export class CometBftSignedHeaders {
  constructor(
    private readonly rpc: RpcCaller,
    private readonly timeoutMs: number,
  ) {}

  /** `clock`: the calls' timeouts run on it (rpcClient.ts); Node's timers by default. */
  static connect(rpcUrl: string, timeoutMs: number, clock?: Clock): CometBftSignedHeaders {
    const rpc = new CometBftRpcClient({
      url: rpcUrl,
      socketsMax: proofRpcSocketsMax,
      responseBytesMax: rpcResponseBytesMaxDefault,
      batchMethods: new Set(),
      batchCallsMax: 1,
      batchBytesMax: rpcResponseBytesMaxDefault,
    }, clock === undefined ? {} : { clock });
    return new CometBftSignedHeaders(rpc, timeoutMs);
  }

  close(): void {
    if (this.rpc instanceof CometBftRpcClient) this.rpc.close();
  }

  /**
   * CometBFT's last block's header and the commit it saw for it (`commit` without a height: the
   * commit is not yet canonical, the next block will carry that one, but more than two thirds of
   * the validators signed it all the same). One call gives a proof its anchor and, mostly, its header.
   */
  async latestSignedHeader(): Promise<SignedHeader> {
    const header = await this.#signedHeaderOf(await this.call("commit", {}), "the last block");
    if (!Number.isSafeInteger(Number(header.header.height))) {
      throw new LedgerError("EngineUnavailable", "CometBFT's last signed header has no height");
    }
    return header;
  }

  async signedHeader(height: number): Promise<SignedHeader> {
    return this.#signedHeaderOf(await this.call("commit", { height: String(height) }), `height ${height}`);
  }

  async earliestHeight(): Promise<number> {
    const status = (await this.call("status", {})) as { sync_info?: { earliest_block_height?: unknown } } | null;
    const earliest = Number(status?.sync_info?.earliest_block_height);
    if (!Number.isSafeInteger(earliest)) throw new LedgerError("EngineUnavailable", "CometBFT's status has no earliest_block_height");
    return earliest;
  }

  #signedHeaderOf(result: unknown, what: string): SignedHeader {
    const header = typeof result === "object" && result !== null ? (result as { signed_header?: SignedHeader }).signed_header : undefined;
    if (header === undefined || header === null) throw new LedgerError("EngineUnavailable", `CometBFT has no signed header of ${what}`);
    return header;
  }

  private async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    try {
      return await this.rpc.call(method, params, this.timeoutMs);
    } catch (error) {
      if (error instanceof RpcFailure) throw new LedgerError("EngineUnavailable", `CometBFT's ${method}: ${error.message} ${error.data}`.trim());
      throw error;
    }
  }
}

/** The signed headers a node's HTTP API serves with its proofs: CometBFT's, or none (solo). */
export function signedHeadersOf(
  engine: { readonly kind: string },
  options: { readonly rpcUrl: string },
  clock?: Clock,
): CometBftSignedHeaders | undefined {
  return engine.kind === "cometbft" ? CometBftSignedHeaders.connect(options.rpcUrl, signedHeaderTimeoutMs, clock) : undefined;
}

/** A proof waits at most this long for CometBFT's RPC. */
export const signedHeaderTimeoutMs = 5_000;
