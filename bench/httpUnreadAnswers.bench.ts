// Issue 11, "A client that does not read its answers": a real node (`ledgerd start` in a child
// process) with one key holding 20,000 outputs (a 2.1 MB answer), attacked by 10 connections
// that each pipeline GETs of that key's outputs and never read. Printed: the node's RSS before,
// during (peak) and after the attack, and the latency of `GET /` from another client during it.
// Two rounds: 300 requests a connection (the figure: past 256 waiting, the node closes
// the connection) and 200 (under that cap: the connection stays, paused).
// LEDGERD_BENCH_QUICK=1: 5,000 outputs and shorter rounds.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { get, Agent } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommittedTx } from "../src/transaction/committed.js";
import { makeRandomKeypair } from "../src/transaction/builders/makeRandomKeypair.js";
import { median, percentile, inVerifies } from "./lib.js";
import { fillConditionUri, openForFill, rssMiB, runCli, startNode, stopNode, type BenchNode } from "./nodeProcess.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const outputsOfKey = quick ? 5_000 : 20_000;
const attackConnections = 10;
const attackSeconds = quick ? 3 : 10;

interface Node extends BenchNode {
  readonly host: string;
  readonly port: number;
}

async function start(dataDir: string): Promise<Node> {
  const node = await startNode(dataDir);
  const [host, port] = node.http.split(":") as [string, string];
  return { ...node, host, port: Number(port) };
}

/** `outputsOfKey` committed CREATEs, each with one output to `hotKey`. */
async function fill(dataDir: string, hotKey: string): Promise<void> {
  const { store, template, commit } = await openForFill(dataDir);
  for (let done = 0; done < outputsOfKey; done += 5_000) {
    const txs: CommittedTx[] = [];
    for (let i = done; i < Math.min(done + 5_000, outputsOfKey); i++) {
      const id = randomBytes(32).toString("hex");
      txs.push({
        id, operation: "CREATE", assetId: id, json: template, metadata: null, assetData: JSON.stringify({ i }),
        outputs: [{ outputIndex: 0, amount: 1n, conditionUri: fillConditionUri, publicKeys: [hotKey] }],
        spends: [],
      });
    }
    await commit(txs);
  }
  await store.close();
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One `GET /` on a kept-alive connection: its latency in ms (Infinity past 30 s). */
function rootLatency(node: Node): Promise<number> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const request = get({ host: node.host, port: node.port, path: "/", agent, timeout: 30_000 }, (response) => {
      response.resume();
      response.on("end", () => resolve(performance.now() - startedAt));
    });
    request.on("timeout", () => {
      request.destroy();
      resolve(Infinity);
    });
    request.on("error", () => resolve(Infinity));
  });
}

/** Connections that pipeline `requests` GETs of the key's outputs each and read nothing. */
async function attack(node: Node, hotKey: string, requests: number): Promise<Socket[]> {
  const line = `GET /api/v1/outputs?public_key=${hotKey} HTTP/1.1\r\nHost: x\r\n\r\n`;
  return Promise.all(
    Array.from({ length: attackConnections }, () => new Promise<Socket>((resolve) => {
      const socket = connect(node.port, node.host, () => {
        socket.pause();
        socket.write(line.repeat(requests));
        resolve(socket);
      });
      socket.on("error", () => {});
    })),
  );
}

async function round(node: Node, hotKey: string, requests: number): Promise<void> {
  const pid = node.proc.pid!;
  const before = rssMiB(pid);
  const sockets = await attack(node, hotKey, requests);
  let peak = before;
  const latencies: number[] = [];
  const until = performance.now() + attackSeconds * 1_000;
  while (performance.now() < until) {
    latencies.push(await rootLatency(node));
    peak = Math.max(peak, rssMiB(pid));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // A paused socket does not see its end: read what is buffered, then look.
  for (const socket of sockets) socket.resume();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const closed = sockets.filter((socket) => socket.readableEnded || socket.destroyed).length;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const after = rssMiB(pid);
  latencies.sort((a, b) => a - b);
  console.log(
    `${attackConnections} connections x ${requests} unread GETs of ${outputsOfKey} outputs: ` +
      `RSS ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak during, ${after.toFixed(0)} MiB after; ` +
      `GET / from another client during it: median ${median(latencies).toFixed(1)} ms ${inVerifies(median(latencies))}, ` +
      `p99 ${percentile(latencies, 99).toFixed(1)} ms over ${latencies.length}; ${closed} of the attacking connections closed by the node`,
  );
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ledgerd-bench-unread-"));
  let node: Node | null = null;
  try {
    await runCli(["init"], dataDir);
    const hotKey = makeRandomKeypair().publicKey;
    await fill(dataDir, hotKey);
    node = await start(dataDir);
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) idle.push(await rootLatency(node));
    console.log(`GET / with no attack: median ${median(idle).toFixed(1)} ms ${inVerifies(median(idle))}`);
    await round(node, hotKey, 300);
    await round(node, hotKey, 200);
  } finally {
    if (node !== null) await stopNode(node);
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
