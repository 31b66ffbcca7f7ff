// Long answers (a JSON list of stored items) go out through here: read from the store a batch
// per turn (longReads.ts), written to the socket as they come, the next batch read only once
// the socket has taken the last one (Node stream backpressure). The bytes are exactly those of
// the whole answer built at once: `open`, the items joined by ", ", `close` (BigchainDB's
// json.dumps separators). An answer that is short is sent whole, with its Content-Length, as
// before; a longer one is sent chunked, and memory holds a batch of it at a time.
import { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import type { Clock, TimerHandle } from "../clock/clock.js";
import type { Batches } from "../store/store.js";
import type { LongReads } from "./longReads.js";
import { sendJson } from "./reply.js";

/** Up to this many characters an answer is gathered and sent whole; past it, it is streamed. */
const wholeAnswerCharsMax = 64 * 1024;

/**
 * A streamed answer whose client takes nothing for this long is dropped (its connection
 * closed), so a client that stops reading cannot hold a long read's place for ever.
 */
export const streamStallMs = 30_000;

export interface JsonListFrame {
  readonly open: string;
  readonly close: string;
}

const listFrame: JsonListFrame = { open: "[", close: "]" };

/**
 * Answers 200 with the items of `batches`, each written by `write`, inside `frame`. Errors
 * before the first byte (a bad search, the long-read cap) are thrown for the error handler.
 */
export async function sendJsonList<T>(
  reply: FastifyReply,
  reads: LongReads,
  batches: Batches<T>,
  write: (item: T) => string,
  frame: JsonListFrame = listFrame,
): Promise<FastifyReply> {
  let end: () => void;
  try {
    end = reads.admit(reply);
  } catch (error) {
    await batches.return?.();
    throw error;
  }
  const parts: string[] = [];
  let chars = 0;
  try {
    for (;;) {
      const next = await reads.turn(() => batches.next());
      if (next.done === true) {
        end();
        return sendJson(reply, 200, `${frame.open}${parts.join(", ")}${frame.close}`);
      }
      for (const item of next.value) {
        const text = write(item);
        parts.push(text);
        chars += text.length;
      }
      if (chars > wholeAnswerCharsMax) break;
    }
  } catch (error) {
    end();
    await batches.return?.();
    throw error;
  }
  if (reply.request.method === "HEAD") {
    // The headers of the streamed answer, without reading the rest of it for nothing.
    end();
    await batches.return?.();
    return reply.code(200).header("content-type", "application/json").send(Readable.from([]));
  }
  const stream = streamRest(reads, batches, write, frame, end);
  stream.push(Buffer.from(`${frame.open}${parts.join(", ")}`, "utf8"));
  return reply.code(200).header("content-type", "application/json").send(stream);
}

/** The rest of the answer, a batch per `read` (called when the socket wants more). */
function streamRest<T>(
  reads: LongReads,
  batches: Batches<T>,
  write: (item: T) => string,
  frame: JsonListFrame,
  end: () => void,
): Readable {
  let reading = false;
  const stall = watchStall(reads.clock, () => {
    stream.destroy(new Error(`the client took nothing for ${streamStallMs} ms`));
  });
  const stream: Readable = new Readable({
    read() {
      stall.touch();
      if (reading) return;
      reading = true;
      pull();
    },
    destroy(error, callback) {
      stall.stop();
      end();
      batches.return?.().catch(() => {});
      callback(error);
    },
  });
  const pull = (): void => {
    reads.turn(() => batches.next()).then(
      (next) => {
        if (stream.destroyed) return;
        if (next.done === true) {
          stall.stop();
          end();
          stream.push(Buffer.from(frame.close, "utf8"));
          stream.push(null);
          return;
        }
        // A batch may be empty (every row filtered out): read the next one at once.
        if (next.value.length === 0) return pull();
        // The first chunk holds at least one item, so every later one starts with ", ".
        const text = next.value.map(write).join(", ");
        reading = false;
        stream.push(Buffer.from(`, ${text}`, "utf8"));
      },
      (error: unknown) => stream.destroy(error instanceof Error ? error : new Error(String(error))),
    );
  };
  return stream;
}

/** Watches a stream's reads: `onStall` once nothing was read for `streamStallMs`. */
interface StallWatch {
  /** The client took something: the stall counts from now. */
  touch(): void;
  stop(): void;
}

/**
 * One timer per stall spell rather than one per read: `touch` only notes the time, and the
 * timer, when it fires early, waits out the rest. In the background: a stalled answer alone
 * does not keep the process alive.
 */
function watchStall(clock: Clock, onStall: () => void): StallWatch {
  let touched = clock.now();
  let timer: TimerHandle | null = null;
  const arm = (ms: number): void => {
    timer = clock.setTimeout(check, ms, true);
  };
  const check = (): void => {
    const idleMs = clock.now() - touched;
    if (idleMs >= streamStallMs) onStall();
    else arm(streamStallMs - idleMs);
  };
  arm(streamStallMs);
  return {
    touch: () => (touched = clock.now()),
    stop: () => {
      if (timer !== null) clock.clearTimeout(timer);
    },
  };
}
