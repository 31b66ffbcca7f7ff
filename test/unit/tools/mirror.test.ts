// `ledgerd mirror` (src/tools/mirror.ts): the log as static files laid out as its URLs, from a
// node's API over a real socket and from the local ledger; incremental (full tiles kept, partial
// tiles replaced, the checkpoint last), and a source that went back is refused.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { createNodeKey } from "../../../src/node/nodeKey.js";
import { ledgerLogSource, mirrorLog, nodeLogSource } from "../../../src/tools/mirror.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { commit, startHttpStack, type HttpStack } from "../http/helpers.js";

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}

describe("ledgerd mirror", () => {
  let http: HttpStack;
  let url = "";
  const dirs: string[] = [];
  const alice = keypairOf("mirror-alice");
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-mirror-"));
    dirs.push(dir);
    return dir;
  };
  const addBlocks = async (count: number, from: number) => {
    for (let i = 0; i < count; i++) await commit(http.app, create(alice, 1n, { mirror: from + i }));
  };

  before(async () => {
    http = await startHttpStack();
    await http.app.listen({ host: "127.0.0.1", port: 0 });
    const address = http.app.server.address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await http.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("writes the tiles and the checkpoint; again, only what is new, and the old partial tiles go", async () => {
    await addBlocks(3, 0);
    const dir = newDir();
    const first = await mirrorLog(nodeLogSource(url), dir);
    assert.deepEqual(first, { size: 3, from: 0, written: 2, removed: 0 });
    assert.deepEqual(filesUnder(dir), ["checkpoint", "tile/0/000.p/3", "tile/entries/000.p/3"]);
    const checkpoint = await (await fetch(`${url}/api/v1/tlog/checkpoint`)).text();
    assert.equal(readFileSync(join(dir, "checkpoint"), "utf8"), checkpoint);
    const tile = new Uint8Array(await (await fetch(`${url}/api/v1/tlog/tile/0/000.p/3`)).arrayBuffer());
    assert.deepEqual(new Uint8Array(readFileSync(join(dir, "tile/0/000.p/3"))), tile);

    await addBlocks(2, 3);
    const second = await mirrorLog(nodeLogSource(url), dir);
    assert.deepEqual(second, { size: 5, from: 3, written: 2, removed: 2 });
    assert.deepEqual(filesUnder(dir), ["checkpoint", "tile/0/000.p/5", "tile/entries/000.p/5"]);
    assert.deepEqual(await mirrorLog(nodeLogSource(url), dir), { size: 5, from: 5, written: 0, removed: 0 });
  });

  test("a source whose checkpoint is smaller than the mirror's is refused, and nothing is written", async () => {
    const dir = newDir();
    await mirrorLog(nodeLogSource(url), dir);
    const before = readFileSync(join(dir, "checkpoint"), "utf8");
    const behind = { ...nodeLogSource(url), checkpoint: async () => before.replace(/\n\d+\n/, "\n2\n") };
    await assert.rejects(mirrorLog(behind, dir), /smaller than the mirror's 5: the log went back/);
    assert.equal(readFileSync(join(dir, "checkpoint"), "utf8"), before);
  });

  test("from the local ledger, signed with the node key in its data folder", async () => {
    // A ledger of its own, closed: the test stack holds its SQLite file alone.
    const local = await startHttpStack();
    for (let i = 0; i < 2; i++) await commit(local.app, create(alice, 1n, { local: i }));
    await local.app.close();
    await local.stack.close();
    dirs.push(local.stack.dir);
    createNodeKey(local.stack.dir);
    const config = loadConfig({ flags: { data_dir: local.stack.dir, "database.path": "ledger.sqlite" }, env: {} });
    const dir = newDir();
    const source = await ledgerLogSource(config);
    try {
      assert.deepEqual(await mirrorLog(source, dir), { size: 2, from: 0, written: 2, removed: 0 });
    } finally {
      await source.close();
    }
    assert.deepEqual(filesUnder(dir), ["checkpoint", "tile/0/000.p/2", "tile/entries/000.p/2"]);
    assert.match(readFileSync(join(dir, "checkpoint"), "utf8"), /^ledgerd\.invalid\/ledgerd-solo\n2\n/);
  });
});
