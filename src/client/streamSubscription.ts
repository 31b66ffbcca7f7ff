// The client's event streams (docs/http-api.md "Resuming a stream"): an async iterator over a
// stream's messages that reconnects after a drop and resumes where its reader stopped, so that
// the reader sees every committed transaction (or block) once, in commit order. Browser-safe:
// the caller gives the WebSocket constructor (the browser's, or the `ws` package's in Node) and,
// for tests, the pause between attempts.

/** A message of `valid_transactions`. */
export interface TransactionEvent {
  readonly height: number;
  readonly asset_id: string;
  readonly transaction_id: string;
}

/** A message of `valid_blocks`. */
export interface BlockEvent {
  readonly height: number;
  readonly hash: string;
  readonly transaction_ids: readonly string[];
}

/** What the client needs of a WebSocket; the browser's and `ws`'s both have it. */
export interface WebSocketLike {
  addEventListener(type: "open", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { readonly data: unknown }) => void): void;
  addEventListener(type: "close", listener: (event: { readonly code: number; readonly reason: string }) => void): void;
  close(): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** Where a stream starts: block `height`, after transaction `after` of it (transactions only). */
export interface StreamPlace {
  readonly height: number;
  readonly after?: string;
}

export interface StreamOptions {
  readonly WebSocket: WebSocketConstructor;
  /** Where to start; without it, the blocks committed from the first connection on. */
  readonly from?: StreamPlace;
  /** Connections in a row that end without a message before the iterator gives up (default 10). */
  readonly attemptsMax?: number;
  /** The pause before the `attempt`th reconnection in a row (default 0.5 s, doubling, 30 s at most). */
  readonly pause?: (attempt: number) => Promise<void>;
  /** Told when a connection opens (true) and when one ends (false): a page shows it. */
  readonly onConnection?: (open: boolean) => void;
  /** Aborted: the connection is closed and the iterator ends. */
  readonly signal?: AbortSignal;
}

/** The stream ended for good: the node cannot serve the place (4410), or it kept failing. */
export class StreamEnded extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly reason: string,
  ) {
    super(message);
    this.name = "StreamEnded";
  }
}

/** The node does not hold the block asked for (docs/http-api.md): resuming elsewhere is the caller's. */
const closeNotStored = 4410;

/** Every committed transaction from `options.from` (or from now) on, across reconnections. */
export function streamTransactions(streamsUrl: string, options: StreamOptions): AsyncGenerator<TransactionEvent> {
  const url = `${streamsUrl.replace(/\/valid_transactions\/?$/, "")}/valid_transactions`;
  return resuming<TransactionEvent>(url, options, (event) => ({ height: event.height, after: event.transaction_id }));
}

/** Every committed block from `options.from` (or from now) on, across reconnections. */
export function streamBlocks(streamsUrl: string, options: StreamOptions): AsyncGenerator<BlockEvent> {
  const url = `${streamsUrl.replace(/\/valid_transactions\/?$/, "")}/valid_blocks`;
  return resuming<BlockEvent>(url, options, (event) => ({ height: event.height + 1 }));
}

async function* resuming<E extends { readonly height: number }>(
  url: string,
  options: StreamOptions,
  placeAfter: (event: E) => StreamPlace,
): AsyncGenerator<E> {
  let place = options.from ?? null;
  let failures = 0;
  const { signal, onConnection } = options;
  // A function, read afresh: the signal is aborted from outside, between awaits.
  const aborted = (): boolean => signal?.aborted === true;
  while (!aborted()) {
    const connection = connect(options.WebSocket, place === null ? url : `${url}?${queryOf(place)}`, onConnection);
    const stop = (): void => connection.close();
    signal?.addEventListener("abort", stop);
    try {
      // Aborted: what is queued is dropped, the iterator ends at once.
      for (let message = await connection.next(); message !== null && !aborted(); message = await connection.next()) {
        const event = JSON.parse(message) as E;
        place = placeAfter(event);
        failures = 0;
        yield event;
      }
    } finally {
      signal?.removeEventListener("abort", stop);
      connection.close();
    }
    if (aborted()) return;
    const { code, reason } = connection.closedWith!;
    if (code === closeNotStored) throw new StreamEnded(`The node cannot resume the stream: ${reason}`, code, reason);
    if (++failures >= (options.attemptsMax ?? 10)) throw new StreamEnded(`The stream failed ${failures} times in a row: ${code} ${reason}`, code, reason);
    await (options.pause ?? backOff)(failures);
  }
}

function queryOf(place: StreamPlace): string {
  return place.after === undefined ? `from_height=${place.height}` : `from_height=${place.height}&after=${place.after}`;
}

function backOff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 500 * 2 ** (attempt - 1))));
}

/** One connection's messages, in order, then null once it closed (`closedWith` says how). */
function connect(WebSocket: WebSocketConstructor, url: string, onConnection?: (open: boolean) => void) {
  const socket = new WebSocket(url);
  socket.addEventListener("open", () => onConnection?.(true));
  const queue: string[] = [];
  let wake: (() => void) | null = null;
  const state = { closedWith: null as { code: number; reason: string } | null };
  const notify = (): void => {
    wake?.();
    wake = null;
  };
  socket.addEventListener("message", (event) => {
    queue.push(typeof event.data === "string" ? event.data : String(event.data));
    notify();
  });
  socket.addEventListener("close", (event) => {
    state.closedWith = { code: event.code, reason: event.reason };
    onConnection?.(false);
    notify();
  });
  return {
    get closedWith() {
      return state.closedWith;
    },
    async next(): Promise<string | null> {
      while (queue.length === 0 && state.closedWith === null) await new Promise<void>((resolve) => (wake = resolve));
      return queue.shift() ?? null;
    },
    close: () => socket.close(),
  };
}
