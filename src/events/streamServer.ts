// The events folder owns the WebSocket event stream of committed transactions (spec: Events;
// docs/compatibility.md #6): one text message per transaction, in block order, sent once its block
// is durable, written as BigchainDB wrote it with Python's `json.dumps`:
//   {"height": 1, "asset_id": "<id>", "transaction_id": "<id>"}
// It runs on its own port (default 9985), on the path `streamPath`. A plain subscriber receives
// the blocks committed after it connects, as BigchainDB's did (docs/bigchaindb-behaviour.md §1.8).
//
// Beside it, on `blockStreamPath`, Planetmint's stream of committed blocks (docs/compatibility.md
// #26): one message per block, empty blocks included, as Planetmint's `json.dumps` wrote it:
//   {"height": 1, "hash": "<app hash>", "transaction_ids": ["<id>", ...]}
// Both share the subscriber cap, the send queue cap and the pings.
//
// A subscriber that reconnects says where it stopped (`?from_height=H`, and on the transaction
// stream `&after=<id>`, resumeAsk.ts) and gets every block since from the store, then the live
// ones, with no gap and no duplicate (docs/http-api.md "Resuming a stream"). Each resumed
// subscriber has a cursor, the next block it needs. While it replays, the live blocks pass it
// by; its replay reads pages from the store until the store has no block at its cursor and the
// cursor is past every block published (`committed`): a published block is durable, so a read
// begun after its publication sees it. That check and the switch to live happen in one turn of
// the event loop, with no publication between them. (A block missing at the cursor that was
// published before the read began is not stored: the subscriber is closed with 4410; one
// published while the read ran is read again.) From then on a live block below the
// cursor (replayed already: the store may run a block ahead of the publications) is skipped,
// the one at the cursor is sent, and one beyond it (never expected) sends the subscriber back
// to the store.
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
import type { StreamBlockRecord } from "../store/store.js";
import { encodeTextFrames } from "./encodeTextFrames.js";
import type { StreamKind } from "./limits.js";
import { blockMessage, eventMessage } from "./messages.js";
import { blockStreamPath, streamOptionsDefault, streamPath, type StreamOptions } from "./options.js";
import { notStored, replayPage, replayPageLimits, resumeStart, type CloseReason, type Cursor, type ResumeStart, type StreamReads } from "./resume.js";
import { parseResumeAsk, type ResumeAsk } from "./resumeAsk.js";

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
  /**
   * The committed blocks, which resumed subscribers replay: the store `ledger` commits to.
   * Without it (a test's hand-made source) nothing is replayed and the query is not read.
   */
  readonly store?: StreamReads;
  readonly logger?: Logger;
  /** The pings and the grace at close run on it; Node's timers by default. */
  readonly clock?: Clock;
}

/** WebSocket close codes (RFC 6455 §7.4.1). */
const closePolicyViolation = 1008;
const closeGoingAway = 1001;
const closeInternalError = 1011;
const shuttingDown = "The node is shutting down";

interface Subscriber {
  readonly ws: WebSocket;
  readonly kind: StreamKind;
  /** The upgraded socket under `ws`: a block's frames are written to it in one write. */
  readonly socket: Duplex;
  /** Answered the last ping. */
  alive: boolean;
  /** Closed for falling behind; no more events are queued for it. */
  dropped: boolean;
  /** A resumed subscriber's place (resume.ts); null for a plain one, which takes every block published. */
  cursor: Cursor | null;
  /** Reading what it missed from the store: the live blocks pass it by meanwhile. */
  replaying: boolean;
}

export class StreamServer {
  private readonly subscribers = new Set<Subscriber>();
  /** Upgrades accepted by the count but not yet open, so a burst cannot pass the limit. */
  private upgrading = 0;
  private dropped = 0;
  private closed = false;
  /** The last height published, or committed before the stream started: the store holds it. */
  private committed = 0;
  /** Resumed subscribers reading what they missed from the store, and those of them waiting for their socket. */
  private replayingNow = 0;
  private replaysWaitingNow = 0;
  private pingTimer: TimerHandle | null = null;
  private readonly wss: WebSocketServer;
  /** The port bound (the one asked for, or the one picked for port 0). */
  readonly port: number;

