// What the nodes' snapshots say was committed, read once for every check of chaos/checker.ts:
// one reference chain (at each height, the block most nodes hold), where each committed
// transaction sits in it, and the outputs each one spends as its committed JSON says.
//
// Committed means in a block and served by some node. CometBFT's blocks also carry the
// transactions FinalizeBlock refused (ledgerd answers them code 1 and stores nothing), so a
// transaction in blocks that no node serves was refused, not committed (or lost by every node:
// checker.ts reports that when it was acknowledged).
import { readJsonOrNull } from "../src/json/readJson.js";
import { isJsonObject, type JsonValue } from "../src/json/jsonValue.js";
import type { BlockSnapshot, NodeSnapshot, OutputRef } from "./history.js";

/** Where a committed transaction sits: its block's height and its index in that block. */
export interface Place {
  readonly height: number;
  readonly index: number;
}

export interface LedgerView {
  /** Every transaction id in any node's blocks, with its place in the reference chain. */
  readonly placeOf: ReadonlyMap<string, Place>;
  /** The ids in blocks that some node serves: the committed transactions. */
  readonly committed: ReadonlySet<string>;
  /** The committed ids by height, then index: the order a stream sends. */
  readonly order: readonly string[];
  /** Each id's position in `order`. */
  readonly positionOf: ReadonlyMap<string, number>;
  /** The first position of each height's transactions in `order` (a height with none: absent). */
  readonly firstPositionOf: ReadonlyMap<number, number>;
  /** Each node's highest block (0 for none). */
  readonly topOf: ReadonlyMap<number, number>;
  /** The highest block of any node. */
  readonly top: number;
}

export function ledgerView(nodes: readonly NodeSnapshot[]): LedgerView {
  const committed = new Set<string>();
  for (const node of nodes) {
    for (const block of node.blocks) for (const id of block.txIds) if (servedText(node, id) !== undefined) committed.add(id);
  }
  const heights = [...new Set(nodes.flatMap((n) => n.blocks.map((b) => b.height)))].sort((a, b) => a - b);
  const placeOf = new Map<string, Place>();
  const order: string[] = [];
  const positionOf = new Map<string, number>();
  const firstPositionOf = new Map<number, number>();
  const blocksOf = nodes.map((n) => new Map(n.blocks.map((b) => [b.height, b])));
  for (const height of heights) {
    majorityBlock(blocksOf, height).forEach((id, index) => {
      placeOf.set(id, { height, index });
      if (!committed.has(id)) return;
      if (!firstPositionOf.has(height)) firstPositionOf.set(height, order.length);
      positionOf.set(id, order.length);
      order.push(id);
    });
  }
  // A transaction only a diverging node holds is committed there, and placed where it holds it.
  for (const node of nodes) {
    for (const block of node.blocks) {
      block.txIds.forEach((id, index) => placeOf.has(id) || placeOf.set(id, { height: block.height, index }));
    }
  }
  const topOf = new Map(nodes.map((n) => [n.node, n.blocks.reduce((top, b) => Math.max(top, b.height), 0)]));
  const top = [...topOf.values()].reduce((a, b) => Math.max(a, b), 0);
  return { placeOf, committed, order, positionOf, firstPositionOf, topOf, top };
}

/** A transaction's JSON as a node serves it; an empty text is what a node did not serve. */
export function servedText(node: NodeSnapshot, txId: string): string | undefined {
  const text = node.transactions.get(txId);
  return text === "" ? undefined : text;
}

/** The transaction ids most nodes holding `height` hold there (the first node's on a tie). */
function majorityBlock(blocksOf: readonly ReadonlyMap<number, BlockSnapshot>[], height: number): readonly string[] {
  const votes = new Map<string, { txIds: readonly string[]; count: number }>();
  for (const blocks of blocksOf) {
    const block = blocks.get(height);
    if (block === undefined) continue;
    const key = block.txIds.join(",");
    const vote = votes.get(key) ?? { txIds: block.txIds, count: 0 };
    vote.count++;
    votes.set(key, vote);
  }
  let best: { txIds: readonly string[]; count: number } = { txIds: [], count: 0 };
  for (const vote of votes.values()) if (vote.count > best.count) best = vote;
  return best.txIds;
}

/**
 * The outputs a committed transaction's JSON spends (`inputs[].fulfills`; none for a CREATE),
 * or null when the text is not a transaction's JSON.
 */
export function spendsOf(text: string): OutputRef[] | null {
  const tx = readJsonOrNull(text);
  if (!isJsonObject(tx) || !Array.isArray(tx["inputs"])) return null;
  const spends: OutputRef[] = [];
  for (const input of tx["inputs"] as JsonValue[]) {
    const fulfills = isJsonObject(input) ? input["fulfills"] : null;
    if (!isJsonObject(fulfills)) continue;
    spends.push(`${String(fulfills["transaction_id"])}:${String(fulfills["output_index"])}`);
  }
  return spends;
}
