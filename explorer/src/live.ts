// What the home page shows live: the latest blocks and transactions and the chart's rates. It
// starts from `GET /blocks/latest` (ledgerd, Planetmint; a BigchainDB node has none, and the
// lists then start empty) and follows the event streams. Blocks come from `valid_blocks` when
// the node has it, else they are told from the heights of `valid_transactions`' events (blocks
// without a transaction are then not seen). The streams are ledgerd/client's: after a drop they
// reconnect and resume where the page stopped, so the lists have no gap (the chart counts what
// was missed when it arrives). Every list is capped (limits.ts).
import { useEffect, useState } from "preact/hooks";
import { streamBlocks, streamTransactions, type StreamPlace } from "../../src/client/streamSubscription.js";
import type { Api } from "./api.js";
import {
  chartWindowSeconds,
  latestBlocksFetched,
  latestBlocksShownMax,
  latestTransactionsShownMax,
  liveNotifyDelayMs,
  streamReconnectDelayMsMax,
  streamReconnectDelayMsMin,
} from "./limits.js";
import { RateWindow } from "./rateWindow.js";
import {
  assetIdOf,
  blockTransactionsOf,
  idOf,
  isBlockEvent,
  isObject,
  isString,
  isTransaction,
  isTransactionEvent,
  latestHeightOf,
} from "./wire.js";

export interface BlockSummary {
  readonly height: number;
  readonly transactions: number;
  /** Counted from a whole block (fetched, or `valid_blocks`), not from transaction events. */
  readonly exact: boolean;
}

export interface TransactionSummary {
  readonly id: string;
  readonly height: number;
  readonly assetId: string | null;
}

export type LiveStatus = "connecting" | "live" | "reconnecting" | "unavailable";

export interface LiveState {
  /** The transaction stream's state. */
  readonly status: LiveStatus;
  /**
   * Where new blocks come from: `valid_blocks`, or the transaction events' heights when the
   * node refused that stream (and until it answers: "unknown").
   */
  readonly blockSource: "unknown" | "valid_blocks" | "valid_transactions";
  /** Whether the node answered `blocks/latest` (a BigchainDB node does not). */
  readonly latest: "loading" | "loaded" | "unavailable";
  readonly blocks: readonly BlockSummary[];
  readonly transactions: readonly TransactionSummary[];
}

