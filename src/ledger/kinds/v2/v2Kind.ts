// The v2.0 transaction (BigchainDB 2.x, `POST /api/v1/transactions`) as a kind of the ledger:
// its pure rules are src/transaction/ (prepareTx, validateTx); this folder adds what needs the
// ledger's state: the committed reads, the pending and block views, the store write, the event.
import { reject, type Rejection } from "../../../errors/ledgerError.js";
import type { LedgerStore, StoredOutput } from "../../../store/store.js";
import { makesAsset, outputKey, type CommittedTx, type OutputRef } from "../../../transaction/committed.js";
import { readJsonOrNull } from "../../../json/readJson.js";
import { storedTxId } from "../../../transaction/storedTxId.js";
import { matchTxId } from "../../../transaction/matchTxId.js";
import { isJsonObject } from "../../../json/jsonValue.js";
import { prepareTx } from "../../../transaction/prepareTx.js";
import type { PreparedTx } from "../../../transaction/types.js";
import { validateTx } from "../../../transaction/validateTx.js";
import { v1Door } from "../../doors.js";
import type { BlockContribution, KindBlock, PreparedBase, TxKind } from "../../txKind.js";
import { ElectionTally, electionCheck, hasElectionWork, readElectionState } from "./elections.js";
import { BlockOverlay, type CommittedState } from "./blockOverlay.js";
import { pendingView } from "./pendingView.js";
import { decodePreparedTx, encodePreparedTx, type EncodedPreparedTx } from "./wirePreparedTx.js";

export const v2Kind: TxKind<PreparedTx, CommittedState> = {
  name: "v2",
  door: v1Door,
  // The default of its door and of ABCI: whatever no other kind claims is read as v2.0.
  claims: () => true,
  prepare: prepareTx,
  owns: (tx: PreparedBase) => "signaturesValid" in tx,
  forEachSpend(tx, visit) {
    for (const input of tx.inputs) {
      if (input.fulfills !== null) visit(outputKey(input.fulfills), input.fulfills.transactionId);
    }
  },
  // Checked against its id (a block carrying it releases it) and its inputs, which are
  // immutable once committed but for being spent.
  recheckBySpends: true,
  // An election rests on the validator set, a vote on its election's tally: a block changes
  // either without spending their inputs (a concluded election, another one's new set).
  recheckInFull: (tx) => tx.operation === "VALIDATOR_ELECTION" || tx.operation === "VOTE",
  read: readCommitted,
  validatePending: (tx, committed, pending) =>
    validateTx(tx, pendingView(committed, pending)) ?? electionCheck(tx, committed.elections),
  openBlock: (committed) => new V2Block(committed),
  // The stream sends `{height, asset_id, transaction_id}`: the prepared transaction has both.
  event: (tx) => tx,
  storedId: storedTxId,
  idOfBody: (body) => (isJsonObject(body) && matchTxId(body) !== null ? (body["id"] as string) : null),
  stored(json) {
    const body = readJsonOrNull(json);
    const tx = body === null ? null : prepareTx(body, json);
    if (tx === null || "code" in tx) return `it no longer passes the checks: ${tx?.message ?? "not JSON"}`;
    // A committed transaction's fulfillments verified (validateTx reports it after the stateful checks).
    if (!tx.signaturesValid) return "its signatures do not verify";
    return { txs: [toCommittedTx(tx)] };
  },
  encode: encodePreparedTx,
  decode: (wire) => decodePreparedTx(wire as EncodedPreparedTx),
};

/**
 * The solo engine's refusal (LedgerDeps.refuse): one validator, nothing to elect. A vote could
 * only be for an election, which it never committed.
 */
export function soloElectionRefusal(tx: PreparedBase): Rejection | null {
  if (!v2Kind.owns(tx)) return null;
  const operation = (tx as PreparedTx).operation;
  if (operation !== "VALIDATOR_ELECTION" && operation !== "VOTE") return null;
  return reject(
    "ValidationError",
    `${operation} needs the cometbft engine: the solo engine is one validator, with nothing to elect (docs/compatibility.md #11)`,
  );
}

/** One batched read of what the validator needs from committed state for these transactions. */
async function readCommitted(store: LedgerStore, txs: readonly PreparedTx[], height: number | null): Promise<CommittedState> {
  const refs: OutputRef[] = [];
  const creates: string[] = [];
  for (const tx of txs) {
    if (makesAsset(tx.operation)) creates.push(tx.id);
    for (const input of tx.inputs) if (input.fulfills !== null) refs.push(input.fulfills);
  }
  const [ids, outputs, elections] = await Promise.all([
    creates.length === 0 ? new Set<string>() : store.findTransactions(creates),
    refs.length === 0 ? new Map<string, StoredOutput>() : store.getOutputs(refs),
    hasElectionWork(txs) ? readElectionState(store, txs, height) : null,
  ]);
  return { ids, outputs, elections };
}

/** A block's v2.0 transactions: each against committed state plus the earlier valid ones. */
class V2Block implements KindBlock<PreparedTx> {
  private readonly overlay: BlockOverlay;
  private readonly committed: CommittedTx[] = [];
  /** Present when the block holds an election or a vote. */
  private readonly tally: ElectionTally | null;

  constructor(state: CommittedState) {
    this.overlay = new BlockOverlay(state);
    this.tally = state.elections === null ? null : new ElectionTally(state.elections);
  }

  execute(tx: PreparedTx): Rejection | null {
    const rejection = validateTx(tx, this.overlay) ?? electionCheck(tx, this.tally?.state ?? null);
    if (rejection !== null) return rejection;
    this.overlay.apply(tx);
    this.tally?.add(tx);
    this.committed.push(toCommittedTx(tx));
    return null;
  }

  write(): BlockContribution {
    if (this.tally === null) return { txs: this.committed };
    return { txs: this.committed, ...this.tally.finish() };
  }
}

function toCommittedTx(tx: PreparedTx): CommittedTx {
  const spends = tx.inputs.flatMap((input) => (input.fulfills === null ? [] : [input.fulfills]));
  return {
    id: tx.id,
    operation: tx.operation,
    assetId: tx.assetId,
    json: tx.json,
    assetData: tx.assetData,
    metadata: tx.metadata,
    outputs: tx.outputs,
    spends,
  };
}

