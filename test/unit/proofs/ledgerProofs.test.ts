// The proofs a node serves (ledger/proofs.ts) over a real SQLite store of 20,000 transactions:
// a proof of a transaction of every block, at every place in a block, verifies with the verifier
// alone (proofs/verify.ts); a proof with any single bit flipped, another height, index or size
// fails; consistency proofs between random heights verify, and fail against a history forked
// from this one.
//
// Why 20,000 (it was 100,000: 57 s alone on this 2-core machine, ~290 s when busy):
// nothing in the proofs' code depends on the ledger's size but the tree's depth, which the same
// loops walk at any size (proofs/history.ts and proofs/merkle.ts branch on a size's bits, not on
// its magnitude; the one size threshold, blockTree.ts's 64-leaf chunks, is above these
// 25-transaction blocks at either size). 20,000 transactions make ~800 history leaves on ~930
// heights: a history tree 10 levels deep, whose sizes 1..800 take every edge shape of up to 9
// peaks, reached by every proof and 300 random consistency proofs; the fork keeps the old
// proportions (forked at ~70% of its heights).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ChainCommitment } from "../../../src/ledger/commitment.js";
import { consistencyProof, transactionProof } from "../../../src/ledger/proofs.js";
import { verifyConsistencyProof, verifyTransactionProof, type ConsistencyProof, type TransactionProof } from "../../../src/proofs/verify.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import type { CommittedTx } from "../../../src/transaction/committed.js";
import { Random } from "../../helpers/random.js";
import { createTx, validator } from "../store/fixtures.js";

