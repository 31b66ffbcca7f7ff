// A fixed run of both transaction kinds through the real stack, digested: the golden record that
// proves a restructuring changed no behaviour (issue 12, "Must hold"). The run is deterministic:
// keys from fixed names, fixed asset data, fixed legacy timestamps and uuids, blocks cut by
// hand (the ledger driven as an engine drives it) plus a solo-engine phase whose blocks are cut
// by count only. What it records, per step: every checkTx / recheckTx / dryCheckTx answer, every
// block's results and app hash; at the end a digest of every table of the SQLite file and of the
// event stream's messages as a subscriber received them.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { WebSocket } from "ws";
import { SoloEngine } from "../../src/engine/solo/soloEngine.js";
import { streamPath } from "../../src/events/options.js";
import { StreamServer } from "../../src/events/streamServer.js";
import type { JsonObject } from "../../src/json/jsonValue.js";
import { computeTxId } from "../../src/transaction/computeTxId.js";
import { legacyDoor, v1Door } from "../../src/ledger/doors.js";
import { LedgerApp } from "../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import type { LegacyTx } from "../../src/legacy/types.js";
import { LegacyService } from "../../src/node/legacyService.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { clientLegacyCreate, hexKey, legacyBytes, legacyCreate, legacyTransfer } from "../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf, transfer } from "../helpers/txFactory.js";
import { waitFor } from "../helpers/waitFor.js";

export interface GoldenRecord {
  /** One line per step: what was asked and the answer (code or ok, block app hashes). */
  readonly steps: readonly string[];
  /** Table name to the sha256 of its rows, sorted, as JSON. */
  readonly tables: Readonly<Record<string, string>>;
  /** sha256 of every stream message's bytes, in the order received, each newline-terminated. */
  readonly events: string;
  readonly eventCount: number;
}

const node = keypairOf("golden node");
const [alice, bob, carol, mallory] = ["golden alice", "golden bob", "golden carol", "golden mallory"].map(keypairOf) as [
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
  ReturnType<typeof keypairOf>,
];

type Answer = { readonly ok: true; readonly tx: { readonly id: string } } | { readonly ok: false; readonly rejection: { readonly code: string; readonly message: string } };

function describeAnswer(answer: Answer): string {
  return answer.ok ? `ok ${answer.tx.id}` : `${answer.rejection.code}: ${answer.rejection.message}`;
}

/** Runs the scenario in a fresh folder and returns its record. */
export async function runGoldenScenario(): Promise<GoldenRecord> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-golden-"));
  const path = join(dir, "ledger.sqlite");
  const store = SqliteStore.open({ path });
  const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
  const ledger = await LedgerApp.open({}, { store, pool });
  const stream = await StreamServer.start({ host: "127.0.0.1", port: 0 }, { ledger });
  const received: Buffer[] = [];
  const ws = new WebSocket(`ws://127.0.0.1:${stream.port}${streamPath}`);
  ws.on("message", (data: Buffer) => received.push(Buffer.from(data)));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  await waitFor("the stream's subscriber", () => stream.subscriberCount === 1);
  const steps: string[] = [];
  try {
    await ledger.initChain("golden-chain", [{ publicKey: hexKey(node.publicKey), power: 10 }]);
    await driveLedger(ledger, steps);
    await driveEngine(ledger, store, steps);
    // A last block whose event marks the end of the stream.
    const last = create(alice, 1n, { golden: "end" });
    await block(ledger, [bytesOf(last)], steps);
    await waitFor("the last transaction's event", () => received.some((m) => m.includes(last["id"] as string)));
  } finally {
    ws.close();
    await stream.close();
    await pool.close();
    await store.close();
  }
  const tables = digestTables(path);
  rmSync(dir, { recursive: true, force: true });
  const events = createHash("sha256");
  for (const message of received) events.update(message).update("\n");
  return { steps, tables, events: events.digest("hex"), eventCount: received.length };
}

async function block(ledger: LedgerApp, txs: readonly Uint8Array[], steps: string[]): Promise<void> {
  const height = ledger.info().height + 1;
  const finalized = await ledger.finalizeBlock(height, txs);
  const committed = await ledger.commit();
  const results = finalized.results.map((r) => (r === null ? "ok" : `${r.code}: ${r.message}`));
  steps.push(`block ${height} ${finalized.appHash} [${results.join(" | ")}]`);
  steps.push(`  event txs ${committed.txs.map((tx) => tx.id).join(",")}`);
  steps.push(`  pending ${ledger.pendingCount}`);
}

async function check(ledger: LedgerApp, label: string, answer: Promise<Answer>, steps: string[]): Promise<void> {
  steps.push(`${label} ${describeAnswer(await answer)}`);
}

const id = (tx: JsonObject | LegacyTx): string => tx["id"] as string;

