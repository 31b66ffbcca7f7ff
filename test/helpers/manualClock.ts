// A clock that moves only when a test says so: `advance(ms)` fires the timers that fall due, in
// the order of their time (then of their setting), so a test shows that something did NOT happen
// by advancing past its moment and asserting, instead of sleeping and hoping.
import type { Clock, TimerHandle } from "../../src/clock/clock.js";

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

export class ManualClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const seq = this.seq++;
    this.timers.set(seq, { at: this.time + Math.max(0, ms), seq, fn });
    return seq as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as unknown as number);
  }

  /** How many timers are set and not yet fired. */
  get pending(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms`, firing each timer due on the way at its own moment; after each,
   * lets the promises it started settle, so what a timer sets off happens before the next one.
   */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const next = [...this.timers.values()].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.timers.delete(next.seq);
      this.time = next.at;
      next.fn();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

/** Lets queued promise callbacks and I/O callbacks already due run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
