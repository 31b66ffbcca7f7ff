// A testnet node whose ledgerd is gone while its CometBFT still runs (CometBFT's shutdown after
// losing its app can hang): `testnet start` stops that CometBFT before starting the node, even one
// that ignores SIGTERM, and leaves a CometBFT whose ledgerd runs alone. Stand-in processes carry
// the node's folders in their command line, as the real ones do.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { TestnetNode } from "../../../src/testnet/manifest.js";
import { pidFile, runningPid, stopOrphanedCometBft } from "../../../src/testnet/processes.js";

describe("testnet start and a CometBFT left without its ledgerd", () => {
  const root = mkdtempSync(join(tmpdir(), "ledgerd-orphan-"));
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });
  const node: TestnetNode = { name: "node0", home: "node0/cometbft", dataDir: "node0/ledgerd", nodeId: "x", http: "", ws: "", abci: "", rpc: "", p2p: "" };
  mkdirSync(join(root, node.name), { recursive: true });

  /** A process that ignores SIGTERM, as a CometBFT whose shutdown hangs; its pid file written. */
  const standIn = async (which: "ledgerd" | "cometbft"): Promise<ChildProcess> => {
    const folder = join(root, which === "ledgerd" ? node.dataDir : node.home);
    const child = spawn("sh", ["-c", "trap '' TERM; echo up; while :; do sleep 1; done", folder], { stdio: ["ignore", "pipe", "ignore"] });
    children.push(child);
    await new Promise((resolve) => child.stdout?.once("data", resolve));
    writeFileSync(pidFile(root, node, which), `${child.pid}\n`);
    return child;
  };
  const exited = (child: ChildProcess): Promise<string | null> => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode) : child.once("exit", (_code, signal) => resolve(signal))));

  test("a CometBFT whose ledgerd runs is left alone", async () => {
    const ledgerd = await standIn("ledgerd");
    const cometbft = await standIn("cometbft");
    assert.equal(await stopOrphanedCometBft(root, node, 100), false);
    assert.equal(runningPid(root, node, "cometbft"), cometbft.pid);
    ledgerd.kill("SIGKILL");
    await exited(ledgerd);
    // Now orphaned: stopped, with SIGKILL since it ignores SIGTERM.
    assert.equal(await stopOrphanedCometBft(root, node, 100), true);
    assert.equal(await exited(cometbft), "SIGKILL");
    assert.equal(runningPid(root, node, "cometbft"), null);
  });

  test("with nothing running there is nothing to stop", async () => {
    assert.equal(await stopOrphanedCometBft(root, node, 100), false);
  });
});
