// Options of the WebSocket event stream, with their defaults: the one source of them
// (STYLE rule 10). The limits bound what the stream can cost the node: subscribers times the
// per-subscriber queue (plus one block each) is the most memory it can hold (256 x 1 MiB).

export interface StreamOptions {
  /** Where the stream listens (BigchainDB `wsserver` default `localhost:9985`); 0 picks a port. */
  readonly host: string;
  readonly port: number;
  /** Open subscriptions at most; an upgrade beyond it is refused with 503. */
  readonly subscribersMax: number;
  /**
   * Bytes queued for one subscriber and not yet taken by its socket (`ws.bufferedAmount`),
   * checked before each block: past it the subscriber is closed with 1008, so a client that
   * cannot keep up is dropped rather than let it hold memory or slow anyone else. A subscriber
   * holds at most this plus one block's events (~190 bytes each; 380 KB for a full block of
   * soloEngine's `txsPerBlockMax` 2,000), beyond what the kernel's socket buffers hold.
   */
  readonly sendQueueBytesMax: number;
  /**
   * A ping goes to every subscriber this often; one that has not answered the previous ping
   * is cut. It also keeps idle connections alive through proxies that drop silent ones.
   */
  readonly pingIntervalMs: number;
  /** Largest frame a subscriber may send; what subscribers send is ignored (BigchainDB did too). */
  readonly clientMessageBytesMax: number;
  /** On close, subscribers get a close frame; those still open after this are cut. */
  readonly closeGraceMs: number;
}

export const streamOptionsDefault: StreamOptions = Object.freeze({
  host: "localhost",
  port: 9985,
  subscribersMax: 256,
  sendQueueBytesMax: 1024 * 1024,
  pingIntervalMs: 30_000,
  clientMessageBytesMax: 4 * 1024,
  closeGraceMs: 1_000,
});

/** The path of the transaction stream (docs/bigchaindb-behaviour.md §1.8). */
export const streamPath = "/api/v1/streams/valid_transactions";

/** The path of the block stream, Planetmint's addition (docs/compatibility.md #26). */
export const blockStreamPath = "/api/v1/streams/valid_blocks";