const txCount = 20_000;
const txsPerBlock = 25;
const dir = mkdtempSync(join(tmpdir(), "ledgerd-proofs-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A v1 chain of `blocks` blocks through the ledger's commitment; every 7th block is empty. */
async function buildChain(path: string, total: number, fork?: { at: number }): Promise<{ store: SqliteStore; ids: string[]; height: number }> {
  const store = SqliteStore.open({ path });
  await store.initChain("proofs", [validator("a")]);
  const commitment = await ChainCommitment.open(store, await store.getChainState());
  const ids: string[] = [];
  let height = 0;
  while (ids.length < total) {
    height++;
    const txs: CommittedTx[] = [];
    if (height % 7 !== 0) {
      for (let i = 0; i < txsPerBlock && ids.length + txs.length < total; i++) {
        const forked = fork !== undefined && height >= fork.at ? "fork-" : "";
        txs.push(createTx({ label: `${forked}p-${height}-${i}` }));
      }
    }
    const staged = commitment.next(height, txs.map((tx) => tx.id));
    await store.commitBlock({ height, appHash: staged.appHash, txs, history: staged.history! });
    commitment.advance(staged);
    ids.push(...txs.map((tx) => tx.id));
  }
  return { store, ids, height };
}

/**
 * The transactions whose proofs are checked: one of each block (the block's history leaf, so
 * every history index and every edge shape up to the last size), at the place in its block that
 * moves on by one from block to block (so every place 0..24 is proved some 30 times), and the
 * whole of the first and the last two blocks. Proving all 20,000 took 14 s and reached no shape
 * these 900 do not: a proof's path depends on the place in the block, the block's size and its
 * history index, never on which transaction sits there.
 */
function provedIds(ids: readonly string[]): string[] {
  const blocks: string[][] = [];
  for (let i = 0; i < ids.length; i += txsPerBlock) blocks.push(ids.slice(i, i + txsPerBlock));
  const whole = new Set([0, blocks.length - 2, blocks.length - 1]);
  return blocks.flatMap((block, b) => (whole.has(b) ? block : [block[b % block.length]!]));
}

const flipBit = (hex: string, bit: number): string => {
  const bytes = Buffer.from(hex, "hex");
  bytes[bit >> 3]! ^= 1 << (bit & 7);
  return bytes.toString("hex");
};

describe("proofs of a 20,000-transaction ledger", () => {
  let chain: Awaited<ReturnType<typeof buildChain>>;
  before(async () => {
    chain = await buildChain(join(dir, "ledger.sqlite"), txCount);
  });
  after(() => chain.store.close());

  it("a transaction of every block verifies (every place in a block in turn), to the last height and to the block's own", async () => {
    const head = await chain.store.getChainState();
    const proved = provedIds(chain.ids);
    let verified = 0;
    for (const id of proved) {
      const proof: TransactionProof = { ...(await transactionProof(chain.store, id)), signed_header: null };
      const verdict = verifyTransactionProof(proof, {}, id);
      assert.ok(verdict.ok, `${id}: ${verdict.ok ? "" : verdict.reason}`);
      assert.equal(verdict.appHash, head.appHash);
      verified++;
    }
    assert.equal(verified, proved.length);
    assert.ok(proved.length > txCount / txsPerBlock, "a transaction of every block, and whole blocks");
    // Anchored at its own block: the app hash that block's commit stored.
    const id = chain.ids[12_345]!;
    const height = (await chain.store.getBlockHeightOfTransaction(id))!;
    const own = await transactionProof(chain.store, id, height);
    assert.equal(own.app_hash, (await chain.store.getBlock(height))!.appHash);
    assert.ok(verifyTransactionProof({ ...own, signed_header: null }).ok);
  });

  it("a proof with any single bit flipped, another height, index or size fails", async () => {
    const random = new Random(15);
    for (let k = 0; k < 6; k++) {
      const id = chain.ids[Math.floor(random.next() * txCount)]!;
      const proof: TransactionProof = { ...(await transactionProof(chain.store, id)), signed_header: null };
      assert.ok(verifyTransactionProof(proof).ok);
      const hexes: [string, (value: string) => TransactionProof][] = [
        [proof.transaction_id, (v) => ({ ...proof, transaction_id: v })],
        [proof.app_hash, (v) => ({ ...proof, app_hash: v })],
        ...proof.block.path.map((h, i): [string, (v: string) => TransactionProof] => [h, (v) => ({ ...proof, block: { ...proof.block, path: proof.block.path.map((x, j) => (j === i ? v : x)) } })]),
        ...proof.history.path.map((h, i): [string, (v: string) => TransactionProof] => [h, (v) => ({ ...proof, history: { ...proof.history, path: proof.history.path.map((x, j) => (j === i ? v : x)) } })]),
      ];
      for (const [value, replace] of hexes) {
        for (let bit = 0; bit < 256; bit++) assert.equal(verifyTransactionProof(replace(flipBit(value, bit))).ok, false, `bit ${bit}`);
      }
      const wrong: TransactionProof[] = [
        { ...proof, block: { ...proof.block, height: proof.block.height + 1 } },
        { ...proof, block: { ...proof.block, height: proof.block.height - 1 } },
        { ...proof, block: { ...proof.block, index: (proof.block.index + 1) % proof.block.size } },
        { ...proof, block: { ...proof.block, size: proof.block.size + 1 } },
        { ...proof, history: { ...proof.history, index: proof.history.index + 1 } },
        { ...proof, history: { ...proof.history, index: proof.history.index - 1 } },
        { ...proof, history: { ...proof.history, size: proof.history.size + 1 } },
        { ...proof, history: { ...proof.history, size: proof.history.size - 1 } },
        { ...proof, block: { ...proof.block, path: proof.block.path.slice(1) } },
        { ...proof, history: { ...proof.history, path: [...proof.history.path, proof.history.path[0]!] } },
      ];
      for (const [i, bad] of wrong.entries()) assert.equal(verifyTransactionProof(bad).ok, false, `change ${i} of ${id}`);
    }
  });

  it("consistency proofs between random heights verify; flipped or swapped, they fail", async () => {
    const random = new Random(16);
    for (let k = 0; k < 300; k++) {
      const a = 1 + Math.floor(random.next() * chain.height);
      const b = 1 + Math.floor(random.next() * chain.height);
      const [from, to] = a <= b ? [a, b] : [b, a];
      const raw = await consistencyProof(chain.store, from, to);
      const proof: ConsistencyProof = { version: 1, from: { ...raw.from, signed_header: null }, to: { ...raw.to, signed_header: null }, path: raw.path };
      const verdict = verifyConsistencyProof(proof);
      assert.ok(verdict.ok, `${from}..${to}: ${verdict.ok ? "" : verdict.reason}`);
      if (proof.path.length > 0) {
        const i = Math.floor(random.next() * proof.path.length);
        const flipped = { ...proof, path: proof.path.map((h, j) => (j === i ? flipBit(h, Math.floor(random.next() * 256)) : h)) };
        assert.equal(verifyConsistencyProof(flipped).ok, false);
      }
      if (proof.from.size !== proof.to.size) assert.equal(verifyConsistencyProof({ ...proof, from: proof.to, to: proof.from }).ok, false);
    }
  });

  it("fails against a forked history: one that differs from a height on", async () => {
    const forkAt = 200;
    const fork = await buildChain(join(dir, "fork.sqlite"), 6_000, { at: forkAt });
    try {
      const random = new Random(17);
      for (let k = 0; k < 50; k++) {
        const from = 1 + Math.floor(random.next() * (fork.height - 1));
        const to = from + 1 + Math.floor(random.next() * (chain.height - from - 1));
        const ours = await consistencyProof(chain.store, from, to);
        const theirs = await consistencyProof(fork.store, from, from);
        // The fork's history at `from` claimed as the start of ours at `to`.
        const claimed: ConsistencyProof = { version: 1, from: { ...theirs.from, signed_header: null }, to: { ...ours.to, signed_header: null }, path: ours.path };
        const same = theirs.from.app_hash === ours.from.app_hash;
        assert.equal(same, from < forkAt, `the histories agree before the fork only (${from})`);
        assert.equal(verifyConsistencyProof(claimed).ok, same, `from ${from} to ${to}`);
      }
    } finally {
      await fork.store.close();
    }
  });
});
