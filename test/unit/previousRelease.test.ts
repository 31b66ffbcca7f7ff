// The rolling-upgrade test's previous release runs on this checkout's npm packages when they
// serve it (test/e2e/cometbft/previousRelease.ts `servesPrevious`), else on its own `npm ci`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { servesPrevious } from "../e2e/cometbft/previousRelease.js";

const lock = (root: Record<string, unknown>, packages: Record<string, Record<string, unknown>>) => ({ packages: { "": root, ...packages } });
const installed = { "node_modules/fastify": { version: "5.12.8" }, "node_modules/find-my-way": { version: "9.10.1" } };
const previous = lock({ version: "0.1.0", dependencies: { fastify: "^5.12.8" } }, installed);

describe("the previous release's packages", () => {
  it("are this checkout's when it installs the same and declares what the previous one declared", () => {
    assert.ok(servesPrevious(previous, lock({ version: "0.2.0", engines: { node: ">=20.16" }, dependencies: { fastify: "^5.12.8" } }, installed)));
    // A package this release declares, already installed for another: nothing changes for the previous one.
    assert.ok(servesPrevious(previous, lock({ dependencies: { fastify: "^5.12.8", "find-my-way": "^9.10.1" } }, installed)));
  });

  it("are its own otherwise: another version installed, a dependency dropped or its range changed", () => {
    assert.ok(!servesPrevious(previous, lock({ dependencies: { fastify: "^5.12.8" } }, { ...installed, "node_modules/find-my-way": { version: "9.10.2" } })));
    assert.ok(!servesPrevious(previous, lock({ dependencies: { fastify: "^5.12.8" } }, { ...installed, "node_modules/extra": { version: "1.0.0" } })));
    assert.ok(!servesPrevious(previous, lock({ dependencies: {} }, installed)));
    assert.ok(!servesPrevious(previous, lock({ dependencies: { fastify: "^5.13.0" } }, installed)));
    assert.ok(!servesPrevious(previous, lock({ devDependencies: { fastify: "^5.12.8" } }, installed)));
  });
});
