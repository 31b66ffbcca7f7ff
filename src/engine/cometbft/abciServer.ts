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
  /** The connection is gone; CometBFT reconnects all four only when it restarts. */
  closed?(connection: AbciConnection): void;
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
      this.deps.handler.closed?.(connection);
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

const settled = (): void => undefined;

class Connection implements AbciConnection {
  private readonly reader: FrameReader;
  /** Settles when every request dispatched so far has been handled. */
  private allHandled: Promise<unknown> = Promise.resolve();
  /** Settles when the last ordered (non-concurrent) request has been handled. */
  private lastOrdered: Promise<unknown> = Promise.resolve();
  /** Settles when every answer dispatched so far is in the write buffer. */
  private written: Promise<void> = Promise.resolve();
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
    return this.allHandled.then(settled);
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
    let answer: Promise<Response>;
    if (method === "flush") {
      // In order after every earlier answer, which is all a Flush promises.
      answer = Promise.resolve({ flush: {} });
    } else if (concurrentMethods.has(method)) {
      answer = this.lastOrdered.then(() => this.deps.handler.handle(request, this));
    } else {
      answer = this.allHandled.then(() => this.deps.handler.handle(request, this));
      this.lastOrdered = answer.then(settled, settled);
    }
    this.allHandled = Promise.all([this.allHandled, answer.then(settled, settled)]);
    this.written = this.written.then(() =>
      answer.then(
        (response) => this.send(response),
        (error: unknown) => this.fail(error),
      ),
    );
  }

  private send(response: Response): void {
    this.inFlight--;
    if (this.inFlight < this.options.requestsInFlightMax && this.socket.isPaused()) this.socket.resume();
    if (this.closed) return;
    const frame = encodeResponse(response);
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
