// Disk faults under CometBFT (issue 38), on a one-validator network made by `ledgerd testnet`:
//   - a ledger's write-ahead log with a bad frame before committed ones (ledgerd SIGKILLed, a
//     byte flipped): ledgerd refuses to start, naming the file; restored from an older copy, the
//     handshake replays the blocks it lacks and every transaction is back, byte for byte;
//   - CometBFT's consensus log (data/cs.wal/wal) cut inside its last record: the node starts,
//     at the same app hash, and commits on;
//   - CometBFT's data older than the ledger: CometBFT refuses at the handshake ("app block
//     height (N) is higher than core (M)"), and nothing is signed; with its data back, it runs.
// The places come from a fixed seed, printed in each failure. It needs CometBFT.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { configFileName } from "../../../src/config/loadConfig.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { walDamage } from "../../../src/store/sqlite/walCheck.js";
import { createTestnet, type TestnetManifest } from "../../../src/testnet/testnet.js";
import { startTestnet, stopTestnet } from "../../../src/testnet/processes.js";
import { Random } from "../../helpers/random.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { flipWalFrame } from "../../helpers/diskFaults.js";
import { appState, freeBasePort, getText, killLedgerd, ledgerDataDir, nodeOf, post, requireCometBft, type AppState } from "./network.js";

const seed = 38_0002;
const root = mkdtempSync(join(tmpdir(), "ledgerd-disk-comet-"));
const ledgerFiles = ["ledgerd.sqlite", "ledgerd.sqlite-wal", "ledgerd.sqlite-shm"];
let manifest: TestnetManifest;
const committed = new Map<string, JsonObject>();
const owner = keypairOf("disk-comet");

const node = () => nodeOf(manifest, 0);
const dataDir = () => ledgerDataDir(root, node());

async function commit(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const tx = create(owner, 1n);
    const answer = await post(node(), tx, "commit");
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    committed.set(tx["id"] as string, tx);
  }
}

/** Every transaction committed so far is served with the bytes that were posted. */
async function allServed(): Promise<void> {
  for (const [id, tx] of committed) {
    const text = await getText(node(), `/api/v1/transactions/${id}`);
    assert.ok(text !== null, `seed ${seed}: ${id} is not served`);
    assert.deepEqual(JSON.parse(text), tx, `seed ${seed}: ${id}`);
  }
}

function copyFiles(from: string, to: string, names: readonly string[]): void {
  for (const name of names) {
    rmSync(join(to, name), { force: true, recursive: true });
    if (existsSync(join(from, name))) cpSync(join(from, name), join(to, name), { recursive: true });
  }
}

async function startRefused(): Promise<string> {
  const error = await startTestnet(root, { readyTimeoutMs: 30_000 }).then(() => null, (failure: unknown) => failure);
  assert.ok(error instanceof Error, `seed ${seed}: the node started`);
  return error.message;
}

before(async () => {
  manifest = createTestnet({ validators: 1, dir: root, basePort: await freeBasePort(1), cometbft: requireCometBft(), timeoutCommitMs: 150, logLevel: "warn" });
  // No checkpoint beside the writer: the blocks stay in the log, where the fault is planted.
  const configPath = join(dataDir(), configFileName);
  const config = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
  writeFileSync(configPath, JSON.stringify({ ...config, database: { checkpoint_interval_ms: 0 } }));
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

describe("disk faults under CometBFT", () => {
  it("a ledger log with a bad frame before committed ones: refused, naming the file; an older copy is brought back by the handshake", async () => {
    await commit(2);
    await stopTestnet(root);
    const saved = join(root, "saved-ledger");
    cpSync(dataDir(), saved, { recursive: true });
    await startTestnet(root);
    await commit(4);
    const before: AppState | null = await appState(node());
    await killLedgerd(root, node());
    const wal = join(dataDir(), "ledgerd.sqlite-wal");
    const { frame, frames } = flipWalFrame(wal, new Random(seed));
    const where = `seed ${seed}, frame ${frame} of ${frames}`;
    assert.ok(walDamage(join(dataDir(), "ledgerd.sqlite")) !== null, `${where}: the planted fault drops committed frames`);
    const refusal = await startRefused();
    assert.match(refusal, /ledgerd\.sqlite is damaged \(\d+ commits after frame \d+ of .*ledgerd\.sqlite-wal fail their checksum/, `${where}: ${refusal}`);
    await stopTestnet(root);
    copyFiles(saved, dataDir(), ledgerFiles);
    await startTestnet(root);
    const replayed = await appState(node());
    assert.ok(replayed !== null && before !== null && replayed.height >= before.height, `${where}: ${JSON.stringify(replayed)} behind ${JSON.stringify(before)}`);
    await allServed();
  });

  it("CometBFT's consensus log cut inside its last record: the node starts at its app hash and commits on", async () => {
    const state = await appState(node());
    await stopTestnet(root);
    const wal = join(root, node().home, "data", "cs.wal", "wal");
    const cut = 1 + new Random(seed).int(16);
    truncateSync(wal, statSync(wal).size - cut);
    await startTestnet(root);
    const restarted = await appState(node());
    assert.ok(restarted !== null && state !== null && restarted.height >= state.height, `seed ${seed}, cut ${cut}: ${JSON.stringify(restarted)}`);
    await commit(2);
    await allServed();
  });

  it("CometBFT's data older than the ledger: CometBFT refuses at the handshake; with its data back the node runs", async () => {
    await stopTestnet(root);
    const data = join(root, node().home, "data");
    const older = join(root, "older-cometbft-data");
    cpSync(data, older, { recursive: true });
    await startTestnet(root);
    await commit(2);
    await stopTestnet(root);
    const newer = join(root, "newer-cometbft-data");
    cpSync(data, newer, { recursive: true });
    rmSync(data, { recursive: true });
    cpSync(older, data, { recursive: true });
    const refusal = await startRefused();
    assert.match(refusal, /app block height \(\d+\) is higher than core \(\d+\)/, refusal);
    await stopTestnet(root);
    rmSync(data, { recursive: true });
    cpSync(newer, data, { recursive: true });
    await startTestnet(root);
    await commit(1);
    await allServed();
  });
});
