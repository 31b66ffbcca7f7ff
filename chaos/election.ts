// During a run, while the workload and the faults go on: a node joins (as `ledgerd testnet
// add-node` adds one), catches up, and an election makes it a validator, proposed and approved
// with the genesis validators' keys as `ledgerd election new` and `approve` do
// (src/tools/electionClient.ts), each sent to whichever node answers. The outcome goes in the
// record: when the node joined and caught up, the election's status, the height it concluded
// at, and whether CometBFT's validator set then holds the node.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  approveElection, newUpsertValidatorElection, showElection, type ElectionNode,
} from "../src/tools/electionClient.js";
import type { ChaosCluster } from "./cluster.js";
import type { ElectionOutcome } from "./history.js";
import { latestHeight, rpcResult } from "./http.js";
import { electionLimits as limits, validators, workloadLimits } from "./options.js";
import type { Recorder } from "./recorder.js";

/** Joins a node at `atMs` of the run (unless `signal` aborted first) and elects it. */
export async function joinAndElect(
  cluster: ChaosCluster, recorder: Recorder, atMs: number, signal: AbortSignal,
): Promise<ElectionOutcome | null> {
  await sleep(Math.max(0, atMs - recorder.now()), undefined, { signal }).catch(() => undefined);
  if (signal.aborted) return null;
  const errors: string[] = [];
  const node = await cluster.join();
  const joinedMs = recorder.now();
  const caughtUpMs = await caughtUp(cluster, node, recorder);
  const deadline = Date.now() + limits.electionMsMax;
  const electionId = await propose(cluster, node, deadline, errors);
  const shown = electionId === null ? null : await approveAll(cluster, electionId, deadline, errors);
  const concludedMs = shown?.status === "concluded" ? recorder.now() : null;
  const inValidatorSet = concludedMs !== null && (await joinsTheSet(cluster, node));
  return {
    node, joinedMs, caughtUpMs, electionId,
    status: shown?.status ?? "not proposed",
    concludedAt: shown?.concludedAt ?? null,
    concludedMs, inValidatorSet, errors,
  };
}

/** The problems an outcome shows: an election that did not conclude, a set without the node. */
export function electionProblems(outcome: ElectionOutcome | null): string[] {
  if (outcome === null) return [];
  const problems: string[] = [];
  const node = `node ${outcome.node}`;
  if (outcome.caughtUpMs === null) problems.push(`${node} did not catch up within ${limits.catchUpMsMax} ms of joining`);
  if (outcome.status !== "concluded") {
    problems.push(`the election of ${node} did not conclude within ${limits.electionMsMax} ms: ${outcome.status}`);
  } else if (!outcome.inValidatorSet) {
    problems.push(`the election of ${node} concluded but CometBFT's validator set does not hold it`);
  }
  return problems;
}

interface Status {
  readonly sync_info: { readonly latest_block_height: string; readonly catching_up: boolean };
}

async function statusOf(rpc: string): Promise<Status | null> {
  return (await rpcResult(rpc, "status", workloadLimits.requestMsMax).catch(() => null)) as Status | null;
}

/** When the node reached the validators' height at its start, out of block sync. */
async function caughtUp(cluster: ChaosCluster, node: number, recorder: Recorder): Promise<number | null> {
  const genesisValidators = cluster.manifest.nodes.slice(0, validators);
  const heights = await Promise.all(genesisValidators.map((n) => latestHeight(n.rpc, workloadLimits.requestMsMax)));
  const target = Math.max(...heights.map((h) => h ?? 0));
  const deadline = Date.now() + limits.catchUpMsMax;
  while (Date.now() < deadline) {
    const sync = (await statusOf(cluster.node(node).rpc))?.sync_info;
    if (sync !== undefined && !sync.catching_up && Number(sync.latest_block_height) >= target) return recorder.now();
    await sleep(workloadLimits.pollMs);
  }
  return null;
}

/** Genesis validator `voter`'s key, sent to the `attempt`-th node (the nodes in turn). */
function electionNode(cluster: ChaosCluster, voter: number, attempt: number): ElectionNode {
  const target = cluster.node(attempt % validators);
  return { api: `http://${target.http}`, dataDir: join(cluster.root, cluster.node(voter).dataDir) };
}

/** The new node's CometBFT key (base64), and a genesis validator's power (under a third of the total). */
function candidateOf(cluster: ChaosCluster, node: number): { publicKey: string; power: number; nodeId: string } {
  const path = join(cluster.root, cluster.node(node).home, "config", "priv_validator_key.json");
  const key = JSON.parse(readFileSync(path, "utf8")) as { pub_key: { value: string } };
  return { publicKey: key.pub_key.value, power: limits.power, nodeId: cluster.node(node).nodeId };
}

/** Proposed by validator 0's key (the nodes in turn until one commits it); its id. */
async function propose(
  cluster: ChaosCluster, node: number, deadline: number, errors: string[],
): Promise<string | null> {
  const candidate = candidateOf(cluster, node);
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    try {
      return await newUpsertValidatorElection(electionNode(cluster, 0, attempt), candidate);
    } catch (error) {
      errors.push(`election new: ${(error as Error).message}`);
      await sleep(limits.retryMs);
    }
  }
  return null;
}

interface Shown {
  readonly status: string;
  readonly concludedAt: number | null;
}

/**
 * Each genesis validator approves once (a vote sent again after a lost answer is refused as a
 * double vote, which is as good), until some node shows the election concluded.
 */
async function approveAll(
  cluster: ChaosCluster, electionId: string, deadline: number, errors: string[],
): Promise<Shown | null> {
  const voted = new Set<number>();
  let shown: Shown | null = null;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    shown = (await show(cluster, electionId, attempt)) ?? shown;
    if (shown?.status === "concluded") return shown;
    const voter = [...Array(validators).keys()].find((v) => !voted.has(v));
    if (voter === undefined) {
      await sleep(limits.retryMs);
      continue;
    }
    try {
      await approveElection(electionNode(cluster, voter, attempt), electionId);
      voted.add(voter);
    } catch (error) {
      const message = (error as Error).message;
      // A 400 (a double vote, a vote after the conclusion) is the node's answer; else try again.
      if (/refused it: 400/.test(message)) voted.add(voter);
      else errors.push(`election approve by validator ${voter}: ${message}`);
    }
  }
  return shown;
}

async function show(cluster: ChaosCluster, electionId: string, attempt: number): Promise<Shown | null> {
  try {
    const election = await showElection(`http://${cluster.node(attempt % validators).http}`, electionId);
    const concludedAt = election["concluded_at"];
    return { status: String(election["status"]), concludedAt: typeof concludedAt === "number" ? concludedAt : null };
  } catch {
    return null;
  }
}

interface Validators {
  readonly validators: readonly { readonly pub_key: { readonly value: string } }[];
}

/** Whether CometBFT's set holds the node (a validator's, applied two heights after the conclusion). */
async function joinsTheSet(cluster: ChaosCluster, node: number): Promise<boolean> {
  const { publicKey } = candidateOf(cluster, node);
  const deadline = Date.now() + limits.setChangeMsMax;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    const rpc = cluster.node(attempt % validators).rpc;
    const answer = rpcResult(rpc, "validators?per_page=100", workloadLimits.requestMsMax);
    const set = (await answer.catch(() => null)) as Validators | null;
    if (set?.validators.some((v) => v.pub_key.value === publicKey) === true) return true;
    await sleep(workloadLimits.pollMs);
  }
  return false;
}
