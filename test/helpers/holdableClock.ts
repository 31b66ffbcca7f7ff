// The system's clock, whose timers a test can hold: one that falls due while held fires at
// `release`, in order. For a test that needs the node's state to stay put across several
// requests (a transaction still pending when the next request comes), on a machine slow enough
// that the node's next block could otherwise come first, without moving the rest of the test
// onto a manual clock.
import { systemClock, type Clock, type TimerHandle } from "../../src/clock/clock.js";

export class HoldableClock implements Clock {
  #held = false;
  readonly #due: (() => void)[] = [];

  now(): number {
    return systemClock.now();
  }

  setTimeout(fn: () => void, ms: number, background?: boolean): TimerHandle {
    return systemClock.setTimeout(() => (this.#held ? this.#due.push(fn) : fn()), ms, background);
  }

  /** A timer that fell due while held is not cleared by this: it fires at `release`. */
  clearTimeout(handle: TimerHandle): void {
    systemClock.clearTimeout(handle);
  }

  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
    for (const fn of this.#due.splice(0)) fn();
  }
}
