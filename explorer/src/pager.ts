// What the explorer makes of the client's calls: a fetch with a time limit, an answer, never a
// throw (api.ts), and a pager reading the client's paged lists a page at a time for "Load more".
// No browser-only type here, so that the tests read it in Node.
import { LedgerdError, type FetchLike } from "../../src/client/client.js";
import { requestTimeoutMs } from "./limits.js";

/** The fetch the client calls, given up after `requestTimeoutMs`: a stalled node must not hang a page. */
export const timedFetch: FetchLike = (url, init) =>
  fetch(url, { ...init, headers: { accept: "application/json", ...init?.headers }, signal: AbortSignal.timeout(requestTimeoutMs) });

export type Answer<T> =
  | { readonly ok: true; readonly value: T }
  /** `status` 0: no answer (network, timeout, not JSON). */
  | { readonly ok: false; readonly status: number; readonly message: string };

/** Why a call failed, as an answer: the node's status and message, or status 0. */
export function failureOf(error: unknown): Answer<never> {
  if (error instanceof LedgerdError) return { ok: false, status: error.status, message: error.message };
  if (error instanceof SyntaxError) return { ok: false, status: 0, message: "the answer is not JSON" };
  return { ok: false, status: 0, message: error instanceof Error ? error.message : String(error) };
}

/** Reads a list a page at a time from an async iterator (the client's), knowing whether more follow. */
export class Pager<T> {
  private readonly items: AsyncIterator<unknown>;
  private readonly check: (item: unknown) => item is T;
  /** The item after the last one taken: read ahead, so that `more` is known. */
  private ahead: Promise<IteratorResult<unknown>>;

  constructor(items: AsyncIterable<unknown>, check: (item: unknown) => item is T) {
    this.items = items[Symbol.asyncIterator]();
    this.check = check;
    this.ahead = this.items.next();
  }

  /**
   * The next `count` items that pass the check, and whether more follow. A failure before the
   * first item is the answer; one after it waits for the next call.
   */
  async take(count: number): Promise<Answer<{ readonly items: readonly T[]; readonly more: boolean }>> {
    const items: T[] = [];
    let read = 0;
    for (;;) {
      let result: IteratorResult<unknown>;
      try {
        result = await this.ahead;
      } catch (error) {
        return read === 0 ? failureOf(error) : { ok: true, value: { items, more: true } };
      }
      if (result.done === true) return { ok: true, value: { items, more: false } };
      if (read === count) return { ok: true, value: { items, more: true } };
      read += 1;
      if (this.check(result.value)) items.push(result.value);
      this.ahead = this.items.next();
    }
  }
}
