// Start-up refusals of the machine (issue 11, "Parameters and settings that are silently bent"
// and "Faults of the machine"): a second node on a data directory, a data directory that cannot
// be made, a port in use. Each is refused at once, in one line, by real `ledgerd` processes.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { StartRefused } from "../../../src/node/startRefused.js";
import { startNode } from "../../../src/node/startNode.js";
import { httpCall, runLedgerd, startLedgerd, type RunResult } from "./ledgerdProcess.js";

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-startup-"));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const anyPorts = ["--server.bind", "127.0.0.1:0", "--wsserver.bind", "127.0.0.1:0"];

/** The fatal lines of a run that ended by itself; a refusal has exactly one, without a stack. */
function refusal(run: RunResult): string {
  assert.equal(run.status, 1, `exit status (null: it did not end in time)\\n${run.stdout}\\n${run.stderr}`);
  const lines = run.stdout.split("\\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown });
  const fatal = lines.filter((line) => line.level === 60);
  assert.equal(fatal.length, 1, run.stdout);
  assert.equal(fatal[0]!.err, undefined, `a refusal is one line, no stack: ${run.stdout}`);
  return fatal[0]!.msg;
}

describe("one node per data directory", () => {
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
  it("the two settings on one port are refused before anything is written", () => {
    const root = tempDir();
    const dataDir = join(root, "data");
    const port = "127.0.0.1:39841";
    const run = runLedgerd(["start", "--data_dir", dataDir, "--server.bind", port, "--wsserver.bind", port]);
    assert.equal(refusal(run), `ledgerd failed to start: wsserver.bind ${port} is already in use`);
    assert.equal(existsSync(dataDir), false);
  });
});
