// `ledgerd backup` under commit load and `ledgerd restore` (issue #15): the backup holds one
// height; restored into a new data folder, a node starts on it, and answers every block and
// transaction up to that height as the original does. A restore refuses a backup that does not
// verify (a byte edited with the sqlite3 tool) and a data folder that has a ledger. A restore holds
// the data folder's lock for its whole run: a node started beside it is refused, and so is a
// restore into a folder a node runs on (issue 36 #2).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, cpSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { failpointsEnv } from "../../src/failpoints.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { waitFor } from "../helpers/waitFor.js";
import { cleanEnv, httpCall, repoRoot, runLedgerd, startLedgerd, type RunningNode } from "../unit/cli/ledgerdProcess.js";
import { ledgerdArgs } from "../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-backup-"));
const anyPorts = ["--server.bind", "127.0.0.1:0", "--wsserver.bind", "127.0.0.1:0"];
const running: RunningNode[] = [];
after(async () => {
  for (const node of running) await node.stop().catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

/** A command that ends by itself, without blocking this process (whose node serves the load). */
function ledgerd(args: readonly string[], env: Record<string, string> = {}): Promise<{ status: number | null; signal: string | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...ledgerdArgs(), ...args], { cwd: repoRoot, env: cleanEnv(env) });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.on("close", (status, signal) => resolve({ status, signal, out }));
  });
}

async function get(node: RunningNode, path: string): Promise<string> {
  const answer = await httpCall(node.port, "GET", path);
  assert.equal(answer.status, 200, `${path}: ${answer.body}`);
  return answer.body;
}

