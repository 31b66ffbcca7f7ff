// The ids' filter only where checks run (issue #42): what a reader connection pays at open with
// and without it (options.idFilter), and the duplicate check's cost on a connection that keeps
// it. A ledger of 1,000,000 ids (LEDGERD_BENCH_QUICK=1: 100,000) is filled by SQL (ids and
// id_index only, every slice merged); each open runs in a process of its own (its RSS apart),
// off and on alternated.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { keyHash } from "../src/store/sqlite/keyHash.js";
import { SqliteStore } from "../src/store/sqlite/sqliteStore.js";
import { median, rawVerifyCpuMicros } from "./lib.js";
import { validator } from "../test/unit/store/fixtures.js";

const childEnv = "LEDGERD_BENCH_IDFILTER_OPEN";

async function fill(path: string, count: number): Promise<void> {
  const store = SqliteStore.open({ path, synchronous: "off", checkpointIntervalMs: 0 });
  await store.initChain("id-filter-bench", [validator("a")], "bigchaindb");
  await store.close();
  const db = new Database(path);
  db.pragma("synchronous = OFF");
  const rows: [number, number, string][] = [];
  for (let seq = 1; seq <= count; seq++) {
    const id = randomBytes(32).toString("hex");
    rows.push([keyHash(id), seq, id]);
  }
  const insertTx = db.prepare("INSERT INTO transactions (seq, height, operation, id, asset_id, json) VALUES (?, 1, 'CREATE', ?, ?, '{}')");
  const insertId = db.prepare("INSERT INTO id_index (hash, seq) VALUES (?, ?)");
  db.transaction(() => {
    for (const [, seq, id] of rows) insertTx.run(seq, id, id);
    for (const [hash, seq] of [...rows].sort((a, b) => a[0] - b[0])) insertId.run(hash, seq);
    db.prepare("INSERT INTO blocks (height, app_hash, seq_first, tx_count) VALUES (1, '', 1, ?)").run(count);
    db.prepare("UPDATE chain_state SET height = 1").run();
    db.prepare("UPDATE index_sweep SET merged_seq = ?").run(count);
    db.prepare("UPDATE field_index_mark SET seq = ?").run(count);
  })();
  db.close();
}

/** In a child process: one reader opened, its cost printed as JSON. */
async function openOnce(path: string, idFilter: boolean): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const before = process.memoryUsage();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const store = SqliteStore.open({ path, access: "reader", idFilter });
  const ms = performance.now() - t0;
  const spent = process.cpuUsage(cpu);
  gc();
  const after = process.memoryUsage();
  // The duplicate check of new ids: µs of CPU per call of one id.
  const ids = Array.from({ length: 20_000 }, () => randomBytes(32).toString("hex"));
  const check = process.cpuUsage();
  for (const id of ids) await store.findTransactions([id]);
  const checkSpent = process.cpuUsage(check);
  const out = {
    ms, cpuMs: (spent.user + spent.system) / 1000, filterBytes: store.idFilterBytes,
    rss: after.rss - before.rss, heap: after.heapUsed - before.heapUsed, arrayBuffers: after.arrayBuffers - before.arrayBuffers,
    checkUs: (checkSpent.user + checkSpent.system) / ids.length,
  };
  await store.close();
  console.log(JSON.stringify(out));
}

export async function run(): Promise<void> {
  const count = process.env.LEDGERD_BENCH_QUICK === "1" ? 100_000 : 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-idfilter-"));
  const path = join(dir, "ledger.sqlite");
  try {
    const t0 = performance.now();
    await fill(path, count);
    console.log(`filled ${count} ids in ${((performance.now() - t0) / 1000).toFixed(1)} s; raw verify ${rawVerifyCpuMicros().toFixed(0)} µs of CPU`);
    const self = fileURLToPath(import.meta.url);
    const results: Record<string, ReturnType<typeof JSON.parse>[]> = { off: [], on: [] };
    for (let round = 1; round <= 3; round++) {
      for (const arm of ["off", "on"] as const) {
        const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", self], { env: { ...process.env, [childEnv]: `${path}|${arm}` }, encoding: "utf8" });
        const figures = JSON.parse(out.trim().split("\n").at(-1)!);
        results[arm]!.push(figures);
        const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
        console.log(`round ${round} filter ${arm}: open ${figures.ms.toFixed(0)} ms (${figures.cpuMs.toFixed(0)} ms CPU), filter ${mib(figures.filterBytes)} MiB, RSS +${mib(figures.rss)} MiB, heap +${mib(figures.heap)} MiB, array buffers +${mib(figures.arrayBuffers)} MiB; check of a new id ${figures.checkUs.toFixed(2)} µs CPU`);
      }
    }
    for (const arm of ["off", "on"] as const) {
      const of = (key: string) => median(results[arm]!.map((r) => r[key] as number));
      console.log(`median, filter ${arm}: open ${of("ms").toFixed(0)} ms, RSS +${(of("rss") / 2 ** 20).toFixed(1)} MiB, check ${of("checkUs").toFixed(2)} µs`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const child = process.env[childEnv];
if (child !== undefined) {
  const [path, arm] = child.split("|") as [string, string];
  await openOnce(path, arm === "on");
}
