// The events folder owns the WebSocket event stream of committed transactions (spec: Events;
// docs/compatibility.md #6): one text message per transaction, in block order, sent once its block
// is durable, written as BigchainDB wrote it with Python's `json.dumps`:
//   {"height": 1, "asset_id": "<id>", "transaction_id": "<id>"}
// It runs on its own port (default 9985), on the path `streamPath`. There is no replay: a
// subscriber receives the blocks committed after it connects (docs/bigchaindb-behaviour.md §1.8).
//
// Beside it, on `blockStreamPath`, Planetmint's stream of committed blocks (docs/compatibility.md
// #26): one message per block, empty blocks included, as Planetmint's `json.dumps` wrote it:
//   {"height": 1, "hash": "<app hash>", "transaction_ids": ["<id>", ...]}
// Both share the subscriber cap, the send queue cap and the pings.
//
// Unlike BigchainDB, which awaited each client in turn, a slow subscriber costs nobody else:
// sends never wait, a block's events are framed once for all subscribers, each subscriber's
// queue is capped (`sendQueueBytesMax`) and one over the cap is closed with 1008, and the
// number of subscribers is capped (`subscribersMax`, 503 beyond).
import { Buffer } from "node:buffer";
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import { WebSocket, WebSocketServer } from "ws";
import { systemClock, type Clock, type TimerHandle } from "../clock/clock.js";
import { LedgerError } from "../errors/ledgerError.js";
import { answerClientError } from "../httpWire/clientErrors.js";
import { answerWithError } from "../httpWire/errorAnswer.js";
import { requestHeadBytesMax } from "../httpWire/limits.js";
import { encodeTextFrames } from "./encodeTextFrames.js";
import { blockStreamPath, streamOptionsDefault, streamPath, type StreamOptions } from "./options.js";

/** What the stream needs of a committed block; `LedgerApp`'s `CommittedBlock` is one. */
export interface StreamBlock {
  readonly height: number;
  /**
   * The app hash after the block (the block stream's `hash`). `LedgerApp` always gives it;
   * a source without it (a test's) has its blocks sent with an empty hash.
   */
  readonly appHash?: string;
  readonly txs: readonly { readonly id: string; readonly assetId: string }[];
}

/** The source of committed blocks: `LedgerApp`, which calls listeners once a block is durable. */
export interface StreamSource {
  onCommitted(listener: (block: StreamBlock) => void): void;
}

export interface StreamDeps {
  readonly ledger: StreamSource;
  readonly logger?: Logger;
  /** The pings and the grace at close run on it; Node's timers by default. */
  readonly clock?: Clock;
}

/** WebSocket close codes (RFC 6455 §7.4.1). */
const closePolicyViolation = 1008;
const closeGoingAway = 1001;
const shuttingDown = "The node is shutting down";

/** Which stream a subscriber chose, by its path. */
type StreamKind = "transactions" | "blocks";

interface Subscriber {
  readonly ws: WebSocket;
  readonly kind: StreamKind;
  /** The upgraded socket under `ws`: a block's frames are written to it in one write. */
  readonly socket: Duplex;
  /** Answered the last ping. */
  alive: boolean;
  /** Closed for falling behind; no more events are queued for it. */
  dropped: boolean;
}

export class StreamServer {
  private readonly subscribers = new Set<Subscriber>();
  /** Upgrades accepted by the count but not yet open, so a burst cannot pass the limit. */
  private upgrading = 0;
  private dropped = 0;
  private closed = false;
  private pingTimer: TimerHandle | null = null;
  private readonly wss: WebSocketServer;
  /** The port bound (the one asked for, or the one picked for port 0). */
  readonly port: number;

