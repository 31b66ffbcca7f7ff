// The block writer: one block per SQLite transaction, all or nothing. Each spend is checked
// against the committed state plus the block so far; a failed check is a ledger bug (the
// validator checked the same state), so it is an assertion and rolls the whole block back.

import assert from "node:assert/strict";
import { legacyOutputKey } from "../../legacy/committed.js";
import { makesAsset, outputKey, type CommittedTx, type OutputRef } from "../../transaction/committed.js";
import type { CommitmentVersion } from "../../proofs/commitment.js";
import { checkHistory, checkInitChain, checkLegacyPosition, checkLegacySpend, checkNewId, checkNextHeight, checkSpend, checkSpendTaken, checkEvidence } from "../blockInvariants.js";
import { chainRulesColumns } from "../chainRules.js";
import { validatorsJson } from "../validatorsJson.js";
import type { BlockWrite, ChainRules, LegacyBlockWrite, Validator } from "../store.js";
import { indexNames, type Connection } from "./connection.js";
import type { IndexName } from "./queries.js";
import type { IndexRow, SliceMerge } from "./deferredIndex.js";
import { holdFieldRows, setFieldIndexMark, writeFieldRows, writeHeldFieldRows } from "./fieldIndex.js";
import { keyHash } from "./keyHash.js";
import { setTextIndexMark } from "./readIndexes.js";
import { legacyOutputsAt, legacySeqsOf, outputsAt, seqsOf, spendersOf } from "./lookups.js";
import { keyIndexRows, placeKey, spentIndexRow, txIndexRows, type BlockRows, type Place } from "./places.js";
import type { ChainStateRow } from "./rows.js";
import { searchText } from "../searchText.js";

export class BlockWriter {
  readonly #c: Connection;
  readonly #options: BlockWriterOptions;
  readonly #commit: (block: BlockWrite) => { merges: SliceMerge[]; lastSeq: number };
  /** The rows the block being written adds, when its caller asked for them; else null. */
  #journal: { [K in IndexName]: number[] } | null = null;
  /** A restore's bulk load: blocks merge nothing (unless too many rows wait); its commits merge all (holdMerges). */
  #mergesHeld = false;
  /** While merges are held: the field rows of the blocks since the last commit, (hash, seq) pairs. */
  #fieldsHeld: number[] = [];
  /** The block being written wrote the held field rows (past `rowsWaitingMax`): drop them once it commits. */
  #fieldsWritten = false;

