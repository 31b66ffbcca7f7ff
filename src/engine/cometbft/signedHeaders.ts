// CometBFT's signed headers for the proofs (http/routes/proofs.ts), read from its RPC: `status`
// for the last block's height and `commit` for a header and the commit that signed it. A node
// process and each HTTP worker make their own (a few calls per proof, none on other routes).
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

  static connect(rpcUrl: string, timeoutMs: number): CometBftSignedHeaders {
    const rpc = new CometBftRpcClient({
      url: rpcUrl,
      socketsMax: proofRpcSocketsMax,
      responseBytesMax: rpcResponseBytesMaxDefault,
      batchMethods: new Set(),
      batchCallsMax: 1,
      batchBytesMax: rpcResponseBytesMaxDefault,
    });
    return new CometBftSignedHeaders(rpc, timeoutMs);
  }

  close(): void {
    if (this.rpc instanceof CometBftRpcClient) this.rpc.close();
  }

  async lastSignedHeight(): Promise<number> {
    const status = (await this.call("status", {})) as { sync_info?: { latest_block_height?: string } };
    const latest = Number(status.sync_info?.latest_block_height);
    if (!Number.isSafeInteger(latest)) throw new LedgerError("EngineUnavailable", "CometBFT's status has no latest block height");
    return latest - 1;
  }

  async signedHeader(height: number): Promise<SignedHeader> {
    const result = (await this.call("commit", { height: String(height) })) as { signed_header?: SignedHeader };
    if (result.signed_header === undefined) throw new LedgerError("EngineUnavailable", `CometBFT has no signed header of height ${height}`);
    return result.signed_header;
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
export function signedHeadersOf(engine: { readonly kind: string }, options: { readonly rpcUrl: string }): CometBftSignedHeaders | undefined {
  return engine.kind === "cometbft" ? CometBftSignedHeaders.connect(options.rpcUrl, signedHeaderTimeoutMs) : undefined;
}

/** A proof waits at most this long for CometBFT's RPC. */
const signedHeaderTimeoutMs = 5_000;
