// While the store cannot be reached (PostgreSQL stopped or restarting: a LedgerError
// StoreUnavailable), an engine holds its block and tries again, instead of stopping the node:
// nothing is lost (a block is written whole or not at all), the API answers 503 meanwhile, and
// the node resumes by itself when the database returns. Any other failure still stops the node.
import { sleepOn, systemClock, type Clock } from "../clock/clock.js";
import { LedgerError } from "../errors/ledgerError.js";

/** How long an engine waits before it tries a block again while the store is unreachable. */
export const storeRetryIntervalMs = 500;

export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof LedgerError && error.code === "StoreUnavailable";
}

/** Runs `work` until it succeeds or fails otherwise than StoreUnavailable, or `stopped()`. */
export async function untilStoreReachable<T>(work: () => Promise<T>, stopped: () => boolean = () => false, clock: Clock = systemClock): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!isStoreUnavailable(error) || stopped()) throw error;
      await sleepOn(clock, storeRetryIntervalMs);
    }
  }
}
