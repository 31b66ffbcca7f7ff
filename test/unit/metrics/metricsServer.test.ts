// The metrics port's answers over a real socket (issue 36 #15): the scrape, and every error in
// the API's JSON shape: another method on /metrics a 405 with Allow, any other path a 404, a
// failed gathering a 500.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { methodNotAllowedMessage, unknownPathMessage } from "../../../src/httpWire/messages.js";
import { MetricsServer } from "../../../src/metrics/metricsServer.js";

const text = { contentType: "text/plain; version=0.0.4; charset=utf-8", body: "ledgerd_up 1\n" };

describe("the metrics server", () => {
  let failing = false;
  const failures: unknown[] = [];
  let server: MetricsServer;
  let base: string;
  before(async () => {
    server = await MetricsServer.start(
      { host: "127.0.0.1", port: 0 },
      {
        render: async () => {
          if (failing) throw new Error("gathering failed");
          return text;
        },
        onError: (error) => failures.push(error),
      },
    );
    base = `http://127.0.0.1:${server.address.port}`;
  });
  after(() => server.close());

  async function expectError(response: Response, status: number, message: string): Promise<void> {
    assert.equal(response.status, status);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal(await response.text(), JSON.stringify({ message, status }));
  }

  test("GET and HEAD /metrics: the text", async () => {
    const response = await fetch(`${base}/metrics?x=1`);
    assert.equal(response.status, 200);
    assert.equal(await response.text(), text.body);
    assert.equal((await fetch(`${base}/metrics`, { method: "HEAD" })).status, 200);
  });

  test("another method on /metrics: 405 with Allow, as JSON", async () => {
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"]) {
      const response = await fetch(`${base}/metrics`, { method, body: method === "POST" ? "x" : null });
      assert.equal(response.headers.get("allow"), "GET, HEAD", method);
      await expectError(response, 405, methodNotAllowedMessage);
    }
  });

  test("any other path: 404 as JSON, whatever the method", async () => {
    for (const [method, path] of [["GET", "/"], ["GET", "/metricsx"], ["POST", "/nothing"], ["GET", "/metrics/x"]] as const) {
      await expectError(await fetch(`${base}${path}`, { method }), 404, unknownPathMessage);
    }
  });

  test("a failed gathering: 500 as JSON, the error told", async () => {
    failing = true;
    try {
      await expectError(await fetch(`${base}/metrics`), 500, "Gathering the metrics failed");
      assert.equal(failures.length, 1);
    } finally {
      failing = false;
    }
  });
});
