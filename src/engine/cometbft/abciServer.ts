// The ABCI socket server: CometBFT v0.38 opens four connections to it (consensus, mempool, query,
// snapshot; `proxy/multi_app_conn.go`) and sends length-prefixed protobuf Requests on each
// (abciCodec.ts). This file owns the transport only; what each request means is the handler's
// (abciApp.ts).
//
// Order: CometBFT's socket client matches responses to requests by position, so every connection
// answers in the order it was asked, whatever order the async handlers finish in. Within that,
// CheckTx, Echo and Query may run at the same time (a mempool connection pipelines thousands of
// CheckTx); any other request waits for every earlier request of its connection and holds back
// the later ones, so FinalizeBlock and Commit never overlap on the consensus connection.
//
// Writes are buffered and sent when a Flush is answered or the buffer grows past a limit, as Go's
// `socket_server.go` does with its bufio.Writer (CometBFT's client sends a Flush after the
// requests it waits for).
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import type { Request, Response } from "cosmjs-types/tendermint/abci/types";
import { AbciFrameError, FrameReader, decodeRequest, encodeResponse, methodOf } from "./abciCodec.js";

/** TCP (`proxy_app = "tcp://host:port"`) or a unix socket (`proxy_app = "unix://path"`). */
export type AbciListen = { readonly host: string; readonly port: number } | { readonly path: string };

export interface AbciServerOptions {
  readonly listen: AbciListen;
  /** A request longer than this closes its connection (a block's txs plus overhead fit). */
  readonly messageBytesMax: number;
  /** Requests of one connection started and not yet answered; past this, reading pauses. */
  readonly requestsInFlightMax: number;
  /** Answers buffered before they are written without waiting for a Flush. */
  readonly writeBufferBytesMax: number;
}

/** One connection, as the handler sees it: to tell the four apart and learn when one closes. */
export interface AbciConnection {
  readonly id: number;
}

export interface AbciHandler {
  /**
   * Answers one request (never a Flush: the server answers those). Throwing means a broken
   * invariant or a failed disk: the server answers with an exception, which stops CometBFT, and
   * calls `onFatal`.
   */
  handle(request: Request, connection: AbciConnection): Promise<Response>;
  /**
   * The connection is gone and every request it sent has been handled (a FinalizeBlock still
   * running when CometBFT died has answered into the void); CometBFT reconnects all four only
   * when it restarts.
   */
  closed?(connection: AbciConnection): void;
}

/**
 * Resolves after the answers completed in this turn of the event loop have been written: the
 * server writes them at the end of the turn (`flushSoon`, a setImmediate), and this waits for
 * the setImmediate after that one. For work that must not delay an answer (the block's store
 * write after Commit, abciApp.ts). Only timing depends on it, never an outcome.
 */
