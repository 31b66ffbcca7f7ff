// POST /transactions behind CometBFT, as a BigchainDB node did it (`lib.py post_transaction`):
// the node checks the transaction (committed state and its pending pool, without joining it),
// then hands it to CometBFT's
// `broadcast_tx_<mode>`, whose CheckTx and FinalizeBlock come back to this node's ledger through
// ABCI. The answers are mapped per docs/compatibility.md #5, not BigchainDB's 500s:
//   - refused by our own check, by CheckTx, or at FinalizeBlock: the LedgerError named by the
//     result's `codespace` (our error code) with its `log` (our message), so 400 with the same
//     text the solo engine gives;
//   - "tx already exists in cache" (the same bytes are in CometBFT's mempool): 400
//     PendingTransaction, unless it answers the RPC client's second try (rpcClient.ts): then the
//     first try got there, which is the answer of `async` and `sync`, and for `commit` 504 (its
//     wait was lost with the connection);
//   - CometBFT not reachable, or catching up: 503 EngineUnavailable;
//   - not committed in time (ours or CometBFT's `timeout_broadcast_tx_commit`): 504 CommitTimeout;
//   - `commit` whose transaction a committed block defeated (it spent one of the same outputs
//     under another id): 400 DoubleSpend at once (docs/http-api.md), not a 504 after the wait:
//     CometBFT's mempool drops such a transaction at its recheck and never reports it.
import { codes, type ErrorCode } from "../../errors/codes.js";
import { LedgerError, toLedgerError } from "../../errors/ledgerError.js";
import type { LedgerApp } from "../../ledger/ledgerApp.js";
import type { Door, PreparedBase } from "../../ledger/txKind.js";
import type { BroadcastMode, Broadcaster } from "../broadcaster.js";
import { RpcFailure, type RpcCaller } from "./rpcClient.js";

export interface CometBftBroadcasterOptions {
  readonly rpcTimeoutMs: number;
  readonly commitTimeoutMs: number;
}

export interface CometBftBroadcasterDeps {
  readonly ledger: Pick<LedgerApp, "dryCheckTx" | "watchRivals">;
  readonly rpc: RpcCaller;
  /**
   * Resolves once every block CometBFT has committed is durable in this node's store: the ABCI
   * app answers Commit before (abciApp.ts), and a `commit` POST's answer promises that a read
   * finds the transaction.
   */
  readonly durable: () => Promise<void>;
}

/** The parts of an ABCI result (ResponseCheckTx, ExecTxResult) as CometBFT's JSON writes them. */
interface AbciResultJson {
  /** Left out when 0 (`omitempty`). */
  readonly code?: number;
  readonly codespace?: string;
  readonly log?: string;
}

interface BroadcastCommitJson {
  readonly check_tx?: AbciResultJson;
  readonly tx_result?: AbciResultJson;
}

export class CometBftBroadcaster implements Broadcaster {
  constructor(
    private readonly options: CometBftBroadcasterOptions,
    private readonly deps: CometBftBroadcasterDeps,
  ) {}

  async broadcast(bytes: Uint8Array, mode: BroadcastMode, door?: Door): Promise<PreparedBase> {
    const checked = await this.deps.ledger.dryCheckTx(bytes, door);
    if (!checked.ok) throw toLedgerError(checked.rejection);
    const tx = checked.tx;
    const timeoutMs = mode === "commit" ? this.options.commitTimeoutMs : this.options.rpcTimeoutMs;
    // Watched before the transaction leaves: a rival committed after this is seen here, one
    // committed before it is refused by this node's CheckTx.
    const defeat = mode === "commit" ? defeatOf(this.deps.ledger, tx) : null;
    let result: unknown;
    try {
      const call = this.deps.rpc.call(`broadcast_tx_${mode}`, { tx: Buffer.from(bytes).toString("base64") }, timeoutMs);
      // Once defeated, the call's end is no one's. It is left to run out, not cut: CometBFT keeps
      // its subscription for the transaction until its own timeout whether or not the socket
      // closes (v0.38 `rpc/core/mempool.go`, BroadcastTxCommit's wait for the block does not
      // watch the request), so a cut socket and a new one would count twice against its
      // `max_subscription_clients` (see options.ts, rpcSocketsMax).
      if (defeat !== null) call.catch(() => undefined);
      result = await (defeat === null ? call : Promise.race([call, defeat.refused]));
    } catch (error) {
      if (!(error instanceof RpcFailure)) throw error;
      // Taken by CometBFT's mempool: all that `async` and `sync` promise.
      if (mode !== "commit" && firstTryArrived(error)) return tx;
      throw rpcFailureError(error, mode, tx.id, timeoutMs);
    } finally {
      defeat?.stop();
    }
    const refusal = resultError(mode, result);
    if (refusal !== null) throw refusal;
    // CometBFT reports the transaction committed after our Commit, so its block is the last.
    if (mode === "commit") await this.deps.durable();
    return tx;
  }
}

