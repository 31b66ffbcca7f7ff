// Validator elections and votes in the ledger (docs/compatibility.md #11): what they read of the
// store, their checks beyond those of a CREATE or TRANSFER, and a block's tally, which concludes
// elections and changes the validator set. The rules themselves are pure
// (transaction/elections.ts); elections and votes are v2.0 transactions (their outputs are v2.0
// outputs: a vote spends an election's), so they live in the v2 kind.
import assert from "node:assert/strict";
import { reject, type Rejection } from "../../../errors/ledgerError.js";
import type { ElectionRecord, LedgerStore, Validator, ValidatorSet } from "../../../store/store.js";
import { electionRejection, newValidatorSet, votesConclude } from "../../../transaction/elections.js";
import type { PreparedTx } from "../../../transaction/types.js";
import { failpoint } from "../../../failpoints.js";

/** What elections and votes are checked against, read once per block or check. */
export interface ElectionState {
  /** The block's height, or null for a check (against the latest state). */
  readonly height: number | null;
  /** The validator set in force at that height (for a check: the next block's). */
  readonly validatorSet: ValidatorSet;
  /** The records of the elections the batch's votes name, and of its elections (duplicates). */
  readonly records: ReadonlyMap<string, ElectionRecord>;
}

export function hasElectionWork(txs: readonly PreparedTx[]): boolean {
  return txs.some((tx) => tx.operation === "VALIDATOR_ELECTION" || tx.operation === "VOTE");
}

export async function readElectionState(store: LedgerStore, txs: readonly PreparedTx[], height: number | null): Promise<ElectionState> {
  const named = txs.filter((tx) => tx.operation === "VOTE").map((tx) => tx.assetId);
  const [validatorSet, records] = await Promise.all([
    height === null ? store.getValidatorSet() : store.getValidatorSet(height),
    store.getElections(named),
  ]);
  assert(validatorSet !== null, "elections are checked on a chain with a validator set");
  return { height, validatorSet, records };
}

/**
 * The checks of an election or a vote after those of a CREATE or TRANSFER: an election against
 * the validator set (BigchainDB's order), a vote against its election's record (ledgerd refuses
 * a vote for a concluded election; BigchainDB took it and counted it nowhere).
 */
export function electionCheck(tx: PreparedTx, state: ElectionState | null): Rejection | null {
  if (tx.election !== null) {
    assert(state !== null, "an election is checked with the election state");
    return electionRejection(tx.election, tx.outputs, state.validatorSet.validators);
  }
  if (tx.operation === "VOTE") {
    assert(state !== null, "a vote is checked with the election state");
    const record = state.records.get(tx.assetId);
    if (record !== undefined && record.concludedAt !== null) {
      return reject("ElectionConcluded", `election \`${tx.assetId}\` concluded at height ${record.concludedAt}`);
    }
  }
  return null;
}

/** What a block's elections change: the records to write, and the validator set if it changed. */
export interface TallyResult {
  readonly elections: readonly ElectionRecord[];
  /** The whole new set, in force from the next height. */
  readonly validators?: readonly Validator[];
  /** The change as CometBFT takes it (`validator_updates`): the key and its new power (0: removed). */
  readonly validatorUpdates: readonly Validator[];
}

/**
 * A block's elections and votes, in block order (BigchainDB `Election.process_block`): the
 * elections it starts, the votes per election (in order of each election's first vote). At the
 * end of the block an election concludes when its votes pass 2/3 of its power in this block,
 * the validator set has not changed since it started, and no earlier election of the block has
 * changed it already (one change per block, as BigchainDB).
 */
export class ElectionTally {
  private readonly started = new Map<string, ElectionRecord>();
  private readonly votes = new Map<string, bigint>();
  private readonly height: number;

  constructor(readonly state: ElectionState) {
    assert(state.height !== null, "a block's election state has the block's height");
    this.height = state.height;
  }

  /** The record of an election, committed or started earlier in this block. */
  record(id: string): ElectionRecord | undefined {
    return this.started.get(id) ?? this.state.records.get(id);
  }

  /** Counts a valid transaction of the block. */
  add(tx: PreparedTx): void {
    if (tx.election !== null) {
      this.started.set(tx.id, {
        id: tx.id,
        height: this.height,
        validatorKey: tx.election.validatorKey,
        power: tx.election.power,
        nodeId: tx.election.nodeId,
        total: tx.outputsTotal,
        votes: 0n,
        concludedAt: null,
      });
    } else if (tx.operation === "VOTE") {
      this.votes.set(tx.assetId, (this.votes.get(tx.assetId) ?? 0n) + tx.votes);
    }
  }

  finish(): TallyResult {
    const height = this.height;
    const set = this.state.validatorSet;
    const changed = new Map<string, ElectionRecord>(this.started);
    let change: { validators: Validator[]; update: Validator } | null = null;
    for (const [id, inBlock] of this.votes) {
      const record = this.record(id);
      // A vote for an asset that is not an election counts for nothing.
      if (record === undefined) continue;
      const next = { ...record, votes: record.votes + inBlock };
      const concludes =
        change === null &&
        record.concludedAt === null &&
        set.height <= record.height &&
        votesConclude(record.total, record.votes, inBlock);
      if (concludes) {
        const update = { publicKey: record.validatorKey, power: record.power };
        change = { validators: newValidatorSet(set.validators, record), update };
        changed.set(id, { ...next, concludedAt: height });
        failpoint("election.conclude");
      } else {
        changed.set(id, next);
      }
    }
    const elections = [...changed.values()];
    if (change === null) return { elections, validatorUpdates: [] };
    return { elections, validators: change.validators, validatorUpdates: [change.update] };
  }
}