  constructor(c: Connection, options: BlockWriterOptions) {
    this.#c = c;
    this.#options = options;
    // IMMEDIATE: take the write lock at BEGIN, so a commit never fails halfway for a lock.
    const commit = c.db.transaction((block: BlockWrite) => this.#writeBlock(block));
    this.#commit = (block) => commit.immediate(block);
  }

  initChain(chainId: string, validators: readonly Validator[], commitment: CommitmentVersion, rules: ChainRules | undefined): void {
    const c = this.#c;
    c.db
      .transaction(() => {
        const state = c.read.chainState.get() as ChainStateRow;
        checkInitChain(state.chainId, state.height);
        c.write.setChainId.run(chainId);
        c.write.setCommitment.run(commitment);
        const columns = chainRulesColumns(rules);
        c.write.setChainRules.run(columns.appVersion, columns.ruleHeights);
        // The first validator set governs from height 1 (BigchainDB `init_chain`).
        c.write.insertValidators.run(1, validatorsJson(validators));
      })
      .immediate();
  }

  /** Commits the block; with `journal`, gives back the index rows it added (BlockRows). */
  commitBlock(block: BlockWrite, journal = false): BlockRows | null {
    const index = this.#c.index;
    let merged: { merges: SliceMerge[]; lastSeq: number };
    this.#journal = journal ? { ids: [], assets: [], keys: [], spent: [] } : null;
    const fieldsBefore = this.#fieldsHeld.length;
    this.#fieldsWritten = false;
    try {
      merged = this.#commit(block);
    } catch (error) {
      this.#journal = null;
      // Rolled back with the block: what it wrote of them, and its own rows.
      this.#fieldsHeld.length = fieldsBefore;
      for (const name of indexNames) index[name].rolledBack();
      throw error;
    }
    if (this.#fieldsWritten) this.#fieldsHeld = [];
    this.#afterMerges(merged.merges);
    const added = this.#journal;
    this.#journal = null;
    if (added === null) return null;
    return {
      firstSeq: merged.lastSeq - block.txs.length + 1,
      lastSeq: merged.lastSeq,
      rows: { ids: Float64Array.from(added.ids), assets: Float64Array.from(added.assets), keys: Float64Array.from(added.keys), spent: Float64Array.from(added.spent) },
    };
  }

  /**
   * Merges every waiting row in a transaction of its own. The writer's open
   * calls it: the rows re-derived there (the index rows committed but not merged before the
   * last close) would otherwise be merged by the first commits, a slice's backlog each, and a
   * commit merging a backlog dirties its slice's whole key range (25 to 180 ms a commit for the
   * first seconds of a node with 1,000,000 transactions, BENCHMARKS.md issue #18). Merged here,
   * the node takes that time once, before it serves.
   */
  mergeWaiting(): void {
    const merges = this.#allSlices(false);
    if (merges.length === 0) return;
    this.#c.db.transaction(() => this.#writeMerges(merges)).immediate();
    this.#afterMerges(merges);
  }

  /**
   * A restore's bulk load (SqliteStore.beginBulkLoad): while held, a block merges no slice
   * (unless more than `rowsWaitingMax` rows wait), and each of the load's SQLite commits merges
   * every slice (mergeHeld). Per block, a slice's rows wait 64 blocks and a bulk commit of ~300
   * blocks merged each slice ~5 times, its pages dirtied again each time; at the commit each
   * index is merged once, in key order. Not for a catch-up's batches: a batch of fewer blocks
   * than slices would merge rows that had not waited long enough to share pages.
   */
  holdMerges(held: boolean): void {
    this.#mergesHeld = held;
    this.#fieldsHeld = [];
  }

  /**
   * While merges are held: every slice merged up to the last transaction, inside the open SQLite
   * transaction (give the result to `merged` once it commits); else nothing.
   */
  mergeHeld(): SliceMerge[] {
    if (!this.#mergesHeld) return [];
    // The field index's rows too, sorted by its key; the marks moved with each block.
    writeHeldFieldRows(this.#c.db, this.#fieldsHeld);
    this.#fieldsHeld = [];
    const merges = this.#allSlices(true);
    this.#writeMerges(merges);
    return merges;
  }

  /** The transaction that wrote these merges (mergeHeld) committed: the merged rows leave memory. */
  merged(merges: readonly SliceMerge[]): void {
    this.#afterMerges(merges);
  }

  /** Each slice behind the last transaction (`empty`: even one with no row waiting), merged up to it. */
  #allSlices(empty: boolean): SliceMerge[] {
    const lastSeq = (this.#c.read.lastSeq.get() as number | null) ?? 0;
    const merges: SliceMerge[] = [];
    this.#c.merged.forEach((mark, slice) => {
      if (mark < lastSeq && (empty || rowsWaitingIn(this.#c, slice) > 0)) merges.push({ slice, upTo: lastSeq });
    });
    return merges;
  }

  /** A row of the block being written, into its index (and the journal, when one is kept). */
  #add(name: IndexName, row: IndexRow): void {
    this.#c.index[name].add(row);
    if (this.#journal !== null) this.#journal[name].push(...row);
  }

  // Runs inside the commit transaction: any throw rolls the whole block back.
  #writeBlock(block: BlockWrite): { merges: SliceMerge[]; lastSeq: number } {
    const { read, write } = this.#c;
    const state = read.chainState.get() as ChainStateRow;
    checkNextHeight(block, state.height);
    const seqFirst = ((read.lastSeq.get() as number | null) ?? 0) + 1;
    const context = this.#blockContext(block.txs);
    for (let i = 0; i < block.txs.length; i++) {
      this.#writeTx(block.txs[i] as CommittedTx, seqFirst + i, block.height, context);
    }
    // Only a block that carried legacy transactions does any legacy work.
    if (block.legacy !== undefined) this.#writeLegacy(block.legacy, block.height, block.txs.length);
    this.#writeHistory(block, state);
    write.insertBlock.run(block.height, block.appHash, seqFirst, block.txs.length, block.history?.size ?? null);
    if (block.validators !== undefined) {
      // A validator update takes effect from the next height (BigchainDB `end_block`).
      write.insertValidators.run(block.height + 1, validatorsJson(block.validators));
    }
    for (const e of block.elections ?? []) {
      write.putElection.run(e.id, e.height, e.validatorKey, e.power, e.nodeId, `${e.total}`, `${e.votes}`, e.concludedAt);
    }
    for (const e of checkEvidence(block)) {
      write.insertEvidence.run(e.height, e.index, e.type, e.validatorAddress, e.power, e.infractionHeight, e.time, e.totalPower);
    }
    write.setHead.run(block.height, block.appHash);
    // The field index: written directly, not deferred (fieldIndex.ts); both read indexes'
    // marks stay behind when they are off (readIndexes.ts).
    const lastSeq = seqFirst + block.txs.length - 1;
    if (this.#options.readIndexes) {
      setFieldIndexMark(this.#c.db, lastSeq);
      setTextIndexMark(this.#c.db, lastSeq);
    }
    // Held field rows are bounded as the deferred indexes' are: past the limit they are written
    // now, inside this block's savepoint (if it fails they are rolled back and still held).
    if (this.#fieldsHeld.length > 2 * this.#options.rowsWaitingMax) {
      writeHeldFieldRows(this.#c.db, this.#fieldsHeld);
      this.#fieldsWritten = true;
    }
    // Last: lookups above must not see rows both merged and waiting.
    return { merges: this.#mergeSlices(lastSeq), lastSeq };
  }

  /** The history tree's new perfect subtrees, on a `v1` chain (and none on another). */
  #writeHistory(block: BlockWrite, state: ChainStateRow): void {
    const { write } = this.#c;
    const history = checkHistory(block, state.commitment, state.historySize);
    if (history === undefined) return;
    for (const node of history.nodes) write.insertHistoryNode.run(node.level, node.index, node.hash);
    for (const node of history.blockNodes) write.insertBlockNode.run(block.height, node.level, node.index, node.hash);
    write.setHistorySize.run(history.size);
  }

  /** What the block's checks need from the committed state, read in a few bulk statements. */
  #blockContext(txs: readonly CommittedTx[]): BlockContext {
    const named = txs.flatMap((tx) => [tx.id, ...tx.spends.map((ref) => ref.transactionId)]);
    const ids = seqsOf(this.#c, named);
    const places: Place[] = [];
    for (const tx of txs) {
      for (const ref of tx.spends) {
        const seq = ids.get(ref.transactionId);
        if (seq !== undefined) places.push([seq, ref.outputIndex]);
      }
    }
    const outputs = new Set(outputsAt(this.#c, places).keys());
    return { ids, outputs, spent: spendersOf(this.#c, places) };
  }

  /** Writes one transaction; `context` holds the committed state plus this block so far. */
  #writeTx(tx: CommittedTx, seq: number, height: number, context: BlockContext): void {
    const { read, write } = this.#c;
    checkNewId(tx.id, context.ids.get(tx.id));
    const { insertTx, insertInput, insertOutput } = write;
    // The column holds the role (schema.ts): an election makes its asset, a vote moves one.
    const role = makesAsset(tx.operation) ? "CREATE" : "TRANSFER";
    insertTx.run(seq, height, role, tx.id, tx.assetId, tx.assetData, tx.metadata, tx.json);
    context.ids.set(tx.id, seq);
    const rows = txIndexRows(seq, tx.id, role, tx.assetId);
    for (const row of rows.ids) this.#add("ids", row);
    for (const row of rows.assets) this.#add("assets", row);
    // Spends before outputs: a transaction can never spend its own output.
    for (let i = 0; i < tx.spends.length; i++) {
      const ref = tx.spends[i] as OutputRef;
      const spentSeq = context.ids.get(ref.transactionId);
      const place = spentSeq === undefined ? "" : placeKey(spentSeq, ref.outputIndex);
      // The validator checked these against the same state: failing here is a ledger bug.
      const what = `${tx.id} spends ${outputKey(ref)}`;
      const spender = context.spent.get(place);
      checkSpend(what, context.outputs.has(place), spender !== undefined, spender === undefined ? undefined : (read.txIdAt.get(spender) as string));
      context.spent.set(place, seq);
      insertInput.run(seq, i, spentSeq, ref.outputIndex);
      this.#add("spent", spentIndexRow(spentSeq as number, ref.outputIndex, seq));
    }
    for (const output of tx.outputs) {
      const at = output.outputIndex;
      const keys = JSON.stringify(output.publicKeys);
      insertOutput.run(seq, at, output.amount.toString(), output.conditionUri, keys);
      context.outputs.add(placeKey(seq, at));
      for (const row of keyIndexRows(seq, at, output.publicKeys)) this.#add("keys", row);
    }
    // Reads' indexes only (readIndexes.ts): no check of a transaction reads them.
    if (!this.#options.readIndexes) return;
    if (tx.assetData !== null) {
      write.insertAssetText.run(seq, searchText(tx.id, tx.assetData));
    }
    if (tx.metadata !== null) {
      write.insertMetadataText.run(seq, searchText(tx.id, tx.metadata));
    }
    if (this.#mergesHeld) holdFieldRows(this.#fieldsHeld, seq, tx.assetData, tx.metadata);
    else writeFieldRows(this.#c.db, seq, tx.assetData, tx.metadata);
  }

  /**
   * Writes the block's legacy part, checking each spend against the committed legacy outputs
   * plus those written earlier in the block (one spent index for both variants). Inside the
   * commit transaction: an assertion rolls the whole block back.
   */
  #writeLegacy(legacy: LegacyBlockWrite, height: number, currentCount: number): void {
    const c = this.#c;
    const { insertLegacyTx, insertLegacyOutput, spendLegacyOutput, insertLegacyInvalid } = c.write;
    const ids = legacySeqsOf(c, legacy.txs.flatMap((tx) => [tx.id, ...tx.spends.map((r) => r.txid)]));
    const places: Place[] = [];
    for (const tx of legacy.txs) {
      for (const ref of tx.spends) {
        const seq = ids.get(ref.txid);
        if (seq !== undefined) places.push([seq, ref.cid]);
      }
    }
    const stored = legacyOutputsAt(c, places);
    const outputs = new Set(stored.keys());
    const spent = new Set([...stored].filter(([, row]) => row.spentBy !== null).map(([key]) => key));
    const validCount = currentCount + legacy.txs.length;
    let seq = ((c.read.legacyLastSeq.get() as number | null) ?? 0) + 1;
    let position = -1;
    for (const tx of legacy.txs) {
      checkNewId(`legacy ${tx.id}`, ids.get(tx.id));
      checkLegacyPosition(tx.id, tx.position, position, validCount);
      position = tx.position;
      const hash = keyHash(tx.id);
      insertLegacyTx.run(seq, hash, tx.id, height, tx.position, tx.variant, tx.operation, tx.json);
      ids.set(tx.id, seq);
      // Spends before outputs: a transaction can never spend its own output.
      for (const ref of tx.spends) {
        const spentSeq = ids.get(ref.txid);
        const place = spentSeq === undefined ? "" : placeKey(spentSeq, ref.cid);
        // The validator checked these against the same state: failing here is a ledger bug.
        const what = `legacy ${tx.id} spends ${legacyOutputKey(ref)}`;
        checkLegacySpend(what, outputs.has(place), spent.has(place));
        spent.add(place);
        const changed = spendLegacyOutput.run(seq, spentSeq, ref.cid).changes;
        checkSpendTaken(what, changed);
      }
      for (const output of tx.outputs) {
        const keys = JSON.stringify(output.publicKeys);
        insertLegacyOutput.run(seq, output.cid, output.conditionUri, keys);
        outputs.add(placeKey(seq, output.cid));
      }
      seq++;
    }
    for (const refused of legacy.invalid) {
      insertLegacyInvalid.run(keyHash(refused.id), refused.id, height, refused.code, refused.message, refused.json, refused.position);
    }
  }

  /**
   * Merges the slice that waited longest, and more while too many rows wait, at most
   * `mergeRowsMax` rows in all, or twice the rows the block adds if more, so that merging always
   * outpaces the blocks (a slice holding more is merged oldest rows first, the rest in later
   * commits); none while merges are held (holdMerges) and at most `rowsWaitingMax` rows wait.
   * Inside the commit transaction; the in-memory side follows in commitBlock once the commit has
   * succeeded.
   */
  #mergeSlices(lastSeq: number): SliceMerge[] {
    const { index, merged } = this.#c;
    const { rowsWaitingMax, mergeRowsMax } = this.#options;
    const order = merged.map((mark, slice) => ({ mark, slice }));
    order.sort((a, b) => a.mark - b.mark || a.slice - b.slice);
    const waiting = (slice: number) => rowsWaitingIn(this.#c, slice);
    let left = order.reduce((n, { slice }) => n + waiting(slice), 0);
    if (this.#mergesHeld && left <= rowsWaitingMax) return [];
    let budget = Math.max(mergeRowsMax, 2 * indexNames.reduce((n, name) => n + index[name].pendingRows, 0));
    const merges: SliceMerge[] = [];
    for (const { slice } of order) {
      const count = waiting(slice);
      if (merges.length > 0) {
        if (left <= rowsWaitingMax || budget <= 0) break;
        if (count === 0) continue; // the extra merges are for rows, not marks
      }
      const merge = count <= budget ? { slice, upTo: lastSeq, rows: count } : this.#oldestRows(slice, count, budget);
      merges.push({ slice, upTo: merge.upTo });
      left -= merge.rows;
      budget -= merge.rows;
    }
    this.#writeMerges(merges);
    return merges;
  }

  /** The merges' rows into the tables and their marks into index_sweep. Inside a write transaction. */
  #writeMerges(merges: readonly SliceMerge[]): void {
    const { index, write } = this.#c;
    for (const name of indexNames) index[name].merge(merges);
    for (const { slice, upTo } of merges) write.setSweep.run(upTo, slice);
  }

  /** Once the transaction that wrote `merges` committed: the merged rows leave memory, the marks move. */
  #afterMerges(merges: readonly SliceMerge[]): void {
    for (const name of indexNames) this.#c.index[name].committed(merges);
    for (const { slice, upTo } of merges) this.#c.merged[slice] = upTo;
  }

  /**
   * The bound of a partial merge of `slice`: the rows of its oldest transactions, as many as fit
   * in `rowsMax` (a transaction's rows stay together, and the oldest one's go even if they do not
   * fit, so that every merge moves the mark).
   */
  #oldestRows(slice: number, count: number, rowsMax: number): { upTo: number; rows: number } {
    const sorted = new Float64Array(count);
    let at = 0;
    for (const name of indexNames) at = this.#c.index[name].waitingSeqs(slice, sorted, at);
    assert.equal(at, count, "the waiting rows counted are the rows found");
    sorted.sort();
    const upTo = Math.max(sorted[rowsMax]! - 1, sorted[0]!);
    let rows = 0;
    while (rows < sorted.length && sorted[rows]! <= upTo) rows++;
    return { upTo, rows };
  }
}

/** Rows waiting in memory in `slice`, over every hashed index (staged and pending). */
export function rowsWaitingIn(c: Connection, slice: number): number {
  return indexNames.reduce((n, name) => n + c.index[name].waitingCount(slice), 0);
}

/** How the deferred indexes are merged, and whether the read indexes are written (SqliteStoreOptions). */
export interface BlockWriterOptions {
  /** SqliteStoreOptions.readIndexes. */
  readonly readIndexes: boolean;
  /**
   * When more rows than this wait in memory, a commit merges more than one slice; and a block
   * writes a restore's held field rows (holdMerges) once more than this many are held.
   */
  readonly rowsWaitingMax: number;
  /** Most rows one commit merges, so that a commit stays short whatever waits. */
  readonly mergeRowsMax: number;
}

/** The committed state a block's checks read, updated as the block's transactions are written. */
interface BlockContext {
  /** Transaction id -> seq. */
  readonly ids: Map<string, number>;
  /** placeKey of every output that exists. */
  readonly outputs: Set<string>;
  /** placeKey -> seq of the spender. */
  readonly spent: Map<string, number>;
}