  private constructor(
    private readonly options: StreamOptions,
    private readonly server: Server,
    private readonly logger: Logger | undefined,
    private readonly clock: Clock,
    private readonly reads: StreamReads | undefined,
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
    const stream = new StreamServer(resolved, server, deps.logger, deps.clock ?? systemClock, deps.store);
    deps.ledger.onCommitted((block) => stream.publish(block));
    // Blocks committed before the listener was added are in the store: read after adding it.
    const state = await deps.store?.getChainState();
    stream.committed = Math.max(stream.committed, state?.height ?? 0);
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

  /** Resumed subscribers reading what they missed from the store, not yet on the live blocks. */
  get replayingCount(): number {
    return this.replayingNow;
  }

  /** Resumed subscribers whose replay waits for their socket to take its last page. */
  get replaysWaiting(): number {
    return this.replaysWaitingNow;
  }

  /**
   * Called by the ledger inside its commit, after the block is durable: it must never throw
   * into the ledger and never wait. The block's events are framed once, and the same bytes are
   * queued on every subscriber's socket in one write.
   */
  publish(block: StreamBlock): void {
    if (this.closed) return;
    this.committed = Math.max(this.committed, block.height);
    if (this.subscribers.size === 0) return;
    try {
      const frames = new BlockFrames(block);
      for (const subscriber of this.subscribers) {
        const from = this.liveIndex(subscriber, block.height);
        if (from === null) continue;
        const bytes = subscriber.kind === "blocks" ? frames.block() : frames.txs(from);
        // A block without transactions sends nothing on the transaction stream.
        if (bytes !== null) this.write(subscriber, bytes);
      }
    } catch (error) {
      this.logger?.error({ err: error, height: block.height }, "event stream failed to publish a block");
    }
  }

  /**
   * Whether a live block goes to this subscriber: null if not, else the index of its first
   * transaction to send (0: all). A resumed subscriber takes only the block at its cursor.
   */
  private liveIndex(subscriber: Subscriber, height: number): number | null {
    const cursor = subscriber.cursor;
    if (cursor === null) return 0;
    if (subscriber.replaying || height < cursor.height) return null;
    if (height > cursor.height) {
      // A block it has not had went by: the store has it.
      void this.replay(subscriber);
      return null;
    }
    subscriber.cursor = { height: height + 1, index: 0 };
    return cursor.index;
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
    let ask: ResumeAsk | null;
    try {
      // Without a store to replay from, a stream takes no parameters.
      ask = this.reads === undefined ? parseResumeAsk(kind, noQuery(request.url)) : parseResumeAsk(kind, request.url);
    } catch (error) {
      return refuseUpgrade(socket, error as LedgerError);
    }
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
    const upgradeWith = (start: ResumeStart | null): void => {
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        settle();
        this.accept(ws, socket, kind, start);
      });
    };
    // A plain subscription upgrades at once, as it did before streams resumed.
    if (ask === null) return upgradeWith(null);
    resumeStart(ask, this.reads!, this.committed).then(upgradeWith, (error: unknown) => {
      settle();
      refuseUpgrade(socket, this.refusalOf(error));
    });
  }

  /** A resume the node could not look up: a bad `after` is 400, the store's failures their own. */
  private refusalOf(error: unknown): LedgerError {
    if (error instanceof LedgerError) return error;
    this.logger?.error({ err: error }, "event stream could not resume a subscriber");
    return new LedgerError("Internal", "The stream could not look up where to resume");
  }

  private accept(ws: WebSocket, socket: Duplex, kind: StreamKind, start: ResumeStart | null): void {
    if (this.closed) {
      ws.close(closeGoingAway, shuttingDown);
      return;
    }
    if (start?.close !== undefined) {
      ws.close(start.close.code, start.close.reason);
      return;
    }
    const cursor = start?.cursor ?? null;
    const subscriber: Subscriber = { ws, kind, socket, alive: true, dropped: false, cursor, replaying: false };
    this.subscribers.add(subscriber);
    this.logger?.debug({ subscribers: this.subscribers.size, from: cursor?.height }, "event stream subscriber joined");
    ws.on("pong", () => {
      subscriber.alive = true;
    });
    ws.on("error", (error) => this.logger?.debug({ err: error }, "event stream subscriber error"));
    ws.on("close", () => {
      this.subscribers.delete(subscriber);
      this.logger?.debug({ subscribers: this.subscribers.size }, "event stream subscriber left");
    });
    if (cursor !== null) void this.replay(subscriber, start?.page);
  }

  /**
   * Sends a resumed subscriber the blocks from its cursor on, a page of the store at a time,
   * each page once its socket has taken the last (bounded memory: limits.ts), then hands it to
   * the live blocks (the header says why nothing is lost or sent twice). `first`: the page at the
   * cursor, read already (resumeStart). Never throws.
   */
  private async replay(subscriber: Subscriber, first: readonly StreamBlockRecord[] = []): Promise<void> {
    let read = first;
    subscriber.replaying = true;
    this.replayingNow++;
    try {
      while (await this.taken(subscriber)) {
        const cursor = subscriber.cursor!;
        const publishedBefore = this.committed;
        const blocks = read.length > 0 ? read : await this.reads!.getStreamBlocks(cursor.height, replayPageLimits);
        read = [];
        if (!isOpen(subscriber)) return;
        const page = replayPage(subscriber.kind, blocks, cursor);
        if (page.taken === 0) {
          // Past every block published, and none stored: live from here, in this same turn.
          if (cursor.height > this.committed) return void (subscriber.replaying = false);
          // Published before the read began, so durable, yet not there: the store lacks it.
          if (cursor.height <= publishedBefore) return this.closeSubscriber(subscriber, notStored(cursor.height, null));
          // Published while the read ran: the next read sees it.
          continue;
        }
        subscriber.cursor = page.cursor;
        if (page.messages.length > 0) subscriber.socket.write(encodeTextFrames(page.messages));
      }
    } catch (error) {
      this.logger?.warn({ err: error, height: subscriber.cursor?.height }, "event stream could not replay blocks");
      this.closeSubscriber(subscriber, { code: closeInternalError, reason: "The node could not read its blocks; resume later" });
    } finally {
      this.replayingNow--;
    }
  }

  /** Resolves once the subscriber's socket has taken what was written: true, or false once it is gone. */
  private async taken(subscriber: Subscriber): Promise<boolean> {
    if (!isOpen(subscriber) || this.closed) return false;
    if (!subscriber.socket.writableNeedDrain) return true;
    this.replaysWaitingNow++;
    try {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          subscriber.socket.off("drain", done);
          subscriber.socket.off("close", done);
          resolve();
        };
        subscriber.socket.on("drain", done);
        subscriber.socket.on("close", done);
      });
    } finally {
      this.replaysWaitingNow--;
    }
    return isOpen(subscriber) && !this.closed;
  }

  private closeSubscriber(subscriber: Subscriber, close: CloseReason): void {
    this.logger?.info({ code: close.code, reason: close.reason }, "event stream subscriber closed");
    subscriber.ws.close(close.code, close.reason);
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

/** Open: not closing or closed (for falling behind, or by a close reason). */
function isOpen(subscriber: Subscriber): boolean {
  return subscriber.ws.readyState === WebSocket.OPEN;
}

/** A request's URL without its query: what a stream without replay reads of it. */
function noQuery(url: string | undefined): string {
  return (url ?? "/").split("?", 1)[0]!;
}

/**
 * A block's frames, made once for every subscriber that takes them: the block stream's message,
 * and the transaction stream's (null: no transaction); from a later index, made for the one.
 */
class BlockFrames {
  private blockFrame: Buffer | undefined;
  private txFrames: Buffer | null | undefined;

  constructor(private readonly source: StreamBlock) {}

  block(): Buffer {
    return (this.blockFrame ??= encodeTextFrames([Buffer.from(blockMessage(this.source), "utf8")]));
  }

  txs(from: number): Buffer | null {
    if (from > 0) return this.encodeTxs(from);
    if (this.txFrames === undefined) this.txFrames = this.encodeTxs(0);
    return this.txFrames;
  }

  private encodeTxs(from: number): Buffer | null {
    const txs = this.source.txs.slice(from);
    if (txs.length === 0) return null;
    return encodeTextFrames(txs.map((tx) => Buffer.from(eventMessage(this.source.height, tx), "utf8")));
  }
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
