// Options of the HTTP API, with their defaults: the one source of them (STYLE rule 10). The
// config loader merges file, env and flags over `httpOptionsDefault`; `buildHttpApp` merges
// whatever it is given over the same object.

export interface HttpOptions {
  /** Where the caller listens (BigchainDB `server.bind` default `localhost:9984`). */
  readonly host: string;
  readonly port: number;
  /**
   * Largest request body read, in bytes; a larger one is answered 413 before it is parsed.
   * 1 MiB: a transaction with 1,000 inputs and 1,000 outputs (txLimits) is about 700 KB, the
   * drivers' real transactions are 1 to 10 KB, and it equals readJson's own `bytesMax`, so the
   * two limits cannot disagree. (BigchainDB had none; its reference nginx allowed 15 KB.)
   */
  readonly bodyBytesMax: number;
  /**
   * Largest `limit` an asset or metadata search may ask for; a larger one is a 400 that names
   * this maximum. `limit` 0 or absent asks for all matches (the spec's default,
   * docs/compatibility.md #12), which the store bounds by its own means; nothing is cut without a
   * word.
   */
  readonly searchLimitMax: number;
  /**
   * Most items of a list answered without paging (`limit`, `cursor`); past it, 400 ListTooLong
   * (docs/http-api.md "Paging"). 0: no cap, every list streamed whole, as BigchainDB answers.
   */
  readonly listMax: number;
  /**
   * Time allowed to receive a whole request, headers and body (Node's `requestTimeout`), so a
   * slow sender cannot hold a connection open. It does not limit how long the answer takes, so
   * a `mode=commit` POST may wait longer. BigchainDB's Gunicorn workers timed out at 30 s.
   */
  readonly requestTimeoutMs: number;
  /**
   * Most long reads (the output list of a key, the transactions of an asset, a block, a text
   * search) one HTTP process answers at once; one more is answered 503 with `Retry-After`.
   * Each is sent in batches with backpressure (streamJson.ts), so this bounds the memory they
   * hold (a batch and a socket buffer each), not their length.
   */
  readonly expensiveReadsMax: number;
  /**
   * Requests of one connection handled at once. HTTP/1.1 pipelining lets a client send many
   * requests before reading any answer; past this many, the next ones wait unread (and the
   * socket is not read) until an answer is sent, so one connection can make the node build at
   * most this many answers ahead of what its client reads. Browsers and the drivers do not
   * pipeline; the few clients that do get their answers, only not all built at once.
   */
  readonly pipelinedRequestsMax: number;
  /** The explorer page at /explorer/ (routes/explorer.ts; `server.explorer`). */
  readonly explorer: boolean;
  /** `docs` of the root document. */
  readonly docsUrl: string;
  /** `docs` of the API document (`/api/v1/`), and `api.v1.docs` of the root one. */
  readonly apiDocsUrl: string;
  /** The advertised event-stream URL (`streams` in both discovery documents). */
  readonly streamsUrl: string;
  /** `software` of the root document. */
  readonly software: string;
  /** `version` of the root document: the caller passes package.json's version. */
  readonly version: string;
}

export const httpOptionsDefault: HttpOptions = Object.freeze({
  host: "localhost",
  port: 9984,
  bodyBytesMax: 1024 * 1024,
  searchLimitMax: 1_000,
  listMax: 0,
  requestTimeoutMs: 30_000,
  expensiveReadsMax: 64,
  pipelinedRequestsMax: 4,
  explorer: true,
  // ledgerd serves BigchainDB 2.2.2's HTTP API, so its documentation is the reference.
  docsUrl: "https://docs.bigchaindb.com/projects/server/en/v2.2.2/",
  apiDocsUrl: "https://docs.bigchaindb.com/projects/server/en/v2.2.2/http-client-server-api.html",
  streamsUrl: "ws://localhost:9985/api/v1/streams/valid_transactions",
  software: "ledgerd",
  version: "0.0.0",
});
