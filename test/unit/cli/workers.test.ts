// server.workers and server.threads, end to end: a real `ledgerd start`, transactions built and
// signed with src/transaction/build, posted over HTTP, committed, and read back.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { makeCreate } from "../../../src/transaction/builders/makeCreate.js";
import { makeKeypair, type Keypair } from "../../../src/transaction/builders/makeKeypair.js";
import { makeTransfer } from "../../../src/transaction/builders/makeTransfer.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { httpCall, startLedgerd, type LogLine, type RunningNode } from "./ledgerdProcess.js";
import { waitFor } from "../../helpers/waitFor.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function keypair(byte: number): Keypair {
  return makeKeypair(new Uint8Array(32).fill(byte));
}

function create(owner: Keypair, n: number): JsonObject {
  const unsigned = makeCreate({
    issuers: [owner.publicKey],
    outputs: [{ publicKeys: [owner.publicKey], amount: 10n }],
    assetData: { workersTest: n },
    metadata: null,
  });
  return signTx(unsigned, [owner]);
}

async function post(node: RunningNode, tx: JsonObject, mode: string): Promise<{ status: number; body: string }> {
  return httpCall(node.port, "POST", `/api/v1/transactions?mode=${mode}`, writeJson(tx));
}

async function waitCommitted(node: RunningNode, id: string): Promise<void> {
  await waitFor(`${id} committed`, async () => (await httpCall(node.port, "GET", `/api/v1/transactions/${id}`)).status === 200);
}

/** The pids that logged a 4xx answer for `url` (the HTTP API logs those at debug). */
function answeringPids(lines: readonly LogLine[], url: string): Set<number> {
  return new Set(lines.filter((l) => l.msg === "HTTP API error" && l["url"] === url).map((l) => l.pid!));
}

async function exercise(workers: number, threads: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "ledgerd-workers-"));
  dirs.push(dataDir);
  const node = await startLedgerd([
    "--data_dir", dataDir,
    "--server.bind", "127.0.0.1:0",
    "--wsserver.bind", "127.0.0.1:0",
    "--server.workers", String(workers),
    "--server.threads", String(threads),
    "--engine.block_interval_ms", "5",
    "--log.level", "debug",
  ]);
  const primaryPid = node.child.pid!;
  try {
    assert.equal(node.started["workers"], workers);
    assert.equal(node.started["threads"], threads);
    const alice = keypair(1 + workers * 10 + threads);
    const bob = keypair(2 + workers * 10 + threads);

    // Several CREATEs at once, each waiting for its block.
    const creates = [1, 2, 3].map((n) => create(alice, n));
    const posted = await Promise.all(creates.map((tx) => post(node, tx, "commit")));
    for (const [i, answer] of posted.entries()) {
      assert.equal(answer.status, 202, answer.body);
      assert.equal((JSON.parse(answer.body) as { id: string }).id, creates[i]!["id"]);
    }

    // A TRANSFER of the first, posted in sync mode, then seen committed.
    const transfer = signTx(
      makeTransfer({ spends: [{ tx: creates[0]!, outputIndex: 0 }], outputs: [{ publicKeys: [bob.publicKey], amount: 10n }], metadata: { to: "bob" } }),
      [alice],
    );
    const sent = await post(node, transfer, "sync");
    assert.equal(sent.status, 202, sent.body);
    await waitCommitted(node, transfer["id"] as string);

    // Refusals come back with their codes: a spent output (decided by the ledger in the
    // primary, through IPC when there are workers) and a body that is not a transaction
    // (decided where the request landed).
    const again = await post(node, transfer, "sync");
    assert.equal(again.status, 400, again.body);
    assert.match((JSON.parse(again.body) as { message: string }).message, /^Invalid transaction \((DoubleSpend|DuplicateTransaction)\)/);
    const junk = await httpCall(node.port, "POST", "/api/v1/transactions", '{"not": "a transaction"}');
    assert.equal(junk.status, 400);

    // Every committed transaction reads back whole, over fresh connections (dealt to workers).
    for (const tx of [...creates, transfer]) {
      for (let i = 0; i < 2 * workers; i++) {
        const read = await httpCall(node.port, "GET", `/api/v1/transactions/${String(tx["id"])}`);
        assert.equal(read.status, 200);
        assert.deepEqual(JSON.parse(read.body), JSON.parse(writeJson(tx)));
      }
    }
    const outputs = await httpCall(node.port, "GET", `/api/v1/outputs?public_key=${bob.publicKey}&spent=false`);
    assert.deepEqual(JSON.parse(outputs.body), [{ transaction_id: transfer["id"], output_index: 0 }]);

    // Which processes answered: a 404 is logged at debug by the process that answered it.
    const missing = `/api/v1/transactions/${"0".repeat(64)}`;
    const asked = 3 * workers;
    for (let i = 0; i < asked; i++) assert.equal((await httpCall(node.port, "GET", missing)).status, 404);
    // Each 404 is logged once, by the process that answered it: all of them, not what came in 200 ms.
    const logged = () => node.lines.filter((l) => l.msg === "HTTP API error" && l["url"] === missing).length;
    await waitFor(`the ${asked} answers' log lines`, () => logged() >= asked);
    assert.equal(logged(), asked);
    const pids = answeringPids(node.lines, missing);
    if (workers === 1) {
      assert.deepEqual([...pids], [primaryPid]);
    } else {
      assert.equal(pids.size, workers, `answered by ${[...pids].join(", ")}`);
      assert.ok(!pids.has(primaryPid), "the primary serves no HTTP");
      // The transaction that was not one was parsed and refused in a worker, not the primary.
      const junkPids = answeringPids(node.lines, "/api/v1/transactions");
      assert.ok(junkPids.size > 0 && !junkPids.has(primaryPid));
    }
    if (workers > 1 && threads === 0) await replaceDeadWorker(node, [...pids][0]!, transfer["id"] as string);
    // Blocks are committed, and logged at debug, by the primary only.
    const blocks = node.lines.filter((l) => l.msg === "block committed");
    assert.ok(blocks.length >= 2);
    assert.ok(blocks.every((l) => l.pid === primaryPid));
  } finally {
    assert.deepEqual(await node.stop("SIGTERM"), { code: 0, signal: null });
  }
}

/** A worker killed outright is replaced, and the port keeps answering meanwhile and after. */
async function replaceDeadWorker(node: RunningNode, pid: number, id: string): Promise<void> {
  process.kill(pid, "SIGKILL");
  await node.waitForLine((l) => l.msg === "HTTP worker died; starting another" && l["pid"] === pid);
  const before = node.lines.length;
  await node.waitForLine((l) => node.lines.indexOf(l) >= before && /^Server listening/.test(String(l.msg)));
  for (let i = 0; i < 4; i++) assert.equal((await httpCall(node.port, "GET", `/api/v1/transactions/${id}`)).status, 200);
}

describe("server.workers and server.threads", () => {
  it("one process, verification on the main thread (threads 0)", () => exercise(1, 0));
  it("one process, two verification threads", () => exercise(1, 2));
  it("two HTTP worker processes, verification on their main threads", () => exercise(2, 0));
  it("two HTTP worker processes with two verification threads each", () => exercise(2, 2));
});