  private constructor(
    private readonly options: StreamOptions,
    private readonly server: Server,
    private readonly logger: Logger | undefined,
    private readonly clock: Clock,
  ) {
    this.port = (server.address() as AddressInfo).port;
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      // Events are ~190 bytes of hex: compressing them would cost CPU per subscriber for little.
      perMessageDeflate: false,
      maxPayload: options.clientMessageBytesMax,
    });
    server.on("request", (request: IncomingMessage, response: ServerResponse) => {
      this.answerPlainHttp(request, response);
    });
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(request, socket, head);
    });
    // Requests that are not HTTP/1.1 and handshakes `ws` refuses get the JSON of every other
    // error (docs/compatibility.md #2) instead of Node's empty answer and `ws`'s plain text.
    server.on("clientError", (error: Error, socket: Duplex) => {
      answerClientError(error, socket, { requestTimeoutMs: server.requestTimeout }, logger);
    });
    this.wss.on("wsClientError", (error: Error, socket: Duplex) => {
      const refusal = handshakeRefusal(error);
      refuseUpgrade(socket, refusal.error, refusal.headers);
    });
    this.schedulePing();
  }

  /** Listens on `options.host` and `options.port` and publishes every block `deps.ledger` commits. */
  static async start(options: Partial<StreamOptions>, deps: StreamDeps): Promise<StreamServer> {
    const resolved: StreamOptions = { ...streamOptionsDefault, ...options };
    const server = createServer({ maxHeaderSize: requestHeadBytesMax });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(resolved.port, resolved.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const stream = new StreamServer(resolved, server, deps.logger, deps.clock ?? systemClock);
    deps.ledger.onCommitted((block) => stream.publish(block));
    return stream;
  }

  /** Open subscriptions, including those closing for falling behind. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /** Subscribers closed for falling behind since the start. */
  get droppedCount(): number {
    return this.dropped;
  }

  /**
   * Called by the ledger inside its commit, after the block is durable: it must never throw
   * into the ledger and never wait. The block's events are framed once, and the same bytes are
   * queued on every subscriber's socket in one write.
   */
  publish(block: StreamBlock): void {
    if (this.closed || this.subscribers.size === 0) return;
    try {
      let txFrames: Buffer | null | undefined;
      let blockFrame: Buffer | undefined;
      for (const subscriber of this.subscribers) {
        if (subscriber.kind === "blocks") {
          blockFrame ??= encodeTextFrames([Buffer.from(blockMessage(block), "utf8")]);
          this.write(subscriber, blockFrame);
          continue;
        }
        // A block without transactions sends nothing on the transaction stream.
        if (txFrames === undefined) {
          const messages = block.txs.map((tx) => Buffer.from(eventMessage(block.height, tx), "utf8"));
          txFrames = messages.length === 0 ? null : encodeTextFrames(messages);
        }
        if (txFrames !== null) this.write(subscriber, txFrames);
      }
    } catch (error) {
      this.logger?.error({ err: error, height: block.height }, "event stream failed to publish a block");
    }
  }

  /** Stops listening, says goodbye to every subscriber, and cuts those still open after the grace. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pingTimer !== null) this.clock.clearTimeout(this.pingTimer);
    this.pingTimer = null;
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const subscriber of this.subscribers) subscriber.ws.close(closeGoingAway, shuttingDown);
    await this.drained(this.options.closeGraceMs);
    for (const subscriber of this.subscribers) subscriber.ws.terminate();
    this.server.closeAllConnections();
    await stopped;
    this.wss.close();
  }

  /**
   * Queues a block's frames on one subscriber, unless what it has not taken yet is over the cap
   * (then it is dropped). A subscriber so holds at most `sendQueueBytesMax` plus one block.
   *
   * The frames go to the socket under `ws` directly. That is sound because, with compression
   * off and no Blob sends, `ws` also writes each of its own frames (pings, pongs, close) to the
   * socket whole and synchronously, so frames never interleave; and `ws.bufferedAmount` counts
   * what the socket has not flushed, these writes included.
   */
  private write(subscriber: Subscriber, frames: Buffer): void {
    if (subscriber.dropped || subscriber.ws.readyState !== WebSocket.OPEN) return;
    // What the socket has not taken yet; the kernel's buffers are full before this grows.
    if (subscriber.ws.bufferedAmount > this.options.sendQueueBytesMax) {
      subscriber.dropped = true;
      this.dropped++;
      const max = this.options.sendQueueBytesMax;
      const reason = `Send queue over ${max} bytes: events are not read fast enough`;
      this.logger?.info({ bufferedBytes: subscriber.ws.bufferedAmount }, "event stream subscriber dropped");
      subscriber.ws.close(closePolicyViolation, reason);
      return;
    }
    subscriber.socket.write(frames);
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", (error) => this.logger?.debug({ err: error }, "event stream socket error"));
    const kind = streamKindOf(request.url);
    if (kind === null) return refuseUpgrade(socket, new LedgerError("NotFound", "Not found"));
    if (this.closed) return refuseUpgrade(socket, new LedgerError("ShuttingDown", shuttingDown));
    const max = this.options.subscribersMax;
    if (this.subscribers.size + this.upgrading >= max) {
      const message = `The event stream has its maximum of ${max} subscribers; try again later`;
      return refuseUpgrade(socket, new LedgerError("TooManySubscribers", message));
    }
    this.upgrading++;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      this.upgrading--;
    };
    // `ws` answers a malformed handshake itself and never calls back: the socket's end settles it.
    socket.once("close", settle);
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      settle();
      this.accept(ws, socket, kind);
    });
  }

  private accept(ws: WebSocket, socket: Duplex, kind: StreamKind): void {
    if (this.closed) {
      ws.close(closeGoingAway, shuttingDown);
      return;
    }
    const subscriber: Subscriber = { ws, kind, socket, alive: true, dropped: false };
    this.subscribers.add(subscriber);
    this.logger?.debug({ subscribers: this.subscribers.size }, "event stream subscriber joined");
    ws.on("pong", () => {
      subscriber.alive = true;
    });
    ws.on("error", (error) => this.logger?.debug({ err: error }, "event stream subscriber error"));
    ws.on("close", () => {
      this.subscribers.delete(subscriber);
      this.logger?.debug({ subscribers: this.subscribers.size }, "event stream subscriber left");
    });
  }

  /** Pings every `pingIntervalMs`, in the background: the pings alone keep no process alive. */
  private schedulePing(): void {
    this.pingTimer = this.clock.setTimeout(() => {
      this.ping();
      if (!this.closed) this.schedulePing();
    }, this.options.pingIntervalMs, true);
  }

  private ping(): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.dropped) continue;
      if (!subscriber.alive) {
        subscriber.ws.terminate();
        continue;
      }
      subscriber.alive = false;
      subscriber.ws.ping();
    }
  }

  /** A plain HTTP request (no upgrade): the stream is only served over WebSocket. */
  private answerPlainHttp(request: IncomingMessage, response: ServerResponse): void {
    const error = streamKindOf(request.url) !== null
      ? new LedgerError("BadRequest", "This path serves a WebSocket stream: connect with a WebSocket upgrade")
      : new LedgerError("NotFound", "Not found");
    answerWithError(response, error);
  }

  /** Resolves when the last subscriber has gone, or after `timeoutMs`. */
  private drained(timeoutMs: number): Promise<void> {
    if (this.subscribers.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const clock = this.clock;
      const deadline = clock.setTimeout(finish, timeoutMs);
      const finishIfEmpty = (): void => {
        if (this.subscribers.size === 0) finish();
      };
      for (const subscriber of this.subscribers) subscriber.ws.once("close", finishIfEmpty);
      function finish(): void {
        clock.clearTimeout(deadline);
        resolve();
      }
    });
  }
}