/** The pause before the `attempt`th reconnection in a row: doubling, capped (limits.ts). */
function reconnectPause(attempt: number): Promise<void> {
  const ms = Math.min(streamReconnectDelayMsMin * 2 ** (attempt - 1), streamReconnectDelayMsMax);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Hands each event of `events` to `each`, until the stream ends. */
async function follow(events: AsyncIterable<unknown>, each: (event: unknown) => void): Promise<void> {
  for await (const event of events) each(event);
}

/** `list` with `item` put in height order (newest first), replacing one of the same height. */
function withBlock(list: readonly BlockSummary[], item: BlockSummary): BlockSummary[] {
  const rest = list.filter((b) => b.height !== item.height);
  const at = rest.findIndex((b) => b.height < item.height);
  rest.splice(at < 0 ? rest.length : at, 0, item);
  return rest.slice(0, latestBlocksShownMax);
}

export class Live {
  readonly rates = new RateWindow(chartWindowSeconds);
  private readonly api: Api;
  /** The clock of the events' times, in ms. */
  readonly now: () => number;
  private readonly listeners = new Set<() => void>();
  private streams = new AbortController();
  private current: LiveState = { status: "connecting", blockSource: "unknown", latest: "loading", blocks: [], transactions: [] };
  private notifying: ReturnType<typeof setTimeout> | null = null;

  /** `now`: the clock of the events' times (ms), given so that a test can drive it. */
  constructor(api: Api, now: () => number = () => Date.now()) {
    this.api = api;
    this.now = now;
  }

  get state(): LiveState {
    return this.current;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Discovers the streams and the latest height, subscribes from the block after it (so none
   * falls between, and a reconnection before the first event resumes there too), then reads the
   * latest blocks. A node without `blocks/latest` is followed from its first event on.
   */
  async start(): Promise<void> {
    const [index, latest] = await Promise.all([this.api.index(), this.api.ask((client) => client.getLatestBlock())]);
    const top = latest.ok ? latestHeightOf(latest.value) : null;
    const streams = index.ok && isObject(index.value) && isString(index.value.streams) ? index.value.streams : null;
    if (streams === null) this.set({ status: "unavailable" });
    else this.subscribeStreams(streams, top === null ? undefined : { height: top + 1 });
    await this.loadLatest(top);
  }

  stop(): void {
    this.streams.abort();
    if (this.notifying !== null) clearTimeout(this.notifying);
    this.notifying = null;
  }

  /**
   * The state changes at once; the listeners hear of it at most once per `liveNotifyDelayMs`,
   * so that a node committing thousands of transactions a second does not redraw the page for
   * each.
   */
  private set(change: Partial<LiveState>): void {
    this.current = { ...this.current, ...change };
    if (this.notifying !== null) return;
    this.notifying = setTimeout(() => {
      this.notifying = null;
      for (const listener of this.listeners) listener();
    }, liveNotifyDelayMs);
  }

  private subscribeStreams(discovered: string, from: StreamPlace | undefined): void {
    const { signal } = this.streams;
    // Retried for as long as the page is open, as a reader of a live page expects.
    const options = { WebSocket, signal, attemptsMax: Number.POSITIVE_INFINITY, pause: reconnectPause, ...(from === undefined ? {} : { from }) };
    const transactions = streamTransactions(discovered, {
      ...options,
      onConnection: (open) => {
        if (!signal.aborted) this.set({ status: open ? "live" : "reconnecting" });
      },
    });
    void follow(transactions, (event) => this.onTransactionEvent(event)).catch(() => this.set({ status: "unavailable" }));
    // A node without `valid_blocks` (BigchainDB) refuses it at once: its blocks are then told
    // from the transactions' events.
    const blocksOnly = new AbortController();
    signal.addEventListener("abort", () => blocksOnly.abort());
    let opened = false;
    const refused = (): void => {
      blocksOnly.abort();
      if (!signal.aborted) this.set({ blockSource: "valid_transactions" });
    };
    const blocks = streamBlocks(discovered, {
      ...options,
      signal: blocksOnly.signal,
      onConnection: (open) => {
        if (open) opened = true;
        if (open && !signal.aborted) this.set({ blockSource: "valid_blocks" });
        if (!opened) refused();
      },
    });
    void follow(blocks, (event) => this.onBlockEvent(event)).catch(refused);
  }

  private onTransactionEvent(event: unknown): void {
    if (!isTransactionEvent(event)) return;
    const at = this.now();
    this.rates.addTransactions(1, at);
    const summary: TransactionSummary = { id: event.transaction_id, height: event.height, assetId: event.asset_id };
    const others = this.current.transactions.filter((t) => t.id !== summary.id);
    const transactions = [summary, ...others].slice(0, latestTransactionsShownMax);
    if (this.current.blockSource === "valid_blocks") return this.set({ transactions });
    // No block stream: the block is told from its transactions' events.
    this.rates.addBlock(event.height, at);
    const known = this.current.blocks.find((b) => b.height === event.height);
    if (known?.exact === true) return this.set({ transactions });
    const block = { height: event.height, transactions: (known?.transactions ?? 0) + 1, exact: false };
    this.set({ transactions, blocks: withBlock(this.current.blocks, block) });
  }

  private onBlockEvent(event: unknown): void {
    if (!isBlockEvent(event)) return;
    this.rates.addBlock(event.height, this.now());
    const block = { height: event.height, transactions: event.transaction_ids.length, exact: true };
    this.set({ blocks: withBlock(this.current.blocks, block) });
  }

  /**
   * The latest `latestBlocksFetched` blocks, asked for at once, each listed with its
   * transactions as it arrives: a block of thousands of transactions is a large answer, and the
   * list should not wait for the slowest.
   */
  private async loadLatest(top: number | null): Promise<void> {
    if (top === null) return this.set({ latest: "unavailable" });
    const heights = Array.from({ length: latestBlocksFetched }, (_, i) => top - i).filter((h) => h >= 1);
    await Promise.all(
      heights.map(async (height) => {
        const answer = await this.api.ask((client) => client.getBlock(height));
        const txs = answer.ok ? blockTransactionsOf(answer.value) : null;
        if (txs === null) return;
        this.set({
          blocks: withBlock(this.current.blocks, { height, transactions: txs.length, exact: true }),
          transactions: mergeOlder(this.current.transactions, summariesOf(txs, height)),
        });
      }),
    );
    this.set({ latest: "loaded" });
  }
}

/** A block's transactions, newest (last in block order) first. */
function summariesOf(txs: readonly unknown[], height: number): TransactionSummary[] {
  const out: TransactionSummary[] = [];
  for (const tx of txs) {
    const id = idOf(tx);
    if (id !== null) out.unshift({ id, height, assetId: isTransaction(tx) ? assetIdOf(tx) : null });
  }
  return out;
}

/** `older` appended after `list` where they are not in it already, newest first, capped. */
function mergeOlder(list: readonly TransactionSummary[], older: readonly TransactionSummary[]): TransactionSummary[] {
  const seen = new Set(list.map((t) => t.id));
  const merged = [...list, ...older.filter((t) => !seen.has(t.id))];
  merged.sort((a, b) => b.height - a.height);
  return merged.slice(0, latestTransactionsShownMax);
}

/** The live state, re-rendering on each change. */
export function useLive(live: Live): LiveState {
  const [state, setState] = useState(live.state);
  useEffect(() => {
    setState(live.state);
    return live.subscribe(() => setState(live.state));
  }, [live]);
  return state;
}
