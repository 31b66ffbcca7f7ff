// Disk faults planted in a real node's SQLite files (issue 38): a torn page, a flipped byte inside
// a stored transaction, a write-ahead log frame with a bad checksum before committed frames, and
// a log cut short by a crash. The node either refuses to start with one line naming the file,
// answers 503 StoreDamaged, or opens at the last whole commit; it never serves bytes other than
// the committed ones and never opens a ledger shorter than the one it acknowledged. The places
// are drawn from a fixed seed, printed in each failure, so that a failure replays.
import assert from "node:assert/strict";
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadConfig } from "../../src/config/loadConfig.js";
import type { JsonObject } from "../../src/json/jsonValue.js";
import { lockFileName } from "../../src/node/dataDirLock.js";
import { StartRefused } from "../../src/node/startRefused.js";
import { startNode, type NodeHandle } from "../../src/node/startNode.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { LedgerError } from "../../src/errors/ledgerError.js";
import { Random } from "../helpers/random.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { flipWalFrame, frameHeaderBytes, patch, transactionsPage } from "../helpers/diskFaults.js";

const seed = 38_0001;
const blocks = 6;
const txsPerBlock = 5;

const root = mkdtempSync(join(tmpdir(), "ledgerd-disk-"));
const source = join(root, "source");
/** The files as a SIGKILL leaves them (the log not checkpointed), and after a clean stop. */
const crashed = join(root, "crashed");
const clean = join(root, "clean");
const committed = new Map<string, string>();

function configOf(dataDir: string) {
  return loadConfig({
    flags: {
      data_dir: dataDir,
      "server.bind": "127.0.0.1:0",
      "wsserver.bind": "127.0.0.1:0",
      "log.level": "silent",
      "engine.block_interval_ms": "5",
      // No checkpoint beside the writer: every commit stays in the log, as planted below.
      "database.checkpoint_interval_ms": "0",
    },
    env: {},
  });
}