/**
 * One event, with the key order and spacing of BigchainDB's `json.dumps` (docs/compatibility.md
 * #6).
 */
export function eventMessage(height: number, tx: { readonly id: string; readonly assetId: string }): string {
  const assetId = JSON.stringify(tx.assetId);
  return `{"height": ${height}, "asset_id": ${assetId}, "transaction_id": ${JSON.stringify(tx.id)}}`;
}

/** One block of the block stream, with the key order and spacing of Planetmint's `json.dumps`. */
export function blockMessage(block: StreamBlock): string {
  const ids = block.txs.map((tx) => JSON.stringify(tx.id)).join(", ");
  return `{"height": ${block.height}, "hash": ${JSON.stringify(block.appHash ?? "")}, "transaction_ids": [${ids}]}`;
}

/**
 * The stream a request path names, or null. A path is matched exactly, with an optional
 * trailing slash (docs/compatibility.md #4).
 */
function streamKindOf(url: string | undefined): StreamKind | null {
  const path = (url ?? "/").split("?", 1)[0];
  if (path === streamPath || path === `${streamPath}/`) return "transactions";
  if (path === blockStreamPath || path === `${blockStreamPath}/`) return "blocks";
  return null;
}

/** Refuses an upgrade with a JSON answer of the catalog's status, then closes the socket. */
function refuseUpgrade(socket: Duplex, error: LedgerError, headers: readonly string[] = []): void {
  const body = JSON.stringify({ message: error.httpMessage, status: error.status });
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}\r\n` +
      "Connection: close\r\nContent-Type: application/json\r\n" +
      headers.map((header) => `${header}\r\n`).join("") +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * The answer to a handshake `ws` refused, by its message (`ws` gives no code): a method other
 * than GET is 405 with `Allow`, an unsupported version 400 naming the ones served (RFC 6455
 * §4.4), any other missing or malformed WebSocket header 400.
 */
function handshakeRefusal(error: Error): { error: LedgerError; headers: string[] } {
  const message = `WebSocket handshake refused: ${error.message}`;
  if (error.message === "Invalid HTTP method") {
    return { error: new LedgerError("MethodNotAllowed", message), headers: ["Allow: GET"] };
  }
  const headers = /Sec-WebSocket-Version/.test(error.message) ? ["Sec-WebSocket-Version: 13, 8"] : [];
  return { error: new LedgerError("BadRequest", message), headers };
}
