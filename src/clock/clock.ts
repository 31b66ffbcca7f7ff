// The time a service reads and the timers it sets, handed to it in its deps (docs/STYLE.md rule 9)
// so a test can move time by hand instead of sleeping: `systemClock` in the node, a manual clock
// in tests (test/helpers/manualClock.ts). It imports nothing of ours, so every layer may use it.

/** What `setTimeout` gives back; only its own clock can clear it. */
export type TimerHandle = { readonly __timer: unique symbol };

export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /**
   * Calls `fn` once, `ms` from now. A `background` timer alone does not keep the process alive
   * (a keepalive ping), where an ordinary one does (a block waiting to be cut).
   */
  setTimeout(fn: () => void, ms: number, background?: boolean): TimerHandle;
  /** Cancels a timer not yet fired; a fired or cleared one is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** Node's own timers and `Date.now()`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms, background = false) => {
    const timer = setTimeout(fn, ms);
    if (background) timer.unref();
    return timer as unknown as TimerHandle;
  },
  clearTimeout: (handle) => clearTimeout(handle as unknown as NodeJS.Timeout),
};

/** Resolves `ms` from now on `clock`. */
export function sleepOn(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}
