// Issue #14, "a network that machines can form without a manual": three "machines" on loopback,
// separate folders and ports, sharing nothing but the files an operator copies. Two run
// `ledgerd network init`, one joins their part.json files (`network genesis`), both import the
// genesis and peers (`network join`) and start their one service, `ledgerd start`, which runs
// CometBFT itself; they commit. A third machine, set up later the same way but with no part in the genesis, joins as a
// full node, syncs, and serves the same ledger. `ledgerd doctor` passes on each. The blocks carry
// the genesis's protocol version, and the full node (a release reporting it in Info) accepts them.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { TestnetNode } from "../../../src/testnet/testnet.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create } from "../../helpers/txFactory.js";
import { freeBasePort, getText, post, requireCometBft, rpc, waitForAgreement } from "./network.js";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { waitFor } from "../../helpers/waitFor.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-network-"));
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_")));
const children: ChildProcess[] = [];
let cometbft = "";
let base = 0;

/** `ledgerd <args>` to its end; its output, or a failure with it. */
function ledgerd(...args: string[]): string {
  const result = spawnSync(process.execPath, [...ledgerdArgs(), ...args], { encoding: "utf8", env });
  assert.equal(result.status, 0, `ledgerd ${args.join(" ")}: ${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** Machine i: its folder and, as the helpers of network.ts take them, its addresses. */
function machine(i: number): TestnetNode & { dir: string } {
  const port = (offset: number) => `127.0.0.1:${base + 10 * i + offset}`;
  const dir = join(root, `machine${i}`);
  return { name: `machine${i}`, dir, home: join(dir, "cometbft"), dataDir: join(dir, "ledgerd"), nodeId: "", http: port(0), ws: port(1), abci: port(2), rpc: port(3), p2p: port(4) };
}

function init(i: number): void {
  const m = machine(i);
  ledgerd("network", "init", "--dir", m.dir, "--moniker", m.name, "--p2p", m.p2p, "--p2p-listen", m.p2p, "--rpc", m.rpc, "--abci", m.abci,
    "--http", m.http, "--ws", m.ws, "--cometbft", cometbft, "--loopback");
}

/** Starts the machine's one service: ledgerd, which runs its CometBFT (engine.cometbft_home). */
async function start(i: number): Promise<void> {
  const m = machine(i);
  children.push(spawn(process.execPath, [...ledgerdArgs(), "start", "--data_dir", m.dataDir, "--log.level", "warn"], { env, stdio: "ignore" }));
  await waitFor(`${m.name}'s ledgerd`, () => getText(m, "/"));
}

before(async () => {
  cometbft = requireCometBft();
  base = await freeBasePort(3);
  init(0);
  init(1);
  const shared = join(root, "shared");
  ledgerd("network", "genesis", "--chain-id", "machines-net", "--out", shared, join(machine(0).dir, "part.json"), join(machine(1).dir, "part.json"));
  for (const i of [0, 1]) {
    const out = ledgerd("network", "join", "--dir", machine(i).dir, "--genesis", join(shared, "genesis.json"), "--peers", join(shared, "peers.json"));
    assert.match(out, /joined chain machines-net as a validator/);
  }
  await Promise.all([start(0), start(1)]);
});

after(async () => {
  // Each ledgerd stops its CometBFT first, then itself.
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((child) => (child.exitCode !== null || child.signalCode !== null ? null : new Promise((resolve) => child.once("exit", resolve)))));
  if (process.env["LEDGERD_TEST_KEEP"] !== "1") rmSync(root, { recursive: true, force: true });
});

describe("machines that form a network by commands", () => {
  it("two validators made by network init/genesis/join commit what either is given", async () => {
    const owner = makeRandomKeypair();
    const txs = [create(owner, 1n, { machine: 0 }), create(owner, 1n, { machine: 1 })];
    for (const [i, tx] of txs.entries()) {
      const answer = await post(machine(i), tx, "commit");
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
    }
    await waitForAgreement([machine(0), machine(1)], 1);
    for (const tx of txs) {
      const answers = await Promise.all([0, 1].map((i) => getText(machine(i), `/api/v1/transactions/${tx["id"] as string}`)));
      assert.ok(answers[0] !== null && answers[0] === answers[1]);
    }
    for (const i of [0, 1]) assert.doesNotMatch(ledgerd("doctor", "--data_dir", machine(i).dataDir), /FAIL/);
    // The genesis's protocol version is the one every block header carries (docs/upgrades.md).
    const block = await rpc(machine(0), "block?height=1");
    assert.equal(block.block.header.version.app, String(protocolVersion));
  });

  it("a machine set up later joins as a full node, syncs, and serves the same ledger", async () => {
    init(2);
    const shared = join(root, "shared");
    const out = ledgerd("network", "join", "--dir", machine(2).dir, "--genesis", join(shared, "genesis.json"), "--peers", join(shared, "peers.json"));
    assert.match(out, /as a full node/);
    await start(2);
    const agreed = await waitForAgreement([machine(0), machine(1), machine(2)], 1, 60_000);
    const latest = await Promise.all([0, 1, 2].map((i) => getText(machine(i), "/api/v1/blocks/latest")));
    assert.ok(latest.every((block) => block === latest[0]), `at height ${agreed.height}`);
    const doctor = ledgerd("doctor", "--data_dir", machine(2).dataDir);
    assert.match(doctor, /ok {3}validator key: a full node/);
  });
});