/** Blocks cut by hand, v2.0 and legacy side by side, valid and refused. */
async function driveLedger(ledger: LedgerApp, steps: string[]): Promise<void> {
  const c1 = create(alice, 3n, { golden: "c1" });
  const c2 = create(bob, 1n, { golden: "c2", nested: { n: 1, list: [1, "two", null] } });
  const la = legacyCreate("A", node, [alice.publicKey], { golden: "la" });
  const lb = legacyCreate("B", node, [bob.publicKey], { golden: "lb" });
  for (const [label, bytes] of [["c1", bytesOf(c1)], ["la", legacyBytes(la)], ["lb", legacyBytes(lb)]] as const) {
    await check(ledger, `checkTx ${label}`, ledger.checkTx(bytes), steps);
  }
  await check(ledger, "checkTx c1 again", ledger.checkTx(bytesOf(c1)), steps);
  await check(ledger, "checkTx la as current", ledger.checkTx(legacyBytes(la), v1Door), steps);
  await check(ledger, "checkTx c1 as legacy", ledger.checkTx(bytesOf(c1), legacyDoor), steps);
  await check(ledger, "dryCheckTx c2", ledger.dryCheckTx(bytesOf(c2)), steps);
  await check(ledger, "recheckTx c1", ledger.recheckTx(bytesOf(c1)), steps);
  await block(ledger, [bytesOf(c1), bytesOf(c2), legacyBytes(la), legacyBytes(lb)], steps);

  // Valid spends of both kinds, and refusals: a bad signature, a committed id, bytes that are no
  // JSON, a legacy CREATE by a key outside the federation (recorded invalid).
  const t1 = transfer([{ tx: c1, outputIndex: 0 }], [alice], [
    { publicKeys: [bob.publicKey], amount: 2n },
    { publicKeys: [alice.publicKey], amount: 1n },
  ], { golden: "t1" });
  // Bob's signature of another transaction: the id still matches, the signature does not.
  const forged = transfer([{ tx: c2, outputIndex: 0 }], [bob], [{ publicKeys: [mallory.publicKey], amount: 1n }]);
  const signedOther = transfer([{ tx: c2, outputIndex: 0 }], [bob], [{ publicKeys: [carol.publicKey], amount: 1n }]);
  ((forged["inputs"] as JsonObject[])[0]!)["fulfillment"] = ((signedOther["inputs"] as JsonObject[])[0]!)["fulfillment"]!;
  forged["id"] = computeTxId(forged, "python");
  const lat = legacyTransfer("A", [{ tx: la, cid: 0 }], [carol.publicKey], [alice]);
  const lbt = legacyTransfer("B", [{ tx: lb, cid: 0 }], [alice.publicKey], [bob]);
  const outsider = legacyCreate("A", mallory, [mallory.publicKey], { golden: "outsider" });
  await check(ledger, "checkTx t1", ledger.checkTx(bytesOf(t1)), steps);
  await check(ledger, "checkTx forged", ledger.checkTx(bytesOf(forged)), steps);
  await check(ledger, "checkTx lat", ledger.checkTx(legacyBytes(lat)), steps);
  await check(ledger, "checkTx outsider", ledger.checkTx(legacyBytes(outsider)), steps);
  // A rival of each pending spend: refused against the pending pool.
  const t1Rival = transfer([{ tx: c1, outputIndex: 0 }], [alice], [{ publicKeys: [carol.publicKey], amount: 3n }]);
  const latRival = legacyTransfer("B", [{ tx: la, cid: 0 }], [bob.publicKey], [alice]);
  await check(ledger, "checkTx t1Rival", ledger.checkTx(bytesOf(t1Rival)), steps);
  await check(ledger, "checkTx latRival", ledger.checkTx(legacyBytes(latRival)), steps);
  await check(ledger, "dryCheckTx t1", ledger.dryCheckTx(bytesOf(t1)), steps);
  await check(ledger, "dryCheckTx latRival legacy", ledger.dryCheckTx(legacyBytes(latRival), legacyDoor), steps);
  // A chained spend of a pending output, of each kind.
  const t1Child = transfer([{ tx: t1, outputIndex: 1 }], [alice], [{ publicKeys: [carol.publicKey], amount: 1n }]);
  const latChild = legacyTransfer("B", [{ tx: lat, cid: 0 }], [alice.publicKey], [carol]);
  await check(ledger, "checkTx t1Child", ledger.checkTx(bytesOf(t1Child)), steps);
  await check(ledger, "checkTx latChild", ledger.checkTx(legacyBytes(latChild)), steps);
  await check(ledger, "recheckTx t1Child", ledger.recheckTx(bytesOf(t1Child)), steps);
  await check(ledger, "recheckTx latChild", ledger.recheckTx(legacyBytes(latChild)), steps);
  steps.push(`pending ${ledger.pendingCount} isPendingLegacy ${ledger.isPending(id(lat), legacyDoor)}`);
  ledger.release(id(latChild));
  steps.push(`released latChild; pending ${ledger.pendingCount}`);
  await block(
    ledger,
    [
      bytesOf(t1),
      bytesOf(forged),
      bytesOf(c1),
      new TextEncoder().encode("{"),
      legacyBytes(lat),
      legacyBytes(lbt),
      legacyBytes(outsider),
      bytesOf(t1Child),
    ],
    steps,
  );
  // The rivals, rechecked after the block spent their inputs, leave the pool (if they were in).
  await check(ledger, "recheckTx t1Rival", ledger.recheckTx(bytesOf(t1Rival)), steps);
  await check(ledger, "recheckTx latChild", ledger.recheckTx(legacyBytes(latChild)), steps);

  // Double spends inside one block, of each kind; a block of refusals only (app hash unchanged).
  const d1 = transfer([{ tx: t1, outputIndex: 0 }], [bob], [{ publicKeys: [carol.publicKey], amount: 2n }]);
  const d2 = transfer([{ tx: t1, outputIndex: 0 }], [bob], [{ publicKeys: [alice.publicKey], amount: 2n }]);
  const ld1 = legacyTransfer("A", [{ tx: lbt, cid: 0 }], [bob.publicKey], [alice]);
  const ld2 = legacyTransfer("B", [{ tx: lbt, cid: 0 }], [carol.publicKey], [alice]);
  await block(ledger, [bytesOf(d1), legacyBytes(ld1), bytesOf(d2), legacyBytes(ld2), legacyBytes(latChild)], steps);
  await block(ledger, [bytesOf(d2), legacyBytes(ld2), legacyBytes(la), bytesOf(c2)], steps);
  await check(ledger, "checkTx ld2", ledger.checkTx(legacyBytes(ld2)), steps);
  await check(ledger, "checkTx d2", ledger.checkTx(bytesOf(d2)), steps);
  ledger.releaseAll();
  steps.push(`releaseAll; pending ${ledger.pendingCount}`);
}

