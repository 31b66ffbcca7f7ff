// What the home page shows live: the latest blocks and transactions and the chart's rates. It
// starts from `GET /blocks/latest` (ledgerd, Planetmint; a BigchainDB node has none, and the
// lists then start empty) and follows the event streams. Blocks come from `valid_blocks` when
// the node has it, else they are told from the heights of `valid_transactions`' events (blocks
// without a transaction are then not seen). Every list is capped (limits.ts).
import { useEffect, useState } from "preact/hooks";
import type { Api } from "./api.js";
import { chartWindowSeconds, latestBlocksFetched, latestBlocksShownMax, latestTransactionsShownMax, liveNotifyDelayMs } from "./limits.js";
import { RateWindow } from "./rateWindow.js";
import { StreamSocket, type SocketStatus } from "./streamSocket.js";
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

const transactionStream = "valid_transactions";
const blockStream = "valid_blocks";

/** The stream URL of `name`: the discovered one with its last path segment replaced. */
export function streamUrlOf(discovered: string, name: string): string {
  return discovered.replace(/[^/]*\/?$/, name);
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
  private sockets: StreamSocket[] = [];
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

  /** Discovers the streams, subscribes, then reads the latest blocks (so none falls between). */
  async start(): Promise<void> {
    const index = await this.api.index();
    const streams = index.ok && isObject(index.value) && isString(index.value.streams) ? index.value.streams : null;
    if (streams === null) this.set({ status: "unavailable" });
    else this.subscribeStreams(streams);
    await this.loadLatest();
  }

  stop(): void {
    for (const socket of this.sockets) socket.close();
    this.sockets = [];
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

  private subscribeStreams(discovered: string): void {
    const transactions = new StreamSocket({
      url: streamUrlOf(discovered, transactionStream),
      onMessage: (event) => this.onTransactionEvent(event),
      onStatus: (status) => this.set({ status: liveStatusOf(status) }),
      giveUpIfFirstFails: false,
    });
    const blocks = new StreamSocket({
      url: streamUrlOf(discovered, blockStream),
      onMessage: (event) => this.onBlockEvent(event),
      onStatus: (status) => {
        if (status === "open") this.set({ blockSource: "valid_blocks" });
        if (status === "refused") this.set({ blockSource: "valid_transactions" });
      },
      giveUpIfFirstFails: true,
    });
    this.sockets = [transactions, blocks];
    transactions.open();
    blocks.open();
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
  private async loadLatest(): Promise<void> {
    const latest = await this.api.ask((client) => client.getLatestBlock());
    const top = latest.ok ? latestHeightOf(latest.value) : null;
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

function liveStatusOf(status: SocketStatus): LiveStatus {
  switch (status) {
    case "connecting":
      return "connecting";
    case "open":
      return "live";
    case "retrying":
      return "reconnecting";
    case "refused":
      return "unavailable";
  }
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
