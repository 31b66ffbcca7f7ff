// The one way tests wait for something another task, thread or process does: poll a probe until it
// gives a value, within a bound that names what was awaited when it is exceeded.
import { setTimeout as sleep } from "node:timers/promises";

/**
 * How long `waitFor` polls by default before it gives up: a bound for a busy machine (the suite
 * beside a second run), never a measure; a probe that succeeds returns at once.
 */
export const waitForTimeoutMsDefault = 60_000;
/** The pause between two probes by default. */
export const waitForIntervalMsDefault = 20;

export interface WaitForOptions {
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
  /** A probe that throws counts as "not yet" (a client's 404 before a write lands). */
  readonly retryErrors?: boolean;
  /** Gives a reason to stop waiting at once (a child process ended), or null to go on. */
  readonly abortIf?: () => string | null;
}

/**
 * Polls `probe` until it gives a value other than null, undefined or false, and returns it; throws,
 * naming `what`, when `timeoutMs` passes first. A boolean condition returns `true`.
 */
export async function waitFor<T>(what: string, probe: () => Probed<T> | Promise<Probed<T>>, options: WaitForOptions = {}): Promise<T> {
  const { timeoutMs = waitForTimeoutMsDefault, intervalMs = waitForIntervalMsDefault } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt(probe, options.retryErrors === true);
    if (value !== null && value !== undefined && value !== false) return value;
    const aborted = options.abortIf?.() ?? null;
    if (aborted !== null) throw new Error(`${aborted} before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** What a probe gives: a value, or one of the "not yet" values. */
type Probed<T> = T | null | undefined | false;

async function attempt<T>(probe: () => T | Promise<T>, retryErrors: boolean): Promise<T | null> {
  if (!retryErrors) return probe();
  try {
    return await probe();
  } catch {
    return null;
  }
}

/**
 * Waits until the code under test has done all it will do by itself: `state` (a count, or a
 * few joined in a string) reads the same before and after `turns` calls of `turn`, one after
 * the other, each an exchange that needs the code's event loop to go round (a request answered
 * by the server under test, in this process). Code that would go on (the bug a test looks for)
 * changes `state` in those rounds, however slow the machine, where a fixed sleep could end
 * before it had. Returns the settled state.
 */
export async function waitForStill<T>(
  what: string,
  state: () => T,
  turn: () => Promise<unknown>,
  options: WaitForOptions & { readonly turns?: number } = {},
): Promise<T> {
  const turns = options.turns ?? 2;
  return waitFor(
    `${what} to hold still`,
    async () => {
      const before = state();
      for (let i = 0; i < turns; i++) {
        await turn();
        await new Promise((resolve) => setImmediate(resolve));
      }
      return state() === before ? { value: before } : null;
    },
    { intervalMs: 0, ...options },
  ).then((settled) => settled.value);
}
