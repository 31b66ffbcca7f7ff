// A resumed subscription (docs/http-api.md "Resuming a stream"): where it starts, or why it is
// closed, and what a page of blocks replayed from the store sends it. The hand-over from the
// replay to the live blocks is StreamServer's (streamServer.ts); these are its pure parts and
// its one read before the upgrade.
import { Buffer } from "node:buffer";
import { LedgerError } from "../errors/ledgerError.js";
import type { ChainReads, StreamBlockRecord } from "../store/store.js";
import { replayPageBlocksMax, replayPageTxsMax, type StreamKind } from "./limits.js";
import { blockMessage, eventMessage } from "./messages.js";
import type { ResumeAsk } from "./resumeAsk.js";

/** What the stream reads of the store: the committed height, and the blocks to replay. */
export type StreamReads = Pick<ChainReads, "getChainState" | "getStreamBlocks">;

/** One page of a replay's reads (limits.ts). */
export const replayPageLimits = { blocksMax: replayPageBlocksMax, txsMax: replayPageTxsMax };

/**
 * WebSocket close codes of a resumed subscription (RFC 6455 §7.4.2: 4000-4999 are the
 * application's), each 4000 plus the HTTP status that says the same, with a reason text.
 */
export const resumeCloseCodes = Object.freeze({
  /** A height this node does not hold: below its oldest block (a state-synced or restored node). */
  notStored: 4410,
  /** A height beyond this node's chain: a node behind the one the subscriber left. */
  beyondChain: 4416,
});

/** A subscriber's place: the next block it needs and, in it, the first transaction to send. */
export interface Cursor {
  readonly height: number;
  readonly index: number;
}

export interface CloseReason {
  readonly code: number;
  readonly reason: string;
}

/**
 * Where a resumed subscriber starts, and the replay's first page when reading the cursor's block
 * read it (empty: the replay reads it), or why it is closed.
 */
export type ResumeStart =
  | { readonly cursor: Cursor; readonly page: readonly StreamBlockRecord[]; readonly close?: never }
  | { readonly close: CloseReason };

/**
 * Where a resumed subscriber starts, or why it is closed once upgraded. `committed` is the last
 * height the stream has published; the store may be a block ahead. An `after` that is not a
 * transaction of block `ask.height` is BadParameter (400, before the upgrade).
 */
export async function resumeStart(ask: ResumeAsk, reads: StreamReads, committed: number): Promise<ResumeStart> {
  const tip = Math.max((await reads.getChainState()).height, committed);
  // The next block is a place to wait at; `after` names a transaction of a committed block.
  const last = ask.after === null ? tip + 1 : tip;
  if (ask.height > last) return { close: beyondChain(ask.height, tip) };
  if (ask.height === tip + 1) return { cursor: { height: ask.height, index: 0 }, page: [] };
  // The replay's first page: its first block is the one asked for, read once.
  const page = await reads.getStreamBlocks(ask.height, replayPageLimits);
  const first = page[0];
  if (first?.height !== ask.height) return { close: notStored(ask.height, first?.height ?? tip + 1) };
  if (ask.after === null) return { cursor: { height: ask.height, index: 0 }, page };
  const index = first.txs.findIndex((tx) => tx.id === ask.after);
  if (index < 0) throw new LedgerError("BadParameter", `after: no transaction ${ask.after} in block ${ask.height}`);
  return { cursor: { height: ask.height, index: index + 1 }, page };
}

/**
 * The block at `height` is not stored here; `oldest`, when known, is the first one that is. A
 * reason fits a close frame: 123 bytes at most (RFC 6455 §5.5).
 */
export function notStored(height: number, oldest: number | null): CloseReason {
  const since = oldest === null ? "" : `; it replays from ${oldest}`;
  return { code: resumeCloseCodes.notStored, reason: `Block ${height} is not stored on this node${since}` };
}

function beyondChain(height: number, tip: number): CloseReason {
  return { code: resumeCloseCodes.beyondChain, reason: `Block ${height} is beyond this node's last block, ${tip}` };
}

/**
 * What a page of replayed blocks sends a subscriber at `cursor`: the run of blocks from the
 * cursor's height without a gap (the transaction stream from the cursor's index in the first),
 * and the cursor after it. `taken` 0: the store has no block at the cursor.
 */
export function replayPage(
  kind: StreamKind,
  blocks: readonly StreamBlockRecord[],
  cursor: Cursor,
): { messages: Buffer[]; cursor: Cursor; taken: number } {
  const messages: Buffer[] = [];
  let taken = 0;
  for (const block of blocks) {
    if (block.height !== cursor.height + taken) break;
    if (kind === "blocks") messages.push(Buffer.from(blockMessage(block), "utf8"));
    else {
      const from = taken === 0 ? cursor.index : 0;
      for (const tx of block.txs.slice(from)) messages.push(Buffer.from(eventMessage(block.height, tx), "utf8"));
    }
    taken++;
  }
  return { messages, cursor: taken === 0 ? cursor : { height: cursor.height + taken, index: 0 }, taken };
}
