// After the last heal: what every node holds. Blocks and their transaction ids from CometBFT's
// RPC (/block), the app hash after each block (the next header's, and ABCI Info's for the last),
// every committed transaction as ledgerd serves it, a sample of proofs verified against the
// genesis validators, and, once the nodes are stopped, `ledgerd verify-chain` on each data folder.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../src/engine/cometbft/cometBftSupervisor.js";
import { trustedValidatorsOf, verifyTransactionProof, type TransactionProof, type TrustedValidator } from "../src/proofs/verify.js";
import type { TestnetNode } from "../src/testnet/manifest.js";
import type { BlockSnapshot, EvidenceSnapshot, NodeSnapshot } from "./history.js";
import { httpRequest, rpcResult } from "./http.js";
import { recoveryLimits, workloadLimits } from "./options.js";
import type { ChaosCluster } from "./cluster.js";

/** How many reads of one node go out at once. */
const readsInFlight = 8;

/**
 * The snapshot of every node up to `height` (or its own top, if lower) but verify-chain's
 * verdict (the nodes must be stopped for that).
 */
export async function snapshotNodes(cluster: ChaosCluster, height: number): Promise<Omit<NodeSnapshot, "verifyChainPassed">[]> {
  const genesis = JSON.parse(readFileSync(join(cluster.root, cluster.node(0).home, "config", "genesis.json"), "utf8")) as unknown;
  const trusted = trustedValidatorsOf(genesis);
  const snapshots = [];
  for (let i = 0; i < cluster.size; i++) {
    const node = cluster.node(i);
    // A node that does not answer holds nothing the checker can read: not caught up.
    const top = await topOf(node).catch(() => 0);
    const blocks = await blocksOf(node, Math.min(top, height), top);
    const ids = blocks.flatMap((b) => b.txIds);
    const transactions = new Map(await inBatches(ids, async (id) => [id, await transactionOf(node, id)] as const));
    const sample = proofSample(blocks, height);
    const verdicts = await inBatches(sample, (id) => proofVerifies(node, id, trusted, cluster.manifest.chainId));
    const evidence = await evidenceOf(node);
    const proofsVerified = verdicts.every(Boolean);
    snapshots.push({ node: i, blocks, transactions, proofsVerified, caughtUp: top >= height, evidence });
  }
  return snapshots;
}

interface AbciInfo {
  readonly response: { readonly last_block_height?: string; readonly last_block_app_hash?: string };
}

async function topOf(node: TestnetNode): Promise<number> {
  const info = (await rpcResult(node.rpc, "abci_info", workloadLimits.requestMsMax)) as AbciInfo;
  return Number(info.response.last_block_height ?? 0);
}

/** Blocks 1 to `height` of a node whose ledger is at `top`, each with the app hash after it. */
async function blocksOf(node: TestnetNode, height: number, top: number): Promise<BlockSnapshot[]> {
  if (height === 0) return [];
  // The header of height h + 1 carries the app hash after h; after the top, ABCI Info tells it.
  const heights = Array.from({ length: Math.min(height + 1, top) }, (_, i) => i + 1);
  const raw = await inBatches(heights, (h) => rpcResult(node.rpc, `block?height=${h}`, workloadLimits.requestMsMax) as Promise<RpcBlock>);
  const info = (await rpcResult(node.rpc, "abci_info", workloadLimits.requestMsMax)) as AbciInfo;
  const topAppHash = Buffer.from(info.response.last_block_app_hash ?? "", "base64").toString("hex").toUpperCase();
  return raw.slice(0, height).map((result, i) => ({
    height: i + 1,
    txIds: (result.block.data.txs ?? []).map(txIdOf),
    appHash: raw[i + 1]?.block.header.app_hash ?? topAppHash,
  }));
}

interface RpcBlock {
  readonly block: { readonly header: { readonly app_hash: string }; readonly data: { readonly txs?: readonly string[] | null } };
}

function txIdOf(base64: string): string {
  const parsed = JSON.parse(Buffer.from(base64, "base64").toString("utf8")) as { id?: unknown };
  return typeof parsed.id === "string" ? parsed.id : "";
}

async function transactionOf(node: TestnetNode, id: string): Promise<string> {
  const answer = await httpRequest(`http://${node.http}/api/v1/transactions/${id}`, "GET", null, workloadLimits.requestMsMax);
  // A committed transaction a node does not serve is the checker's finding, not ours: an empty text.
  return answer.status === 200 ? answer.text : "";
}

interface EvidenceRecord {
  readonly height: number;
  readonly type: string;
  readonly validator: { readonly address: string };
  readonly infraction_height: number;
}

/** The evidence the node serves, all of it (docs/http-api.md, Evidence); none if no answer. */
async function evidenceOf(node: TestnetNode): Promise<EvidenceSnapshot[]> {
  const url = `http://${node.http}/api/v1/evidence`;
  const answer = await httpRequest(url, "GET", null, workloadLimits.requestMsMax);
  if (answer.status !== 200) return [];
  return (JSON.parse(answer.text) as EvidenceRecord[]).map((e) => ({
    height: e.height, type: e.type, address: e.validator.address, infractionHeight: e.infraction_height,
  }));
}

/** Evenly spread committed transactions below the last height (whose signed header is not out). */
function proofSample(blocks: readonly BlockSnapshot[], height: number): string[] {
  const ids = blocks.filter((b) => b.height < height).flatMap((b) => b.txIds);
  const count = Math.min(recoveryLimits.proofSample, ids.length);
  return Array.from({ length: count }, (_, i) => ids[Math.floor((i * ids.length) / count)]!);
}

async function proofVerifies(node: TestnetNode, id: string, validators: readonly TrustedValidator[], chainId: string): Promise<boolean> {
  const answer = await httpRequest(`http://${node.http}/api/v1/proofs/transactions/${id}`, "GET", null, workloadLimits.requestMsMax);
  if (answer.status !== 200) return false;
  return verifyTransactionProof(JSON.parse(answer.text) as TransactionProof, { validators, chainId }, id).ok;
}

/** `ledgerd verify-chain` on a stopped node's data folder: whether it passed, and its output. */
export function verifyChain(dataDir: string): { passed: boolean; output: string } {
  const main = join(packageRoot(), "src", "cli", "main.ts");
  const args = ["--import", "tsx", main, "verify-chain", "--data_dir", dataDir];
  const result = spawnSync(process.execPath, args, { encoding: "utf8", cwd: packageRoot() });
  return { passed: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += readsInFlight) out.push(...(await Promise.all(items.slice(i, i + readsInFlight).map(work))));
  return out;
}
