// A hand-written ABCI socket client for tests, in the way CometBFT's own socket client works:
// requests are written as they come, a Flush is sent after them, and answers are matched to
// requests by position.
import { connect, type Socket } from "node:net";
import type { Request, Response } from "cosmjs-types/tendermint/abci/types";
import { FrameReader, decodeResponse, encodeRequest } from "../../../src/engine/cometbft/abciCodec.js";

export class AbciTestClient {
  private readonly reader = new FrameReader(256 * 1024 * 1024);
  private readonly waiting: { resolve: (r: Response) => void; reject: (e: Error) => void }[] = [];
  private readonly early: Response[] = [];
  closedWith: Error | null = null;
  ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      for (const message of this.reader.push(chunk)) {
        const response = decodeResponse(message);
        const waiter = this.waiting.shift();
        if (waiter === undefined) this.early.push(response);
        else waiter.resolve(response);
      }
    });
    const fail = (error: Error): void => {
      this.closedWith = error;
      for (const waiter of this.waiting.splice(0)) waiter.reject(error);
    };
    socket.on("error", fail);
    socket.on("close", () => {
      this.ended = true;
      fail(new Error("connection closed"));
    });
  }

  static open(target: { host: string; port: number } | { path: string }): Promise<AbciTestClient> {
    return new Promise((resolve, reject) => {
      const socket = "path" in target ? connect(target.path) : connect(target.port, target.host);
      socket.once("connect", () => resolve(new AbciTestClient(socket)));
      socket.once("error", reject);
    });
  }

  /** Writes the requests (and no Flush); the answers come in the same order. */
  send(...requests: Request[]): Promise<Response>[] {
    const answers = requests.map(
      () => new Promise<Response>((resolve, reject) => this.waiting.push({ resolve, reject })),
    );
    // An answer a test does not wait for may fail with the connection: not an unhandled rejection.
    for (const answer of answers) answer.catch(() => undefined);
    this.socket.write(Buffer.concat(requests.map((r) => encodeRequest(r))));
    return answers;
  }

  /** The requests, then a Flush; resolves with the answers to the requests (not the Flush). */
  async call(...requests: Request[]): Promise<Response[]> {
    const answers = this.send(...requests, { flush: {} });
    const all = await Promise.all(answers);
    const flush = all.pop();
    if (flush?.flush === undefined) throw new Error("the last answer is not the Flush");
    return all;
  }

  writeRaw(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  close(): void {
    this.socket.destroy();
  }
}
