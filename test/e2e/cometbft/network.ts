// Helpers for the CometBFT network suite: a real N-validator testnet on loopback (real CometBFT
// and ledgerd processes, made and run by `ledgerd testnet`), and the reads that compare nodes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { configFileName } from "../../../src/config/loadConfig.js";
import { goDuration, setTomlValues } from "../../../src/engine/cometbft/cometBftConfig.js";
import { defaultCometBftBinary, logFile, runningPid, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { waitFor } from "../../helpers/waitFor.js";

/**
 * The suite needs the real CometBFT: without it, it fails (never skips) and says how to get it.
 * Returns the binary's path.
 */
export function requireCometBft(): string {
  const binary = defaultCometBftBinary();
  const wanted = readFileSync(new URL("../../../scripts/cometbft-version", import.meta.url), "utf8").trim().replace(/^v/, "");
  const result = spawnSync(binary, ["version"], { encoding: "utf8" });
  if (result.error !== undefined || result.status !== 0) {
    assert.fail(`CometBFT ${wanted} is missing (looked for ${binary}): run scripts/install-cometbft.sh first`);
  }
  assert.equal(result.stdout.trim(), wanted, `${binary} is CometBFT ${result.stdout.trim()}, not ${wanted}: run scripts/install-cometbft.sh`);
  return binary;
}

/** A base port with `count * 10` free loopback ports above it. */
export async function freeBasePort(count: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    // Below Linux's ephemeral range (32768+), where outgoing connections take their ports.
    const base = 20_000 + 10 * randomInt(0, 1_200);
    const ports = Array.from({ length: count * 10 }, (_, i) => base + i);
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return base;
  }
  throw new Error("no free block of loopback ports found");
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export const httpUrl = (node: TestnetNode): string => `http://${node.http}`;

/** POST /api/v1/transactions?mode=...; the status and the parsed body. */
export async function post(node: TestnetNode, tx: unknown, mode: "async" | "sync" | "commit"): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(`${httpUrl(node)}/api/v1/transactions?mode=${mode}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(tx),
  });
  return { status: response.status, body: await response.json() };
}

/** GET a path of a node's HTTP API as text, or null on 404 / no answer. */
export async function getText(node: TestnetNode, path: string): Promise<string | null> {
  try {
    const response = await fetch(`${httpUrl(node)}${path}`);
    if (response.status === 404) return null;
    assert.equal(response.status, 200, path);
    return await response.text();
  } catch (error) {
    if ((error as Error).name === "AssertionError") throw error;
    return null;
  }
}

/** CometBFT RPC GET `path` (e.g. `abci_info`, `block?height=3`): its `result`. */
export async function rpc(node: TestnetNode, path: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await idempotentFetch(`http://${node.rpc}/${path}`);
  const body = (await response.json()) as { result?: unknown; error?: unknown };
  if (body.error !== undefined) throw new Error(`${path}: ${JSON.stringify(body.error)}`);
  return body.result;
}

/**
 * fetch for a GET, sent again once when the pooled keep-alive connection it went out on was
 * closed by the server as it was sent (undici's "other side closed"): a race of any keep-alive
 * client, seen with CometBFT's RPC under polling; a GET is safe to send twice.
 */
async function idempotentFetch(url: string): Promise<Response> {
  try {
    return await fetch(url);
  } catch (error) {
    const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
    if (code !== "UND_ERR_SOCKET" && code !== "ECONNRESET") throw error;
    return fetch(url);
  }
}

export interface AppState {
  readonly height: number;
  /** Base64, as CometBFT's JSON writes bytes. */
  readonly appHash: string;
}

/** The ledger's own height and app hash, asked through CometBFT's ABCI Info; null if down. */
export async function appState(node: TestnetNode): Promise<AppState | null> {
  try {
    const result = await rpc(node, "abci_info");
    return { height: Number(result.response.last_block_height ?? 0), appHash: String(result.response.last_block_app_hash ?? "") };
  } catch {
    return null;
  }
}

/** CometBFT's consensus step `RoundStepPrevote` (v0.38 consensus/types/round_state.go). */
export const prevoteStep = 4;

export interface ConsensusRound {
  readonly height: number;
  readonly round: number;
  readonly step: number;
  /** How many validators' prevotes this node holds for the round it is in. */
  readonly prevotes: number;
}

/** Where a node's consensus is (RPC `consensus_state`): the height it works on, its round and step. */
export async function consensusRound(node: TestnetNode): Promise<ConsensusRound> {
  const state = (await rpc(node, "consensus_state")).round_state;
  const [height, round, step] = String(state["height/round/step"]).split("/").map(Number) as [number, number, number];
  const votes = (state.height_vote_set as { round: number; prevotes_bit_array: string }[]).find((set) => set.round === round);
  // The bit array reads like "BA{4:xx__} 2/4 = 0.50": an x for each validator whose prevote is held.
  const held = /^BA\{\d+:([x_]*)\}/.exec(votes?.prevotes_bit_array ?? "")?.[1] ?? "";
  return { height, round, step, prevotes: [...held].filter((bit) => bit === "x").length };
}

/**
 * Waits until every given node reports the same height and app hash, at or above `atLeast`, twice
 * in a row (no block in between), and returns it.
 */
export async function waitForAgreement(nodes: readonly TestnetNode[], atLeast = 0, timeoutMs = 60_000): Promise<AppState> {
  let previous: string | null = null;
  return waitFor(
    `${nodes.map((n) => n.name).join(", ")} to agree on height and app hash`,
    async () => {
      const states = await Promise.all(nodes.map(appState));
      const first = states[0];
      if (first === null || first === undefined || first.height < atLeast) return null;
      if (!states.every((s) => s !== null && s.height === first.height && s.appHash === first.appHash)) return null;
      const key = `${first.height}:${first.appHash}`;
      const stable = previous === key;
      previous = key;
      return stable ? first : null;
    },
    // Two probes a tenth of a second apart must see the same block: "no block in between".
    { timeoutMs, intervalMs: 100 },
  );
}

/** The last lines of a node's process log, for a failure message. */
export function logTail(root: string, node: TestnetNode, which: "ledgerd" | "cometbft", lines = 20): string {
  const path = logFile(root, node, which);
  if (!existsSync(path)) return `(no ${path})`;
  return readFileSync(path, "utf8").split("\n").slice(-lines).join("\n");
}

/** Where a node's CometBFT log ends now: `waitForAppGone` reads only what is written after. */
export function cometLogEnd(root: string, node: TestnetNode): number {
  const path = logFile(root, node, "cometbft");
  return existsSync(path) ? statSync(path).size : 0;
}

/**
 * Waits until a node's CometBFT has seen its ledgerd die: it exited, or it logged (after `from`)
 * that an ABCI connection ended (v0.38 proxy/multi_app_conn.go), after which it sends itself
 * SIGTERM. Whether that shutdown ends is CometBFT's affair: it can hang under load
 * (cometbft/cometbft#4054), and `startTestnet` stops a CometBFT left running without its ledgerd.
 * So a test waits for this, never for the exit.
 */
export async function waitForAppGone(root: string, node: TestnetNode, from: number, timeoutMs = 60_000): Promise<void> {
  const logSince = (): string => {
    const path = logFile(root, node, "cometbft");
    return existsSync(path) ? readFileSync(path).subarray(from).toString("utf8") : "";
  };
  await waitFor(
    `${node.name}'s CometBFT to see its ledgerd gone`,
    () => runningPid(root, node, "cometbft") === null || logSince().includes("connection terminated. Did the application crash?"),
    { timeoutMs },
  );
}

/** SIGKILLs a node's ledgerd and waits until its CometBFT has seen it gone (`waitForAppGone`). */
export async function killLedgerd(root: string, node: TestnetNode): Promise<void> {
  const pid = runningPid(root, node, "ledgerd");
  assert.ok(pid !== null, `${node.name}'s ledgerd is running`);
  const from = cometLogEnd(root, node);
  process.kill(pid, "SIGKILL");
  await waitForAppGone(root, node, from);
}

export function nodeOf(manifest: TestnetManifest, index: number): TestnetNode {
  const node = manifest.nodes[index];
  assert.ok(node !== undefined, `no node ${index}`);
  return node;
}

export function ledgerDataDir(root: string, node: TestnetNode): string {
  return join(root, node.dataDir);
}

/**
 * Sets every node's `engine.commit_timeout_ms` (and CometBFT's `timeout_broadcast_tx_commit`
 * above it, as `ledgerd testnet` sets it) before the network starts: a test that must not take a
 * 504 for an answer makes it longer than the test may run.
 */
export function setCommitTimeout(root: string, manifest: TestnetManifest, commitTimeoutMs: number): void {
  for (const node of manifest.nodes) {
    const toml = join(root, node.home, "config", "config.toml");
    const broadcast = { section: "rpc", key: "timeout_broadcast_tx_commit", value: goDuration(commitTimeoutMs + 5_000) };
    writeFileSync(toml, setTomlValues(readFileSync(toml, "utf8"), [broadcast]));
    const path = join(root, node.dataDir, configFileName);
    const config = JSON.parse(readFileSync(path, "utf8")) as { engine: Record<string, unknown> };
    config.engine["commit_timeout_ms"] = commitTimeoutMs;
    writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  }
}

/** The caller's environment without LEDGERD_* variables, which would override a node's config.json. */
export function withoutLedgerdEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_")));
}

/**
 * `from`'s validator key copied into `twin`'s CometBFT, with a signing state that has signed
 * nothing: started beside `from`, the twin signs again what `from` signs (double signing).
 */
export function shareValidatorKey(root: string, from: TestnetNode, twin: TestnetNode): void {
  copyFileSync(join(root, from.home, "config", "priv_validator_key.json"), join(root, twin.home, "config", "priv_validator_key.json"));
  writeFileSync(join(root, twin.home, "data", "priv_validator_state.json"), JSON.stringify({ height: "0", round: 0, step: 0 }));
}

/** CometBFT's address of a node's validator key (uppercase hex, as evidence names it). */
export function validatorAddressOf(root: string, node: TestnetNode): string {
  const key = JSON.parse(readFileSync(join(root, node.home, "config", "priv_validator_key.json"), "utf8")) as { address: string };
  return key.address;
}