export function afterAnswersWritten(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

export interface AbciServerDeps {
  readonly handler: AbciHandler;
  /** Called once when a handler throws; the node should stop (the handler's state is unknown). */
  readonly onFatal: (error: unknown) => void;
  /** Connection events, for the node's log. */
  readonly onEvent?: (event: AbciServerEvent) => void;
}

export type AbciServerEvent =
  | { readonly type: "connected"; readonly connection: number }
  | { readonly type: "disconnected"; readonly connection: number; readonly error: Error | null };

/**
 * Drops a queue's consumed front (`queue[0..head)`) once it is all of the queue or a good part
 * of a long one, so a connection that never drains does not grow; returns the new head.
 */
function compact<T>(queue: T[], head: number): number {
  if (head === queue.length) {
    queue.length = 0;
    return 0;
  }
  if (head < 1_024 || head * 2 < queue.length) return head;
  queue.splice(0, head);
  return 0;
}

const flushResponse: Response = Object.freeze({ flush: {} });

/**
 * Encoded answers of frozen Response objects, which a handler may return for an answer that never
 * changes (an accepted CheckTx): encoded once instead of per request.
 */
const frozenFrames = new WeakMap<Response, Buffer>();

function frameOf(response: Response): Buffer {
  if (!Object.isFrozen(response)) return encodeResponse(response);
  let frame = frozenFrames.get(response);
  if (frame === undefined) {
    frame = encodeResponse(response);
    frozenFrames.set(response, frame);
  }
  return frame;
}

/** Requests that may run while earlier ones of their connection still run. */
const concurrentMethods: ReadonlySet<string> = new Set(["checkTx", "echo", "query"]);

export class AbciServer {
  private readonly connections = new Set<Connection>();
  private nextId = 0;
  private fatal = false;

  private constructor(
    private readonly server: Server,
    private readonly options: AbciServerOptions,
    private readonly deps: AbciServerDeps,
  ) {}

  static async start(options: AbciServerOptions, deps: AbciServerDeps): Promise<AbciServer> {
    const server = createServer({ noDelay: true });
    const abci = new AbciServer(server, options, deps);
    server.on("connection", (socket) => abci.accept(socket));
    // A unix socket left by a process that was killed would make listen fail with EADDRINUSE.
    if ("path" in options.listen) rmSync(options.listen.path, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      const done = (): void => {
        server.off("error", reject);
        resolve();
      };
      if ("path" in options.listen) server.listen(options.listen.path, done);
      else server.listen(options.listen.port, options.listen.host, done);
    });
    return abci;
  }

  /** The bound address: the port the OS picked for port 0, or the socket path. */
  get address(): AbciListen {
    if ("path" in this.options.listen) return this.options.listen;
    const bound = this.server.address() as AddressInfo;
    return { host: bound.address, port: bound.port };
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Stop listening and close every connection (CometBFT then stops: its app is gone), then wait
   * for the requests in progress, so that the store is not closed under a Commit.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    const connections = [...this.connections];
    for (const connection of connections) connection.destroy(null);
    await Promise.all([closed, ...connections.map((c) => c.idle())]);
  }

  private accept(socket: Socket): void {
    const connection = new Connection(this.nextId++, socket, this.options, {
      handler: this.deps.handler,
      onFatal: (error) => this.failOnce(error),
    });
    this.connections.add(connection);
    this.deps.onEvent?.({ type: "connected", connection: connection.id });
    socket.on("close", () => {
      this.connections.delete(connection);
      this.deps.onEvent?.({ type: "disconnected", connection: connection.id, error: connection.error });
      void connection.idle().then(() => this.deps.handler.closed?.(connection));
    });
  }

  private failOnce(error: unknown): void {
    if (this.fatal) return;
    this.fatal = true;
    this.deps.onFatal(error);
  }
}

interface ConnectionDeps {
  readonly handler: AbciHandler;
  readonly onFatal: (error: unknown) => void;
}

/** One request's place in its connection's answer order. */
interface Slot {
  readonly request: Request;
  readonly ordered: boolean;
  /** Set when the handler is done: its answer, or what it threw. */
  outcome: { readonly response: Response } | { readonly error: unknown } | null;
}

class Connection implements AbciConnection {
  private readonly reader: FrameReader;
  /** Every request not yet answered, in the order it came; the head is answered first. */
  private readonly answers: Slot[] = [];
  private answered = 0;
  /** Requests not yet started, in order: held back by an ordered request before them. */
  private readonly held: Slot[] = [];
  private heldStart = 0;
  /** Started and not yet done. */
  private running = 0;
  private orderedRunning = false;
  private idleWaiters: (() => void)[] = [];
  private inFlight = 0;
  private out: Buffer[] = [];
  private outBytes = 0;
  private flushScheduled = false;
  private closed = false;
  error: Error | null = null;

