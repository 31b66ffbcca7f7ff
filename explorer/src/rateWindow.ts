// The live chart's numbers: committed transactions per second and the time between successive
// blocks, over the last `windowSeconds`. A ring of one bucket per second, so the memory is fixed
// however long the tab stays open. Pure: the caller passes the time of each event.

interface Bucket {
  /** The whole second (of the clock in ms / 1000) the bucket counts; -1 when unused. */
  second: number;
  transactions: number;
  intervalSumMs: number;
  intervals: number;
}

export interface RateSeries {
  /** Each bucket's second (uPlot's time axis is in seconds), oldest first. */
  readonly seconds: number[];
  readonly transactionsPerSecond: number[];
  /** Mean time between blocks that arrived in that second, in seconds; null when none did. */
  readonly blockIntervalSeconds: (number | null)[];
}

const msPerSecond = 1_000;

export class RateWindow {
  readonly windowSeconds: number;
  private readonly buckets: Bucket[];
  private lastHeight = -1;
  private lastBlockAtMs: number | null = null;

  constructor(windowSeconds: number) {
    if (!Number.isSafeInteger(windowSeconds) || windowSeconds < 1) throw new Error(`windowSeconds ${windowSeconds}`);
    this.windowSeconds = windowSeconds;
    this.buckets = Array.from({ length: windowSeconds }, () => ({ second: -1, transactions: 0, intervalSumMs: 0, intervals: 0 }));
  }

  /** One committed transaction, seen at `atMs`. */
  addTransactions(count: number, atMs: number): void {
    this.bucketAt(atMs).transactions += count;
  }

  /**
   * A block seen at `atMs`. Only a height above the last one counts (a reconnected stream or
   * the two streams may name a block twice); the interval is from the previous block seen.
   */
  addBlock(height: number, atMs: number): void {
    if (height <= this.lastHeight) return;
    if (this.lastBlockAtMs !== null) {
      const bucket = this.bucketAt(atMs);
      bucket.intervalSumMs += Math.max(0, atMs - this.lastBlockAtMs);
      bucket.intervals += 1;
    }
    this.lastHeight = height;
    this.lastBlockAtMs = atMs;
  }

  /** The window ending at `nowMs`, one point per second. */
  series(nowMs: number): RateSeries {
    const now = Math.floor(nowMs / msPerSecond);
    const seconds: number[] = [];
    const transactionsPerSecond: number[] = [];
    const blockIntervalSeconds: (number | null)[] = [];
    for (let second = now - this.windowSeconds + 1; second <= now; second++) {
      const bucket = this.buckets[this.slotOf(second)];
      const current = bucket !== undefined && bucket.second === second;
      seconds.push(second);
      transactionsPerSecond.push(current ? bucket.transactions : 0);
      blockIntervalSeconds.push(current && bucket.intervals > 0 ? bucket.intervalSumMs / bucket.intervals / msPerSecond : null);
    }
    return { seconds, transactionsPerSecond, blockIntervalSeconds };
  }

  private slotOf(second: number): number {
    return ((second % this.windowSeconds) + this.windowSeconds) % this.windowSeconds;
  }

  /** The bucket of `atMs`'s second, emptied first when it last counted an older second. */
  private bucketAt(atMs: number): Bucket {
    const second = Math.floor(atMs / msPerSecond);
    const bucket = this.buckets[this.slotOf(second)];
    if (bucket === undefined) throw new Error("a slot is always inside the ring");
    if (bucket.second !== second) {
      bucket.second = second;
      bucket.transactions = 0;
      bucket.intervalSumMs = 0;
      bucket.intervals = 0;
    }
    return bucket;
  }
}
