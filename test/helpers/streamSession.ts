// A stream subscription that takes a number of messages and then drops its connection, as a
// client that goes away at a random point does: the resume tests and bench/streamResume.bench.ts.
import { WebSocket } from "ws";

export interface Session {
  /** Messages taken before the drop (none after it). */
  readonly messages: string[];
  /** Resolves once `wanted` messages came and the connection was dropped. */
  readonly done: Promise<void>;
  /** Drops the connection now (a no-op once dropped). */
  stop(): void;
}

/**
 * Opens `url`, takes `wanted` messages, then drops the connection: cut at once (`terminate`) or
 * closed properly, as `cut` says. A close by the node before that fails the session.
 */
export function session(url: string, wanted: number, cut: boolean): Session {
  const ws = new WebSocket(url);
  const messages: string[] = [];
  let stopped = false;
  let finish!: () => void;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    if (cut) ws.terminate();
    else ws.close();
    finish();
  };
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    ws.on("message", (data) => {
      if (stopped) return;
      messages.push(String(data));
      if (messages.length >= wanted) stop();
    });
    ws.on("close", (code, reason) => {
      if (!stopped) reject(new Error(`closed by the node: ${code} ${String(reason)}`));
    });
    ws.on("error", (error) => {
      if (!stopped) reject(error);
    });
    ws.on("open", () => {
      if (wanted === 0) stop();
    });
  });
  return { messages, done, stop };
}
