// Start-up refusals of the machine (issue 11, "Parameters and settings that are silently bent"
// and "Faults of the machine"): a second node on a data directory, a data directory that cannot
// be made, a port in use, a store of a newer ledgerd. Each is refused at once, in one line, by
// real `ledgerd` processes.
import assert from "node:assert/strict";
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { StartRefused } from "../../../src/node/startRefused.js";
import { startNode } from "../../../src/node/startNode.js";
import { PostgresStore } from "../../../src/store/postgres/postgresStore.js";
import { postgresSchemaVersion } from "../../../src/store/postgres/schema.js";
import { schemaVersion } from "../../../src/store/sqlite/schema.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { startPostgres, type PostgresServer } from "../../helpers/postgres.js";
import { cleanEnv, httpCall, repoRoot, runLedgerd, startLedgerd, type RunResult, useTempDirs } from "./ledgerdProcess.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const tempDir = useTempDirs("ledgerd-startup-");

const anyPorts = ["--server.bind", "127.0.0.1:0", "--wsserver.bind", "127.0.0.1:0"];

/** runLedgerd without blocking this process (which may hold a port the child must find taken). */
function runLedgerdAsync(args: readonly string[]): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...ledgerdArgs(), ...args], { cwd: repoRoot, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** The fatal lines of a run that ended by itself; a refusal has exactly one, without a stack. */
function refusal(run: RunResult): string {
  assert.equal(run.status, 1, `exit status (null: it did not end in time)\n${run.stdout}\n${run.stderr}`);
  const lines = run.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown });
  const fatal = lines.filter((line) => line.level === 60);
  assert.equal(fatal.length, 1, run.stdout);
  assert.equal(fatal[0]!.err, undefined, `a refusal is one line, no stack: ${run.stdout}`);
  return fatal[0]!.msg;
}

describe("one node per data directory", () => {
  it("a database outside the data directory is locked too: a second data directory naming it is refused", async () => {
    const shared = join(tempDir(), "shared.sqlite");
    const [one, two] = [tempDir(), tempDir()];
    const first = await startLedgerd(["--data_dir", one, "--database.path", shared, ...anyPorts]);
    try {
      const holder = first.started["pid"];
      const second = runLedgerd(["start", "--data_dir", two, "--database.path", shared, ...anyPorts]);
      assert.equal(refusal(second), `ledgerd failed to start: the database ${shared} is in use by ledgerd process ${String(holder)} (it holds ${shared}.lock)`);
      assert.equal((await httpCall(first.port, "GET", "/")).status, 200);
    } finally {
      assert.deepEqual(await first.stop("SIGTERM"), { code: 0, signal: null });
    }
    // Released with the node: the other data directory (with the chain's validator key) may now use it.
    copyFileSync(join(one, "node_key.json"), join(two, "node_key.json"));
    const next = await startLedgerd(["--data_dir", two, "--database.path", shared, ...anyPorts]);
    assert.deepEqual(await next.stop("SIGTERM"), { code: 0, signal: null });
  });

  it("a second process on the same data directory is refused at once, naming the holder's pid", async () => {
    const dataDir = tempDir();
    const first = await startLedgerd(["--data_dir", dataDir, ...anyPorts]);
    try {
      const holder = first.started["pid"];
      assert.equal(typeof holder, "number");
      const second = runLedgerd(["start", "--data_dir", dataDir, ...anyPorts]);
      assert.equal(
        refusal(second),
        `ledgerd failed to start: the data directory ${dataDir} is in use by ledgerd process ${String(holder)} (it holds ${join(dataDir, "ledgerd.lock")})`,
      );
      // The first node did not notice.
      assert.equal((await httpCall(first.port, "GET", "/")).status, 200);
    } finally {
      assert.deepEqual(await first.stop("SIGTERM"), { code: 0, signal: null });
    }
    // Released on a clean stop...
    const again = await startLedgerd(["--data_dir", dataDir, ...anyPorts]);
    // ... and by the kernel when its holder is killed: no stale lock to clean up by hand.
    assert.deepEqual(await again.stop("SIGKILL"), { code: null, signal: "SIGKILL" });
    const afterKill = await startLedgerd(["--data_dir", dataDir, ...anyPorts]);
    assert.deepEqual(await afterKill.stop("SIGTERM"), { code: 0, signal: null });
  });

  it("in one process, a second startNode on the directory is refused too", async () => {
    const dataDir = tempDir();
    const config = loadConfig({ env: {}, flags: { data_dir: dataDir, "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0", "log.level": "silent" } });
    const first = await startNode(config);
    try {
      await assert.rejects(startNode(config), (error: unknown) => error instanceof StartRefused && /is in use by ledgerd process \d+/.test(error.message));
    } finally {
      await first.close();
    }
    const second = await startNode(config);
    await second.close();
  });
});