/**
 * A promise refused with the transaction's DoubleSpend once a committed block defeats it
 * (LedgerApp.watchRivals), and what ends the watch; null when the ledger watches no more.
 */
function defeatOf(
  ledger: Pick<LedgerApp, "watchRivals">,
  tx: PreparedBase,
): { refused: Promise<never>; stop: () => void } | null {
  let fail: (error: LedgerError) => void = () => undefined;
  const refused = new Promise<never>((_, reject) => (fail = reject));
  const stop = ledger.watchRivals(tx, (rejection) => fail(toLedgerError(rejection)));
  return stop === null ? null : { refused, stop };
}

/**
 * A second try refused as a transaction CometBFT's mempool already has: the first try reached
 * it (its connection was cut before the answer) and CheckTx took it. Refused, it would have left
 * the cache again (v0.38 `mempool/clist_mempool.go`, with `keep-invalid-txs-in-cache` off as
 * ledgerd's config leaves it), and the second try would have had the refusal itself.
 */
function firstTryArrived(failure: RpcFailure): boolean {
  return failure.resent && failure.kind === "rpc" && failure.data.includes(txInCache);
}

/** The refusal an RPC result carries, or null when the mode's point was reached. */
export function resultError(mode: BroadcastMode, result: unknown): LedgerError | null {
  if (mode === "async") return null;
  if (typeof result !== "object" || result === null) {
    return new LedgerError("EngineUnavailable", "CometBFT's answer to the broadcast has no result");
  }
  if (mode === "sync") return abciResultError(result as AbciResultJson);
  const commit = result as BroadcastCommitJson;
  return abciResultError(commit.check_tx ?? {}) ?? abciResultError(commit.tx_result ?? {});
}

/** A non-zero ABCI code as the LedgerError our ABCI app encoded in it (codespace, log). */
export function abciResultError(result: AbciResultJson): LedgerError | null {
  if (result.code === undefined || result.code === 0) return null;
  const log = result.log ?? "";
  const codespace = result.codespace ?? "";
  // Our app always sets one of our codes; anything else is still a refusal of the transaction.
  const code: ErrorCode = Object.hasOwn(codes, codespace) ? (codespace as ErrorCode) : "ValidationError";
  const message = log !== "" ? log : `rejected by the application with code ${result.code} ${codespace}`.trim();
  return new LedgerError(code, message);
}

/** CometBFT's reasons, as v0.38 words them (`mempool/errors.go`, `rpc/core/mempool.go`). */
const txInCache = "tx already exists in cache";
const mempoolFull = "mempool is full";
const txTooLarge = "tx too large";
const commitTimedOut = "timed out waiting for tx to be included in a block";
const catchingUp = "endpoint is closed while node is catching up";

export function rpcFailureError(failure: RpcFailure, mode: BroadcastMode, txId: string, timeoutMs: number): LedgerError {
  const options = { cause: failure };
  switch (failure.kind) {
    case "unreachable":
      return new LedgerError("EngineUnavailable", `CometBFT cannot be reached: ${failure.message}`, options);
    case "timeout":
      if (mode === "commit") return commitTimeout(txId, `within ${timeoutMs} ms`, failure);
      return new LedgerError("EngineUnavailable", `CometBFT did not answer within ${timeoutMs} ms`, options);
    case "protocol":
      return new LedgerError("EngineUnavailable", `CometBFT's answer could not be read: ${failure.message}`, options);
    case "rpc":
      break;
  }
  const data = failure.data;
  if (firstTryArrived(failure)) {
    const lost = "as far as this node saw: CometBFT took it, but its answer was lost";
    return commitTimeout(txId, lost, failure);
  }
  if (data.includes(txInCache)) {
    return new LedgerError("PendingTransaction", `Transaction \`${txId}\` is already pending`, options);
  }
  if (data.includes(commitTimedOut)) return commitTimeout(txId, "within CometBFT's timeout_broadcast_tx_commit", failure);
  if (data.includes(mempoolFull)) return new LedgerError("MempoolFull", "The pending pool is full; try again later", options);
  if (data.includes(txTooLarge)) return new LedgerError("BodyTooLarge", `CometBFT refused the transaction: ${data}`, options);
  if (data.includes(catchingUp)) {
    return new LedgerError("EngineUnavailable", "CometBFT is catching up with the network; try again later", options);
  }
  return new LedgerError("EngineUnavailable", `CometBFT refused the broadcast: ${failure.message}`, options);
}

function commitTimeout(txId: string, within: string, cause: RpcFailure): LedgerError {
  const message = `Transaction \`${txId}\` was not committed ${within}; it may still commit`;
  return new LedgerError("CommitTimeout", message, { cause });
}
