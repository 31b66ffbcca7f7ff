// A request's logger is built on its first line (requestLogger.ts): until then nothing is built,
// and its lines are the lines a pino child would write, with the request's id.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { pino } from "pino";
import { lazyChildLogger } from "../../../src/http/requestLogger.js";

function collectingLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString("utf8").split("\n")) if (text !== "") lines.push(JSON.parse(text) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level }, sink);
  let children = 0;
  // Children inherit this property from their parent (pino children are made with Object.create),
  // so it must call pino's own with the child it was called on.
  const child = logger.child;
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof logger.child;
  return { logger, lines, children: () => children };
}

describe("a request's logger", () => {
  it("builds no child until a line is written", () => {
    const { logger, children } = collectingLogger("info");
    const lazy = lazyChildLogger(logger, { reqId: "r-1" }, {});
    assert.equal(lazy.level, "info");
    assert.equal(children(), 0);
  });

  it("writes what a child writes: the request's id on every line, the parent's level", async () => {
    const { logger, lines, children } = collectingLogger("info");
    const lazy = lazyChildLogger(logger, { reqId: "r-2" }, {});
    lazy.debug("below the level");
    lazy.warn({ code: "X" }, "first");
    lazy.error("second %s", "line");
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(children(), 1, "one child, built once");
    assert.deepEqual(
      lines.map((line) => [line["reqId"], line["level"], line["msg"], line["code"]]),
      [
        ["r-2", 40, "first", "X"],
        ["r-2", 50, "second line", undefined],
      ],
    );
  });

  it("keeps a level given for the route, and a child of it carries both bindings", async () => {
    const { logger, lines } = collectingLogger("info");
    const lazy = lazyChildLogger(logger, { reqId: "r-3" }, { level: "debug" });
    assert.equal(lazy.level, "debug");
    lazy.child({ part: "body" }).debug("deeper");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(lines.map((line) => [line["reqId"], line["part"], line["msg"]]), [["r-3", "body", "deeper"]]);
  });
});
