// Issue #5: a real 4-validator CometBFT network on loopback (4 CometBFT + 4 ledgerd processes on
// this machine, made by `ledgerd testnet`), driven over HTTP like a client would:
//   - committed tx/s: pre-signed CREATEs posted in `async` mode by clients spread over the four
//     nodes (bench/rawHttp.ts: a light client, as real clients run elsewhere), as
//     fast as the network takes them, until node0's event stream has seen every one committed;
//   - commit latency: `mode=commit` POSTs from concurrent clients, p50/p99 of the answer time,
//     and the committed rate of that phase.
// Goal: at least 1,000 committed tx/s on 2 cores. Needs scripts/install-cometbft.sh.
// LEDGERD_BENCH_QUICK=1 posts fewer transactions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { createTestnet, defaultCometBftBinary, startTestnet, stopTestnet, type TestnetNode } from "../src/cli/testnet.js";
import { makeCreate } from "../src/transaction/build/makeCreate.js";
import { makeRandomKeypair } from "../src/transaction/build/makeRandomKeypair.js";
import { signTx } from "../src/transaction/build/signTx.js";
import { fmt, percentile } from "./lib.js";
import { RawHttpConnection } from "./rawHttp.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const throughputTxs = quick ? 3_000 : 12_000;
const latencyTxs = quick ? 600 : 2_000;
/** Async POSTs in flight at once, over the four nodes. */
const asyncConcurrency = 64;
/** Clients each waiting for their `mode=commit` answer before the next POST. */
const commitClients = 32;
const validators = 4;
const basePort = 28_000;

function sign(count: number, tag: string): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const owner = makeRandomKeypair();
    const tx = signTx(
      makeCreate({ issuers: [owner.publicKey], outputs: [{ publicKeys: [owner.publicKey], amount: 1n }], assetData: { bench: tag, i }, metadata: null }),
      [owner],
    );
    out.push(Buffer.from(JSON.stringify(tx)));
  }
  return out;
}

/** Posts until accepted: a full mempool (503) is back-pressure, not a failure. */
async function postAccepted(connection: RawHttpConnection, node: TestnetNode, body: Buffer, mode: string): Promise<void> {
  for (;;) {
    const answer = await connection.post(`/api/v1/transactions?mode=${mode}`, body);
    if (answer.status === 202) return;
    if (answer.status !== 503) throw new Error(`POST ${mode} to ${node.name} answered ${answer.status}: ${answer.body}`);
    await sleep(20);
  }
}

/** `count` clients, client i on a connection of its own to node i mod 4, sharing one list of bodies. */
async function clients(nodes: readonly TestnetNode[], count: number, txs: readonly Buffer[], mode: string, each?: (ms: number) => void): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: count }, async (_, client) => {
      const node = nodes[client % nodes.length]!;
      const connection = await RawHttpConnection.open(node.http);
      try {
        while (next < txs.length) {
          const body = txs[next++]!;
          const t0 = performance.now();
          await postAccepted(connection, node, body, mode);
          each?.(performance.now() - t0);
        }
      } finally {
        connection.close();
      }
    }),
  );
}

/** Resolves when node0's stream has reported `count` committed transactions after now. */
async function streamCounter(node: TestnetNode): Promise<{ seen: () => number; close: () => void }> {
  const port = node.ws.split(":")[1];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/streams/valid_transactions`);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let seen = 0;
  ws.on("message", () => seen++);
  return { seen: () => seen, close: () => ws.close() };
}

async function throughput(nodes: readonly TestnetNode[], txs: readonly Buffer[]): Promise<number> {
  const counter = await streamCounter(nodes[0]!);
  const start = performance.now();
  await clients(nodes, asyncConcurrency, txs, "async");
  const posted = performance.now();
  while (counter.seen() < txs.length) {
    if (performance.now() - posted > 120_000) throw new Error(`only ${counter.seen()} of ${txs.length} committed`);
    await sleep(10);
  }
  const elapsed = (performance.now() - start) / 1000;
  counter.close();
  console.log(`posted ${fmt(txs.length)} in ${((posted - start) / 1000).toFixed(1)} s; all committed after ${elapsed.toFixed(1)} s`);
  return txs.length / elapsed;
}

async function commitLatency(nodes: readonly TestnetNode[], txs: readonly Buffer[]): Promise<{ p50: number; p99: number; rate: number }> {
  const latencies: number[] = [];
  const start = performance.now();
  await clients(nodes, commitClients, txs, "commit", (ms) => latencies.push(ms));
  const rate = txs.length / ((performance.now() - start) / 1000);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rate };
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-cometbft-"));
  try {
    const manifest = createTestnet({ validators, dir, basePort, cometbft: defaultCometBftBinary(), logLevel: "warn" });
    console.log(`${validators} validators on loopback; CometBFT ${manifest.cometbft}; consensus.timeout_commit 200 ms`);
    const signedFlood = sign(throughputTxs, "flood");
    const signedCommit = sign(latencyTxs, "commit");
    await startTestnet(dir);
    // Warm up: the first blocks, connections and JIT.
    await commitLatency(manifest.nodes, sign(100, "warm"));
    const rate = await throughput(manifest.nodes, signedFlood);
    console.log(`committed ${fmt(rate)} tx/s (async POSTs, ${asyncConcurrency} in flight over ${validators} nodes)`);
    const latency = await commitLatency(manifest.nodes, signedCommit);
    console.log(
      `mode=commit, ${commitClients} clients: p50 ${latency.p50.toFixed(0)} ms, p99 ${latency.p99.toFixed(0)} ms, ${fmt(latency.rate)} committed tx/s`,
    );
  } finally {
    await stopTestnet(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
