// One service per machine (issue #14): with `engine.cometbft_home`, `ledgerd start` runs
// CometBFT itself, after its ABCI server listens; the node commits with nothing else started;
// SIGTERM stops CometBFT first and then ledgerd; CometBFT dying on its own stops ledgerd (exit
// 1), so a service manager restarts both in order. A 1-validator network made by
// `ledgerd network init | genesis | join`. Needs CometBFT (scripts/install-cometbft.sh).
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create } from "../../helpers/txFactory.js";
import { freeBasePort, requireCometBft } from "./network.js";
import { waitFor } from "../../helpers/waitFor.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-supervised-"));
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_")));
const dir = join(root, "machine");
let base = 0;
let cometbft = "";
const port = (offset: number) => `127.0.0.1:${base + offset}`;

function ledgerd(...args: string[]): void {
  const result = spawnSync(process.execPath, [...ledgerdArgs(), ...args], { encoding: "utf8", env });
  assert.equal(result.status, 0, `ledgerd ${args.join(" ")}: ${result.stdout}${result.stderr}`);
}

/** The pid of the CometBFT whose home is ours, if one runs. */
function cometPid(): number | null {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [program, command, flag, home] = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (program === cometbft && command === "start" && flag === "--home" && home === join(dir, "cometbft")) return Number(entry);
    } catch {
      // Exited meanwhile.
    }
  }
  return null;
}

function startNode(): ChildProcess {
  return spawn(process.execPath, [...ledgerdArgs(), "start", "--data_dir", join(dir, "ledgerd"), "--log.level", "warn",
    "--engine.cometbft_home", join(dir, "cometbft"), "--engine.cometbft_binary", cometbft], { env, stdio: "ignore" });
}

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => {
  if (child.exitCode !== null) resolve(child.exitCode);
  else child.once("exit", (code) => resolve(code));
});

before(async () => {
  cometbft = requireCometBft();
  base = await freeBasePort(1);
  ledgerd("network", "init", "--dir", dir, "--p2p", port(4), "--p2p-listen", port(4), "--rpc", port(3), "--abci", port(2), "--http", port(0), "--ws", port(1), "--cometbft", cometbft, "--loopback");
  ledgerd("network", "genesis", "--chain-id", "one-service", "--out", join(root, "shared"), join(dir, "part.json"));
  ledgerd("network", "join", "--dir", dir, "--genesis", join(root, "shared", "genesis.json"), "--peers", join(root, "shared", "peers.json"));
});

after(() => {
  const pid = cometPid();
  if (pid !== null) process.kill(pid, "SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

describe("ledgerd running CometBFT itself", () => {
  it("commits with only ledgerd started; SIGTERM stops both", async () => {
    const node = startNode();
    const tx = create(makeRandomKeypair(), 1n, { supervised: true });
    const answer = await waitFor("a commit through the supervised CometBFT", async () => {
      try {
        const response = await fetch(`http://${port(0)}/api/v1/transactions?mode=commit`, { method: "POST", body: JSON.stringify(tx), headers: { "content-type": "application/json" } });
        return response.status === 202 ? response.status : null;
      } catch {
        return null;
      }
    }, { timeoutMs: 60_000 });
    assert.equal(answer, 202);
    assert.ok(cometPid() !== null, "CometBFT runs");
    assert.ok(existsSync(join(dir, "ledgerd", "cometbft.log")));
    node.kill("SIGTERM");
    assert.equal(await exitOf(node), 0);
    assert.equal(cometPid(), null, "CometBFT stopped with the node");
  });

  it("stops the node when CometBFT exits on its own", async () => {
    const node = startNode();
    const pid = await waitFor("CometBFT started by the node", async () => cometPid(), { timeoutMs: 60_000 });
    await waitFor("the node's API", async () => {
      try {
        return (await fetch(`http://${port(0)}/`)).status === 200 ? true : null;
      } catch {
        return null;
      }
    });
    process.kill(pid, "SIGKILL");
    assert.equal(await exitOf(node), 1);
  });
});