describe("backup and restore", () => {
  const original = join(root, "original");
  const backup = join(root, "backup");
  let height = 0;

  it("backs up under commit load; the backup holds one height", async () => {
    const node = await startLedgerd(["--data_dir", original, ...anyPorts]);
    running.push(node);
    const owner = keypairOf("backup-owner");
    let loading = true;
    let posted = 0;
    let failed: string | null = null;
    const load = (async () => {
      for (let i = 0; loading; i++) {
        const answer = await httpCall(node.port, "POST", "/api/v1/transactions?mode=commit", JSON.stringify(create(owner, 1n, { n: i })));
        assert.equal(answer.status, 202, answer.body);
        posted++;
      }
    })();
    // Seen by the wait below; `await load` still throws it.
    load.catch((error: unknown) => void (failed = `the load failed (${String(error)})`));
    await waitFor("20 commits before the backup", () => posted >= 20, { timeoutMs: 60_000, abortIf: () => failed });
    const made = await ledgerd(["backup", backup, "--data_dir", original]);
    loading = false;
    await load;
    assert.equal(made.status, 0, made.out);
    const manifest = JSON.parse(readFileSync(join(backup, "backup.json"), "utf8")) as { height: number; appHash: string };
    height = manifest.height;
    assert.ok(height >= 20, `backup at height ${height}`);
    assert.match(made.out, new RegExp(`backed up height ${height} `));
    const latest = JSON.parse(await get(node, "/api/v1/blocks/latest")) as { height: number };
    assert.ok(latest.height > height, "commits went on during and after the backup");
    assert.equal(existsSync(join(backup, "node_key.json")), false, "keys are not in a backup");
  });

  it("restores into a new data folder; a node on it answers as the original up to the backup's height", async () => {
    const restored = join(root, "restored");
    const result = runLedgerd(["restore", backup, "--data_dir", restored]);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`restored heights 1 to ${height} `));
    // The operator restores the node key from where keys are kept.
    copyFileSync(join(original, "node_key.json"), join(restored, "node_key.json"));
    const node = await startLedgerd(["--data_dir", restored, ...anyPorts]);
    running.push(node);
    const first = running[0]!;
    for (let h = 1; h <= height; h++) {
      const block = await get(first, `/api/v1/blocks/${h}`);
      assert.equal(await get(node, `/api/v1/blocks/${h}`), block, `block ${h}`);
      for (const tx of (JSON.parse(block) as { transactions: { id: string }[] }).transactions) {
        assert.equal(await get(node, `/api/v1/transactions/${tx.id}`), await get(first, `/api/v1/transactions/${tx.id}`));
      }
    }
    const latest = JSON.parse(await get(node, "/api/v1/blocks/latest")) as { height: number };
    assert.equal(latest.height, height);
  });

  it("a backup killed midway (failpoint backup.mid) is refused by restore, and the node goes on", async () => {
    // Issue 38: the ledger's copy is written, its backup.json not yet.
    const cut = join(root, "cut");
    const killed = await ledgerd(["backup", cut, "--data_dir", original], { [failpointsEnv]: "backup.mid" });
    assert.equal(killed.signal, "SIGKILL", killed.out);
    assert.match(killed.out, /^failpoint backup\.mid: SIGKILL$/m);
    assert.ok(existsSync(join(cut, "ledgerd.sqlite")), "the ledger's copy was written");
    assert.equal(existsSync(join(cut, "backup.json")), false, "nothing says the backup is complete");
    const target = join(root, "from-cut");
    const refused = runLedgerd(["restore", cut, "--data_dir", target]);
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr, `ledgerd: ${cut} holds no ledgerd backup (no backup.json: a backup that did not finish)\n`);
    assert.equal(existsSync(join(target, "ledgerd.sqlite")), false, "nothing a node could start on");
    const again = await ledgerd(["backup", cut, "--data_dir", original]);
    assert.notEqual(again.status, 0, "a backup never overwrites, not even a cut one");
    const answer = await httpCall(running[0]!.port, "POST", "/api/v1/transactions?mode=commit", JSON.stringify(create(keypairOf("backup-owner"), 1n, { after: "cut" })));
    assert.equal(answer.status, 202, answer.body);
  });

  it("refuses a backup that does not verify", () => {
    const edited = join(root, "edited");
    cpSync(backup, edited, { recursive: true });
    const sql = spawnSync("sqlite3", [join(edited, "ledgerd.sqlite"), "UPDATE transactions SET json = replace(json, '\"n\":3', '\"n\":4') WHERE json LIKE '%\"n\":3}%'"], { encoding: "utf8" });
    assert.equal(sql.status, 0, sql.stderr);
    const target = join(root, "target");
    const refused = runLedgerd(["restore", edited, "--data_dir", target]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /the backup does not verify: height \d+: transaction 0 \(v2\)/);
    assert.equal(existsSync(join(target, "ledgerd.sqlite")), false, "nothing a node could start on");
  });

  it("a node started beside a running restore is refused; so is a restore into a folder a node runs on or with a ledger", async (t) => {
    // The restore reads backup.json from a named pipe this test writes: it holds the folder and
    // waits in that read for as long as the test needs.
    const paused = join(root, "paused");
    cpSync(backup, paused, { recursive: true });
    const manifest = readFileSync(join(paused, "backup.json"), "utf8");
    rmSync(join(paused, "backup.json"));
    const made = spawnSync("mkfifo", [join(paused, "backup.json")], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const target = join(root, "beside");
    const child = spawn(process.execPath, [...ledgerdArgs(), "restore", paused, "--data_dir", target], { cwd: repoRoot, env: cleanEnv() });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const ended = new Promise<number | null>((resolve) => child.on("close", resolve));
    t.after(() => child.kill());
    const pidFile = join(target, "ledgerd.pid");
    await waitFor(`the restore to hold ${target}`, () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() === String(child.pid), {
      timeoutMs: 60_000,
      abortIf: () => (child.exitCode === null ? null : `the restore ended (${out})`),
    });
    const node = runLedgerd(["start", "--data_dir", target, ...anyPorts]);
    assert.equal(node.status, 1, node.stdout + node.stderr);
    assert.ok(node.stdout.includes(`ledgerd failed to start: the data directory ${target} is in use by ledgerd process ${String(child.pid)}`), node.stdout);
    writeFileSync(join(paused, "backup.json"), manifest);
    assert.equal(await ended, 0, out);
    assert.match(out, new RegExp(`restored heights 1 to ${height} `));

    const holder = String(running[0]!.started["pid"]);
    const occupied = runLedgerd(["restore", backup, "--data_dir", original]);
    assert.equal(occupied.status, 1);
    assert.equal(occupied.stderr, `ledgerd: the data directory ${original} is in use by ledgerd process ${holder} (it holds ${join(original, "ledgerd.lock")})\n`);
    const restored = runLedgerd(["restore", backup, "--data_dir", target]);
    assert.notEqual(restored.status, 0);
    assert.match(restored.stderr, /exists: restore into a data folder without a ledger/);
  });
});
