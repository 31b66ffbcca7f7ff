// readLines (src/tools/exportLines.ts): an export's lines read as bytes with a cap on each line,
// so one endless line is refused after the cap's bytes, never buffered whole (issue 36 #10).
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { describe, it } from "node:test";
import { readLines } from "../../../src/tools/exportLines.js";

async function* chunksOf(...parts: string[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.from(part, "utf8");
}

async function all(input: AsyncIterable<Buffer>, lineBytesMax: number): Promise<[number, string][]> {
  const out: [number, string][] = [];
  for await (const line of readLines(input, lineBytesMax)) out.push([line.number, line.text]);
  return out;
}

describe("readLines", () => {
  it("numbers the lines across chunks, with or without a last newline, \\r\\n as one break", async () => {
    assert.deepEqual(await all(chunksOf("ab", "c\nd\r\n\n", "é", "f"), 100), [[1, "abc"], [2, "d"], [3, ""], [4, "éf"]]);
    assert.deepEqual(await all(chunksOf("x\n"), 100), [[1, "x"]]);
    assert.deepEqual(await all(chunksOf(), 100), []);
  });

  it("takes a line of exactly the cap and refuses one byte more, naming the line", async () => {
    assert.deepEqual(await all(chunksOf("1234\n", "12", "34"), 4), [[1, "1234"], [2, "1234"]]);
    await assert.rejects(all(chunksOf("1234\n", "123", "45\n"), 4), { message: "line 2 is longer than 4 bytes, the most an export's line may be" });
    await assert.rejects(all(chunksOf("ok\n12345"), 4), /^Error: line 2 is longer than 4 bytes/);
  });

  it("refuses an endless line after reading only about the cap's bytes", async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    let read = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      yield Buffer.from("header\n");
      for (;;) {
        read += chunk.length;
        yield chunk;
      }
    }
    const cap = 1024 * 1024;
    await assert.rejects(all(endless(), cap), /^Error: line 2 is longer than 1048576 bytes/);
    assert.ok(read <= cap + chunk.length, `read ${read} bytes`);
  });

  it("refuses a line that is not UTF-8, naming it", async () => {
    async function* bytes(): AsyncGenerator<Buffer> {
      yield Buffer.from("ok\n");
      yield Buffer.from([0x7b, 0xff, 0x7d, 0x0a]);
    }
    await assert.rejects(all(bytes(), 100), { message: "line 2 is not UTF-8 text" });
  });
});