/** The engine path: v2.0 broadcasts and legacy posts (a CREATE re-made by the node key). */
async function driveEngine(ledger: LedgerApp, store: SqliteStore, steps: string[]): Promise<void> {
  // Blocks cut at two transactions, never by the timer: the split does not depend on timing.
  const engine = await SoloEngine.start(
    { blockIntervalMs: 3_600_000, txsPerBlockMax: 2 },
    { ledger, validator: { publicKey: hexKey(node.publicKey), power: 10 } },
  );
  let uuids = 0;
  const legacy = new LegacyService({
    engine,
    ledger,
    store,
    signer: { publicKey: node.publicKey, seed: node.seed },
    now: () => 1_700_000_123_456,
    uuid: () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, "a")}`,
  });
  const e1 = create(carol, 5n, { golden: "e1" });
  const posted = await legacy.post(legacyBytes(clientLegacyCreate("B", [carol.publicKey], { golden: "posted" }, "00000000-0000-4000-8000-000000000099")));
  steps.push(`legacy post ${posted.json} ${posted.assignee}`);
  const postedId = (JSON.parse(posted.json) as { id: string }).id;
  steps.push(`legacy status ${await legacy.status(postedId)}`);
  const sent = await engine.broadcast(bytesOf(e1), "commit", v1Door);
  steps.push(`broadcast e1 ${sent.id} ${sent.json}`);
  steps.push(`legacy status ${await legacy.status(postedId)}`);
  await engine.broadcast(bytesOf(e1), "sync", v1Door).then(
    (tx) => steps.push(`broadcast e1 again ok ${tx.id}`),
    (error: { code: string; message: string }) => steps.push(`broadcast e1 again ${error.code}: ${error.message}`),
  );
  await legacy.post(bytesOf(e1)).then(
    (p) => steps.push(`legacy post e1 ${p.json}`),
    (error: { code: string; message: string }) => steps.push(`legacy post e1 ${error.code}: ${error.message}`),
  );
  await engine.broadcast(legacyBytes(clientLegacyCreate("A", [carol.publicKey])), "sync", v1Door).then(
    (tx) => steps.push(`broadcast legacy body ok ${tx.id}`),
    (error: { code: string; message: string }) => steps.push(`broadcast legacy body ${error.code}: ${error.message}`),
  );
  await engine.stop();
  assert.equal(ledger.pendingCount, 0, "the engine phase leaves nothing pending");
  steps.push(`engine stopped at ${ledger.info().height} ${ledger.info().appHash}`);
}

/** Every table of the file (FTS shadow tables too), its rows sorted, hashed. */
function digestTables(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true });
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .pluck()
      .all() as string[];
    const out: Record<string, string> = {};
    for (const name of names) {
      const rows = db.prepare(`SELECT * FROM "${name}"`).raw().all() as unknown[][];
      const lines = rows.map((row) => JSON.stringify(row, (_k, v: unknown) => encodeCell(v))).sort();
      out[name] = `${rows.length} ${createHash("sha256").update(lines.join("\n")).digest("hex")}`;
    }
    return out;
  } finally {
    db.close();
  }
}

function encodeCell(value: unknown): unknown {
  if (typeof value === "bigint") return `bigint:${value}`;
  if (Buffer.isBuffer(value)) return `blob:${value.toString("hex")}`;
  return value;
}