  constructor(
    readonly id: number,
    private readonly socket: Socket,
    private readonly options: AbciServerOptions,
    private readonly deps: ConnectionDeps,
  ) {
    this.reader = new FrameReader(options.messageBytesMax);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) => (this.error = error));
    socket.on("close", () => (this.closed = true));
  }

  /** Settles when every request received so far has been handled. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  destroy(error: Error | null): void {
    if (error !== null) this.error = error;
    this.closed = true;
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let messages: Uint8Array[];
    try {
      messages = this.reader.push(chunk);
    } catch (error) {
      // Bad framing from whoever connected: refuse this connection, the node carries on.
      assert(error instanceof AbciFrameError, error as Error);
      this.refuse(error.message);
      return;
    }
    for (const message of messages) {
      let request: Request;
      try {
        request = decodeRequest(message);
      } catch (error) {
        this.refuse(`request does not decode: ${(error as Error).message}`);
        return;
      }
      this.dispatch(request);
    }
  }

  private dispatch(request: Request): void {
    const method = methodOf(request);
    if (method === null) {
      this.refuse("unknown request");
      return;
    }
    this.inFlight++;
    if (this.inFlight >= this.options.requestsInFlightMax) this.socket.pause();
    // A Flush is answered in order after every earlier answer, which is all a Flush promises.
    const slot: Slot = { request, ordered: !concurrentMethods.has(method), outcome: method === "flush" ? { response: flushResponse } : null };
    this.answers.push(slot);
    if (slot.outcome === null) {
      this.held.push(slot);
      this.startHeld();
    } else {
      this.writeDone();
    }
  }

  /**
   * Starts held requests from the front: a concurrent one when no ordered one runs, an ordered
   * one when nothing runs (every earlier request is handled); later ones wait for it.
   */
  private startHeld(): void {
    while (this.heldStart < this.held.length && !this.orderedRunning) {
      const slot = this.held[this.heldStart]!;
      if (slot.ordered && this.running > 0) break;
      this.heldStart++;
      this.start(slot);
    }
    this.heldStart = compact(this.held, this.heldStart);
  }

  private start(slot: Slot): void {
    this.running++;
    if (slot.ordered) this.orderedRunning = true;
    let answer: Promise<Response>;
    try {
      answer = this.deps.handler.handle(slot.request, this);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (response) => this.done(slot, { response }),
      (error: unknown) => this.done(slot, { error }),
    );
  }

  private done(slot: Slot, outcome: NonNullable<Slot["outcome"]>): void {
    slot.outcome = outcome;
    this.running--;
    if (slot.ordered) this.orderedRunning = false;
    this.writeDone();
    this.startHeld();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Writes the answers that are done, from the head, stopping at the first still running. */
  private writeDone(): void {
    while (this.answered < this.answers.length) {
      const outcome = this.answers[this.answered]!.outcome;
      if (outcome === null) break;
      this.answered++;
      if ("response" in outcome) this.send(outcome.response);
      else this.fail(outcome.error);
    }
    this.answered = compact(this.answers, this.answered);
  }

  private isIdle(): boolean {
    return this.running === 0 && this.heldStart === this.held.length;
  }

  private send(response: Response): void {
    this.inFlight--;
    if (this.inFlight < this.options.requestsInFlightMax && this.socket.isPaused()) this.socket.resume();
    if (this.closed) return;
    const frame = frameOf(response);
    this.out.push(frame);
    this.outBytes += frame.length;
    if (this.outBytes >= this.options.writeBufferBytesMax) this.flush();
    else if (response.flush !== undefined) this.flushSoon();
  }

  /**
   * Writes at the end of this turn of the event loop rather than at once, so that the answers
   * to several Flushes that complete together go out in one write: on loopback each write wakes
   * CometBFT and costs a system call.
   */
  private flushSoon(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.out.length === 0 || this.closed) return;
    this.socket.write(this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out, this.outBytes));
    this.out = [];
    this.outBytes = 0;
  }

  /** A handler threw: answer with the exception (CometBFT stops on it), then stop the node. */
  private fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.refuse(message);
    this.deps.onFatal(error);
  }

  /** Answer with an exception after what is already buffered, then close (Go's server does). */
  private refuse(message: string): void {
    if (this.closed) return;
    const frame = encodeResponse({ exception: { error: message } });
    this.out.push(frame);
    this.outBytes += frame.length;
    this.flush();
    this.closed = true;
    this.error ??= new Error(message);
    this.socket.end();
  }
}