async function post(node: NodeHandle, tx: JsonObject): Promise<void> {
  const answer = await fetch(`http://127.0.0.1:${node.http.port}/api/v1/transactions?mode=commit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(tx),
  });
  assert.equal(answer.status, 202, await answer.text());
}

/** A copy of a data directory to plant a fault in, without the lock of the node that made it. */
function copyOf(from: string, name: string): string {
  const dir = join(root, name);
  cpSync(from, dir, { recursive: true, filter: (path) => !path.endsWith(lockFileName) && !path.endsWith(".pid") });
  return dir;
}

function dbOf(dir: string): string {
  return join(dir, "ledgerd.sqlite");
}

async function startRefusal(dir: string): Promise<StartRefused> {
  const error = await startNode(configOf(dir)).then(
    async (node) => {
      await node.close();
      return null;
    },
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof StartRefused, `seed ${seed}: the node started on a damaged file (${String(error)})`);
  return error;
}

before(async () => {
  const node = await startNode(configOf(source));
  try {
    const owner = keypairOf("disk");
    for (let b = 0; b < blocks; b++) {
      const txs = Array.from({ length: txsPerBlock }, () => create(owner, 1n));
      await Promise.all(txs.map((tx) => post(node, tx)));
      for (const tx of txs) committed.set(tx["id"] as string, JSON.stringify(tx));
    }
    // Every POST was answered after its block was durable: the files now are a crash's.
    cpSync(source, crashed, { recursive: true, filter: (path) => !path.endsWith(lockFileName) && !path.endsWith(".pid") && !path.endsWith("-shm") });
  } finally {
    await node.close();
  }
  cpSync(source, clean, { recursive: true, filter: (path) => !path.endsWith(lockFileName) && !path.endsWith(".pid") });
});

after(() => rmSync(root, { recursive: true, force: true }));

describe("disk faults in a node's SQLite files", () => {
  it("a torn page (half of it zeroed) of the transactions table: start-up refuses in one line naming the file", async () => {
    const dir = copyOf(clean, "torn");
    const random = new Random(seed);
    const { page, pageBytes } = transactionsPage(dbOf(dir), random);
    const half = random.int(2);
    patch(dbOf(dir), (page - 1) * pageBytes + half * (pageBytes / 2), Buffer.alloc(pageBytes / 2));
    const refusal = await startRefusal(dir);
    const where = `seed ${seed}, page ${page}, half ${half}`;
    assert.ok(refusal.message.startsWith(`the database ${dbOf(dir)} is damaged (`), `${where}: ${refusal.message}`);
    assert.match(refusal.message, /ledgerd restore/, where);
    assert.doesNotMatch(refusal.message, /\n/, where);
  });

  it("a byte changed inside a stored transaction: GET answers 503 StoreDamaged, never other bytes; the rest are served whole", async () => {
    const dir = copyOf(clean, "flipped");
    const file = readFileSync(dbOf(dir));
    const random = new Random(seed);
    const ids = [...committed.keys()];
    const id = random.pick(ids);
    // The stored JSON of `id`: the transaction's text, found in the file by its id's key.
    const at = file.indexOf(`"id":"${id}"`);
    assert.ok(at > 0, `seed ${seed}: ${id} is stored as written`);
    const offset = at + 6 + random.int(64); // inside the id's hex digits
    patch(dbOf(dir), offset, Buffer.from([file[offset]! === 0x30 ? 0x31 : 0x30]));
    const node = await startNode(configOf(dir));
    try {
      const base = `http://127.0.0.1:${node.http.port}/api/v1/transactions/`;
      const damaged = await fetch(base + id);
      const body = (await damaged.json()) as { message: string; status: number };
      assert.equal(damaged.status, 503, `seed ${seed}, offset ${offset}: ${JSON.stringify(body)}`);
      assert.match(body.message, new RegExp(`^the database is damaged \\(the stored transaction ${id} does not hash to its id\\)`));
      for (const other of ids.filter((x) => x !== id)) {
        const answer = await fetch(base + other);
        assert.equal(answer.status, 200, `seed ${seed}: ${other}`);
        assert.deepEqual(await answer.json(), JSON.parse(committed.get(other)!));
      }
    } finally {
      await node.close();
    }
  });

  it("a log frame with a bad checksum before committed frames: start-up refuses and leaves the log as it was", async () => {
    const dir = copyOf(crashed, "walFrame");
    const wal = `${dbOf(dir)}-wal`;
    const size = statSync(wal).size;
    const { frame, frames, offset } = flipWalFrame(wal, new Random(seed));
    const refusal = await startRefusal(dir);
    const where = `seed ${seed}, frame ${frame} of ${frames}, offset ${offset}`;
    assert.match(refusal.message, new RegExp(`is damaged \\(\\d+ commits after frame ${frame} of .*-wal fail their checksum and would be lost\\)`), `${where}: ${refusal.message}`);
    // SQLite never saw it: the log is still there to be examined or restored from.
    assert.equal(statSync(wal).size, size, where);
  });

  it("a log ending in part of a frame (a crash mid-append of a later block): it opens with every acknowledged transaction", async () => {
    const dir = copyOf(crashed, "walCut");
    const wal = `${dbOf(dir)}-wal`;
    const random = new Random(seed);
    // Bytes of an append that never finished: a frame cut short is not read.
    const fd = openSync(wal, "a");
    writeSync(fd, random.bytes(frameHeaderBytes + random.int(1000)));
    closeSync(fd);
    const store = SqliteStore.open({ path: dbOf(dir), access: "readers" });
    try {
      for (const [id, json] of committed) assert.deepEqual(JSON.parse((await store.getTransaction(id))!), JSON.parse(json), `seed ${seed}: ${id}`);
    } finally {
      await store.close();
    }
  });

  // The bound fails a node that never stops instead of hanging the run; nothing is timed.
  it("a page SQLite cannot read, met by a GET on a running node: 503 StoreDamaged, and the node stops", { timeout: 60_000 }, async () => {
    const dir = copyOf(clean, "runningTorn");
    const { page, pageBytes } = transactionsPage(dbOf(dir), new Random(seed + 1));
    let stopped: (error: unknown) => void = () => undefined;
    const stop = new Promise<unknown>((resolve) => (stopped = resolve));
    const node = await startNode(configOf(dir), { onFatal: stopped });
    try {
      patch(dbOf(dir), (page - 1) * pageBytes, Buffer.alloc(pageBytes / 2));
      const statuses = new Set<number>();
      for (const id of committed.keys()) {
        const answer = await fetch(`http://127.0.0.1:${node.http.port}/api/v1/transactions/${id}`).catch(() => null);
        if (answer === null) break; // the node has stopped
        statuses.add(answer.status);
        if (answer.status === 503) break;
      }
      assert.ok(statuses.has(503) && !statuses.has(500), `seed ${seed + 1}, page ${page}: ${[...statuses].join()}`);
      const error = await stop;
      assert.ok(error instanceof LedgerError && error.code === "StoreDamaged", String(error));
    } finally {
      await node.close();
    }
  });

  it("a page SQLite cannot read, met by a reader after start: StoreDamaged, not an internal error", async () => {
    const dir = copyOf(clean, "readTorn");
    const { page, pageBytes } = transactionsPage(dbOf(dir), new Random(seed));
    const store = SqliteStore.open({ path: dbOf(dir), access: "reader" });
    try {
      patch(dbOf(dir), (page - 1) * pageBytes, Buffer.alloc(pageBytes / 2));
      const reads = [...committed.keys()].map((id) => store.getTransaction(id).then(() => null, (error: unknown) => error));
      const failures = (await Promise.all(reads)).filter((error) => error !== null);
      assert.ok(failures.length > 0, `seed ${seed}, page ${page}: every read passed over a zeroed page`);
      for (const error of failures) assert.ok(error instanceof LedgerError && error.code === "StoreDamaged", `seed ${seed}: ${String(error)}`);
    } finally {
      await store.close();
    }
  });
});
