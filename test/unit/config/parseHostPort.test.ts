import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHostPort } from "../../../src/config/parseHostPort.js";

describe("parseHostPort", () => {
  it("reads host names, IPv4 and bracketed IPv6", () => {
    assert.deepEqual(parseHostPort("localhost:9984"), { host: "localhost", port: 9984 });
    assert.deepEqual(parseHostPort("0.0.0.0:0"), { host: "0.0.0.0", port: 0 });
    assert.deepEqual(parseHostPort("[::1]:65535"), { host: "::1", port: 65535 });
    assert.deepEqual(parseHostPort("[fe80::1]:80"), { host: "fe80::1", port: 80 });
    assert.deepEqual(parseHostPort("a-b.example.com:1"), { host: "a-b.example.com", port: 1 });
  });

  it("refuses anything else", () => {
    for (const bad of ["", ":", "localhost", ":80", "localhost:", "localhost:65536", "localhost:00", "localhost:+1",
      "localhost: 1", " localhost:1", "::1:80", "[::1]", "[]:80", "[1.2.3.4]:80", "-a:1", "a-:1", "a_b:1", "a..b:1",
      `${"a".repeat(64)}:1`, "ws://localhost:1"]) {
      assert.equal(parseHostPort(bad), null, bad);
    }
  });
});
