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
