// What one connection may have outstanding. Node's HTTP server parses every pipelined request
// it reads and hands each to the app at once, and queues every answer until the client reads
// the ones before: a client that pipelines requests for large answers and never reads them made
// the node build and hold them all (10 connections x 300 GETs of 2.1 MB: 269 MB -> 3.5 GB,
// issue 11). Here a request runs only while its connection has fewer than `requestsMax` running
// and fewer than `connectionUnsentBytesMax` answer bytes the kernel has not taken; the others
// wait, and the socket is not read while one waits or while those bytes are over the limit, so
// TCP pushes back on the client instead of the node's memory growing.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { connectionUnsentBytesMax, connectionWaitingRequestsMax } from "./limits.js";

/** Thrown to a waiting request whose connection closed: a client abort, never answered. */
export class ConnectionClosedError extends Error {
  override readonly name = "ConnectionClosedError";
  /** The code Node gives a request its client aborted, so one test recognises both. */
  readonly code = "ECONNRESET";

  constructor() {
    super("the client closed the connection before the request's turn");
  }
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** The gate of one connection; `gateOf` makes one per socket. */
export class ConnectionGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private readingPaused = false;
  private waitingForDrain = false;

  constructor(
    private readonly socket: Socket,
    private readonly requestsMax: number,
  ) {
    socket.once("close", () => this.abortWaiting());
    // Node resumes the socket on its own (after a 'drain', when a request reads its body);
    // while this gate wants it paused, it is paused again before anything is read.
    socket.on("resume", () => {
      if (this.readingPaused) socket.pause();
    });
  }

  /**
   * Called when a request arrives, with its answer: resolves at once, or when its turn comes
   * (undefined when it may run now, to save a promise), or rejects with ConnectionClosedError
   * when the connection closes first. Its turn ends when its answer closes (sent or aborted).
   */
  enter(response: ServerResponse): Promise<void> | undefined {
    if (this.waiting.length === 0 && this.mayRun()) {
      this.start(response);
      return undefined;
    }
    if (this.waiting.length >= connectionWaitingRequestsMax) {
      this.socket.destroy();
      return Promise.reject(new ConnectionClosedError());
    }
    this.pauseReading();
    if (this.overUnsentBytes()) this.awaitDrain();
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve: () => resolve(this.start(response)), reject });
    });
  }

  private start(response: ServerResponse): void {
    this.running++;
    response.once("close", () => {
      this.running--;
      this.pump();
    });
  }

  private mayRun(): boolean {
    return this.running < this.requestsMax && !this.overUnsentBytes();
  }

  private overUnsentBytes(): boolean {
    return this.socket.writableLength > connectionUnsentBytesMax;
  }

  /** Lets waiting requests run while they may, and reads again once none waits. */
  private pump(): void {
    if (this.socket.destroyed) return;
    while (this.waiting.length > 0 && this.mayRun()) this.waiting.shift()!.resolve();
    if (this.overUnsentBytes()) {
      // Unread answers: no more reading or running until the client takes some.
      this.pauseReading();
      this.awaitDrain();
    } else if (this.waiting.length === 0) {
      this.resumeReading();
    }
  }

  private awaitDrain(): void {
    if (this.waitingForDrain) return;
    this.waitingForDrain = true;
    this.socket.once("drain", () => {
      this.waitingForDrain = false;
      this.pump();
    });
  }

  private pauseReading(): void {
    if (this.readingPaused) return;
    this.readingPaused = true;
    this.socket.pause();
  }

  private resumeReading(): void {
    if (!this.readingPaused) return;
    this.readingPaused = false;
    this.socket.resume();
  }

  private abortWaiting(): void {
    const waiting = this.waiting.splice(0);
    for (const waiter of waiting) waiter.reject(new ConnectionClosedError());
  }
}

const gates = new WeakMap<Socket, ConnectionGate>();

/** The gate of the connection `socket`, made on its first request. */
export function gateOf(socket: Socket, requestsMax: number): ConnectionGate {
  let gate = gates.get(socket);
  if (gate === undefined) {
    gate = new ConnectionGate(socket, requestsMax);
    gates.set(socket, gate);
  }
  return gate;
}
