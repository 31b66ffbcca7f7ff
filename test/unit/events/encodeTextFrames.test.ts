// The stream's own frame encoder, read back by `ws`'s frame parser (a client's Receiver, which
// refuses masked frames and checks UTF-8): every length class of RFC 6455 §5.2.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import type { Writable } from "node:stream";
import { test } from "node:test";
import { encodeTextFrames } from "../../../src/events/encodeTextFrames.js";

// `ws` exports its Receiver at runtime, without types.
type ReceiverClass = new (options: { isServer: boolean; maxPayload: number }) => Writable;
const { Receiver } = createRequire(import.meta.url)("ws") as { Receiver: ReceiverClass };

function decode(bytes: Buffer): Promise<{ text: string; binary: boolean }[]> {
  return new Promise((resolve, reject) => {
    const receiver = new Receiver({ isServer: false, maxPayload: 0 });
    const out: { text: string; binary: boolean }[] = [];
    receiver.on("message", (data: Buffer, binary: boolean) => out.push({ text: data.toString("utf8"), binary }));
    receiver.on("error", reject);
    receiver.write(bytes, () => resolve(out));
  });
}

test("frames of every length class decode back to the same text messages, in order", async () => {
  const texts = [0, 1, 125, 126, 127, 65_535, 65_536, 70_001].map((length, i) => `${"é€x".repeat(length).slice(0, length)}😀${i}`);
  const frames = encodeTextFrames(texts.map((text) => Buffer.from(text, "utf8")));
  assert.deepEqual(await decode(frames), texts.map((text) => ({ text, binary: false })));
});

test("headers: FIN and text opcode, no mask, 7-, 16- and 64-bit lengths", () => {
  const frame = (length: number) => encodeTextFrames([Buffer.alloc(length, 0x61)]);
  assert.deepEqual([...frame(125).subarray(0, 2)], [0x81, 125]);
  assert.deepEqual([...frame(126).subarray(0, 4)], [0x81, 126, 0, 126]);
  assert.deepEqual([...frame(65_536).subarray(0, 10)], [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
  assert.equal(frame(190).length, 4 + 190);
  assert.equal(encodeTextFrames([]).length, 0);
});
