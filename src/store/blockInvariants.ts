// The block writers' invariants, one copy for every backend. Each is checked inside the
// writer's database transaction against the committed state plus the block so far. A failed
// check is a ledger bug (the validator checked the same state), so it is an assertion: it
// throws and the writer rolls the whole block back. Pure: the writer reads, these judge.

import assert from "node:assert/strict";
import type { CommitmentVersion } from "../proofs/commitment.js";
import type { BlockWrite, Evidence } from "./store.js";

/** initChain runs once, before the first block. */
export function checkInitChain(chainId: string | null, height: number): void {
  assert.equal(chainId, null, `initChain runs once; chain ${chainId} exists`);
  assert.equal(height, 0, "initChain runs before the first block");
}

/** A block comes right after the last committed one. */
export function checkNextHeight(block: BlockWrite, lastHeight: number): void {
  assert.equal(block.height, lastHeight + 1, "block heights are contiguous");
}

/**
 * A `v1` chain's block carries its history and no other chain's does; the history grows by one
 * leaf per block that holds a valid transaction of any kind. The history to write, if any.
 */
export function checkHistory(block: BlockWrite, commitment: CommitmentVersion, historySize: number): BlockWrite["history"] {
  const history = block.history;
  assert.equal(history !== undefined, commitment === "v1", `a ${commitment} chain's block has ${history === undefined ? "no" : "a"} history`);
  if (history === undefined) return undefined;
  const holdsOne = block.txs.length > 0 || (block.legacy?.txs.length ?? 0) > 0;
  const grew = history.size - historySize;
  assert.equal(grew, holdsOne ? 1 : 0, `a history of ${historySize} grew by ${grew}`);
  return history;
}

/** An id is stored once; `storedAt` is where the store already holds it (undefined: nowhere). */
export function checkNewId(label: string, storedAt: number | undefined): void {
  assert.equal(storedAt, undefined, `${label} is stored twice`);
}

/**
 * A spend names an output that exists and is unspent. `what` names the spend ("<tx> spends
 * <output>"); `spentBy` is the id that spent it when the writer knows it.
 */
export function checkSpend(what: string, exists: boolean, spent: boolean, spentBy?: string): void {
  assert.ok(exists, `${what}, which does not exist`);
  if (spent) assert.fail(`${what}, already spent${spentBy === undefined ? "" : ` by ${spentBy}`}`);
}

/** A legacy transaction's position is after the previous one's and inside the block's valid ones. */
export function checkLegacyPosition(id: string, position: number, previous: number, validCount: number): void {
  assert.ok(position > previous && position < validCount, `legacy ${id}: bad position`);
}

/** A legacy spend names an output that exists and is unspent (`what` as in checkSpend). */
export function checkLegacySpend(what: string, exists: boolean, spent: boolean): void {
  assert.ok(exists, `${what}, which does not exist`);
  assert.ok(!spent, `${what}, which is already spent`);
}

/** The update that marks a spend changed exactly its output's row. */
export function checkSpendTaken(what: string, changedRows: number | null): void {
  assert.equal(changedRows, 1, `${what}: the output row did not take the spend`);
}

/** A block's evidence is its own (its height) and numbered in its order from 0. The evidence to write. */
export function checkEvidence(block: BlockWrite): readonly Evidence[] {
  const evidence = block.evidence ?? [];
  evidence.forEach((e, i) => {
    assert.equal(e.height, block.height, `evidence ${i} of block ${block.height} names block ${e.height}`);
    assert.equal(e.index, i, `evidence ${i} of block ${block.height} is numbered ${e.index}`);
  });
  return evidence;
}