describe("a data directory that cannot be made", () => {
  it("data_dir=/proc/x fails at once in one line (Node's recursive mkdir loops forever there)", () => {
    const run = runLedgerd(["start", "--data_dir", "/proc/ledgerd-no-such-dir", ...anyPorts]);
    assert.equal(refusal(run), "ledgerd failed to start: data_dir /proc/ledgerd-no-such-dir: cannot create /proc/ledgerd-no-such-dir (ENOENT)");
  });

  it("ledgerd init with data_dir=/proc/x fails too, rather than spinning", () => {
    const run = runLedgerd(["init", "--data_dir", "/proc/ledgerd-no-such-dir"]);
    assert.equal(run.status, 1, `${run.stdout}\\n${run.stderr}`);
    assert.match(run.stderr, /data_dir \/proc\/ledgerd-no-such-dir: cannot create/);
  });
});

describe("ports", () => {
  it("a port in use is refused in one line before anything is written, the event stream's too", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const port = `127.0.0.1:${(taken.address() as AddressInfo).port}`;
    try {
      const dataDir = join(tempDir(), "data");
      const run = await runLedgerdAsync(["start", "--data_dir", dataDir, "--server.bind", "127.0.0.1:0", "--wsserver.bind", port]);
      assert.equal(refusal(run), `ledgerd failed to start: wsserver.bind ${port} is already in use`);
      assert.equal(existsSync(dataDir), false);
    } finally {
      taken.close();
    }
  });

  it("two settings on one address are a config error", () => {
    const run = runLedgerd(["start", "--data_dir", tempDir(), "--server.bind", "127.0.0.1:39841", "--wsserver.bind", "127.0.0.1:39841"]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /wsserver\.bind \(flag --wsserver\.bind\): is server\.bind's address too/);
  });
});

describe("unsafe settings", () => {
  it('database.synchronous "off" is refused without its acknowledgement, and said loudly with it', async () => {
    const dataDir = tempDir();
    const run = runLedgerd(["start", "--data_dir", dataDir, ...anyPorts, "--database.synchronous", "off"]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /database\.synchronous \(flag --database\.synchronous\): is "off": committed blocks can be lost/);
    const node = await startLedgerd(["--data_dir", dataDir, ...anyPorts, "--database.synchronous", "off", "--database.synchronous_off_acknowledged", "true"]);
    try {
      const warning = node.lines.find((line) => line.level === 40 && /^UNSAFE: database\.synchronous is off/.test(String(line.msg)));
      assert.ok(warning !== undefined, JSON.stringify(node.lines));
    } finally {
      await node.stop();
    }
  });
});

describe("a store of a newer ledgerd", () => {
  let server: PostgresServer | undefined;
  after(() => server?.stop());

  for (const thread of ["on", "off"]) {
    it(`SQLite (writer thread ${thread}): refused in one line naming the file and the versions`, async () => {
      const dataDir = tempDir();
      const path = join(dataDir, "ledgerd.sqlite");
      await SqliteStore.open({ path }).close();
      const db = new Database(path);
      db.prepare("UPDATE schema_version SET version = ?").run(schemaVersion + 1);
      db.close();
      const run = runLedgerd(["start", "--data_dir", dataDir, "--database.writer_thread", thread, ...anyPorts]);
      const newer = `has schema version ${schemaVersion + 1}; this ledgerd reads up to ${schemaVersion}. Use a newer ledgerd.`;
      assert.equal(refusal(run), `ledgerd failed to start: ${path} ${newer}`);
    });
  }

  it("PostgreSQL: refused in one line naming the versions", async () => {
    server = await startPostgres();
    const url = await server.newDatabase();
    await (await PostgresStore.open({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("UPDATE schema_version SET version = $1", [postgresSchemaVersion + 1]);
    await client.end();
    const run = runLedgerd(["start", "--data_dir", tempDir(), "--database.backend", "postgres", "--database.url", url, ...anyPorts]);
    const newer = `the database has schema version ${postgresSchemaVersion + 1}; this ledgerd reads up to ${postgresSchemaVersion}. Use a newer ledgerd.`;
    assert.equal(refusal(run), `ledgerd failed to start: ${newer}`);
  });
});
