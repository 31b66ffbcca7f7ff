// Issue 13, queries by field: GET /api/v1/assets?data.* and /api/v1/metadata?metadata.* at
// 1,000,000 committed transactions (LEDGERD_BENCH_QUICK=1: 50,000), through the HTTP app
// (Fastify inject: routing, parsing, the store read and the JSON answer; no socket). Goal: p99
// <= 10 ms for each query kind. Also the cost the index adds to writing: the fill is timed.
//
// Every transaction is a CREATE whose asset data has a unique `serial`, a `kind` among 10, a
// `year` among 30 and a nested `owner.name` among 1,000, and whose metadata has a `state`
// among 5. The documents are committed through the store, 1,000 per block, without signatures
// (what is measured is reading, not validation).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Broadcaster } from "../src/engine/broadcaster.js";
import { buildHttpApp } from "../src/http/httpApp.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import type { CommittedTx } from "../src/transaction/committed.js";
import { fmt, requestLatencies, ofVerifyRate } from "./lib.js";

const quick = process.env["LEDGERD_BENCH_QUICK"] === "1";
const storedTxs = quick ? 50_000 : 1_000_000;
const txsPerBlock = 1_000;
const samples = quick ? 300 : 2_000;

const hex = (text: string) => createHash("sha256").update(text).digest("hex");

function txAt(i: number): CommittedTx {
  const id = hex(`field-bench:${i}`);
  const data = { serial: `SN-${i}`, kind: `kind-${i % 10}`, year: 1990 + (i % 30), owner: { name: `owner-${i % 1000}` } };
  const metadata = { state: `state-${i % 5}`, seq: i };
  const assetData = JSON.stringify(data);
  const metadataJson = JSON.stringify(metadata);
  const json = `{"asset":{"data":${assetData}},"id":"${id}","metadata":${metadataJson},"operation":"CREATE"}`;
  return {
    id,
    operation: "CREATE",
    assetId: id,
    json,
    assetData,
    metadata: metadataJson,
    outputs: [{ outputIndex: 0, amount: 1n, conditionUri: "ni:///sha-256;x?fpt=ed25519-sha-256&cost=131072", publicKeys: ["bench"] }],
    spends: [],
  } as unknown as CommittedTx;
}

const noBroadcast: Broadcaster = {
  broadcast: () => Promise.reject(new Error("the field benchmark posts nothing")),
};

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-fields-"));
  const store = SqliteStore.open({ path: join(dir, "ledgerd.sqlite"), synchronous: "off" });
  try {
    const started = performance.now();
    for (let height = 1; (height - 1) * txsPerBlock < storedTxs; height++) {
      const txs: CommittedTx[] = [];
      for (let i = (height - 1) * txsPerBlock; i < Math.min(height * txsPerBlock, storedTxs); i++) txs.push(txAt(i));
      await store.commitBlock({ height, appHash: hex(`app:${height}`), txs });
    }
    const fillSeconds = (performance.now() - started) / 1000;
    console.log(`fill: ${fmt(storedTxs)} transactions in ${fillSeconds.toFixed(1)} s (${fmt(storedTxs / fillSeconds)} tx/s ${ofVerifyRate(storedTxs / fillSeconds)}, field index included)`);
    const app = await buildHttpApp({}, { broadcaster: noBroadcast, store });
    const queries: [string, (n: number) => string][] = [
      ["one serial (1 hit)", (n) => `/api/v1/assets?data.serial=SN-${(n * 7919) % storedTxs}`],
      ["kind AND year, limit=10", (n) => `/api/v1/assets?data.kind=kind-${n % 10}&data.year=${1990 + (n % 30)}&limit=10`],
      ["kind AND serial (rare filter second)", (n) => `/api/v1/assets?data.kind=kind-${((n * 7919) % storedTxs) % 10}&data.serial=SN-${(n * 7919) % storedTxs}`],
      ["nested owner.name, limit=10", (n) => `/api/v1/assets?data.owner.name=owner-${n % 1000}&limit=10`],
      ["metadata state, limit=100", (n) => `/api/v1/metadata?metadata.state=state-${n % 5}&limit=100`],
      ["kind, limit=10, page 2 via Link", (n) => `/api/v1/assets?data.kind=kind-${n % 10}&limit=10`],
    ];
    for (const [name, url] of queries) {
      // A second page is asked for by the Link of the first, read before the clock runs.
      const targets: string[] = [];
      for (let n = 0; n < samples; n++) {
        const first = url(n);
        if (!name.includes("page 2")) targets.push(first);
        else targets.push(/^<([^>]+)>/.exec(String((await app.inject({ method: "GET", url: first })).headers["link"]))![1]!);
      }
      await requestLatencies(name, samples, (n) => app.inject({ method: "GET", url: targets[n]! }), "p99 <= 10 ms");
    }
    await app.close();
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
