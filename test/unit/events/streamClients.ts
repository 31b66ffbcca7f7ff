// What the stream's tests share: a hand-made block source, blocks and the messages they must
// produce, and a real WebSocket client that collects what it receives.
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { streamPath } from "../../../src/events/options.js";
import type { StreamBlock, StreamSource } from "../../../src/events/streamServer.js";

export class FakeLedger implements StreamSource {
  private readonly listeners: ((block: StreamBlock) => void)[] = [];
  onCommitted(listener: (block: StreamBlock) => void): void {
    this.listeners.push(listener);
  }
  commit(block: StreamBlock): void {
    for (const listener of this.listeners) listener(block);
  }
}

const hex = (n: number, salt: string) => (salt + n.toString(16)).padStart(64, "0");

/** A block of `count` transactions; odd ones are TRANSFERs of the even one before them. */
export function blockOf(height: number, count: number): StreamBlock {
  const txs = Array.from({ length: count }, (_, i) => {
    const id = hex(height * 100_000 + i, "f");
    return { id, assetId: i % 2 === 0 ? id : hex(height * 100_000 + i - 1, "f") };
  });
  return { height, txs };
}

/** The messages a block must produce, in Python `json.dumps` spacing (docs/compatibility.md #6). */
export function messagesOf(block: StreamBlock): string[] {
  return block.txs.map((tx) => `{"height": ${block.height}, "asset_id": "${tx.assetId}", "transaction_id": "${tx.id}"}`);
}

export interface Client {
  readonly ws: WebSocket;
  readonly messages: string[];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Resolves once `count` messages have arrived. */
  received(count: number): Promise<void>;
}

export function connect(port: number, path = streamPath, options: { autoPong?: boolean } = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, options);
    const messages: string[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    ws.on("message", (data, isBinary) => {
      assert.equal(isBinary, false, "events are text frames");
      messages.push(data.toString());
      for (const waiter of waiters.filter((w) => messages.length >= w.count)) waiter.resolve();
    });
    const closed = new Promise<{ code: number; reason: string }>((done) => {
      ws.on("close", (code, reason) => done({ code, reason: reason.toString() }));
    });
    ws.once("open", () =>
      resolve({
        ws,
        messages,
        closed,
        received: (count) => (messages.length >= count ? Promise.resolve() : new Promise((r) => waiters.push({ count, resolve: r }))),
      }),
    );
    ws.once("error", reject);
  });
}

/** An upgrade the server refuses: its status and body. */
export function refused(port: number, path: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`);
    ws.on("unexpected-response", (_request, response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, type: String(response.headers["content-type"]), body }));
    });
    ws.on("open", () => reject(new Error(`the upgrade to ${path} was accepted`)));
    ws.on("error", () => undefined);
  });
}
