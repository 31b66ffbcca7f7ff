// `ledgerd import --from-bigchaindb` against a running BigchainDB 2.x, when
// LEDGERD_TEST_BIGCHAINDB_URL names one (skipped otherwise: a fresh machine has none). It first
// adds to the node's chain, with the official JavaScript driver, a divisible CREATE, a TRANSFER
// of part of it and a CREATE signed by a key other than its issuer's (accepted by BigchainDB,
// refused by ledgerd: docs/compatibility.md #8), then imports the whole chain, killed once
// mid-way and resumed, and checks every accepted transaction byte for byte against the node's
// own answers, at the node's heights.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import driver from "bigchaindb-driver";
import { checkImported } from "../helpers/bigchaindbChain.js";
import { runLedgerdAsync } from "../unit/cli/ledgerdProcess.js";

/** A live chain may be long, and BigchainDB serves a block of many transactions slowly. */
const importTimeoutMs = 30 * 60_000;
const url = process.env["LEDGERD_TEST_BIGCHAINDB_URL"]?.replace(/\/+$/, "");
const root = mkdtempSync(join(tmpdir(), "ledgerd-bdb-live-"));
after(() => rmSync(root, { recursive: true, force: true }));

// The driver is used as plain JavaScript (its typings are narrower than its API).
const { Transaction, Ed25519Keypair } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Tx = { id: string } & Record<string, unknown>;

async function commit(tx: Tx): Promise<void> {
  const response = await fetch(`${url!}/api/v1/transactions?mode=commit`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tx) });
  assert.equal(response.status, 202, `BigchainDB refused ${tx.id}: ${await response.text()}`);
}

/** Adds a CREATE, a TRANSFER of part of it and a CREATE signed by the wrong key; the last one's id. */
async function addToChain(): Promise<string> {
  const [alice, bob] = [new Ed25519Keypair(), new Ed25519Keypair()];
  const output = (key: { publicKey: string }, amount: number): unknown => Transaction.makeOutput(Transaction.makeEd25519Condition(key.publicKey), String(amount));
  const nonce = `${process.pid}-${Date.now()}`;
  const token = Transaction.signTransaction(Transaction.makeCreateTransaction({ live: nonce }, { n: 1.5 }, [output(alice, 10)], alice.publicKey), alice.privateKey) as Tx;
  await commit(token);
  await commit(Transaction.signTransaction(Transaction.makeTransferTransaction([{ tx: token, output_index: 0 }], [output(bob, 4), output(alice, 6)], { step: "split" }), alice.privateKey) as Tx);
  const forged = Transaction.signTransaction(Transaction.makeCreateTransaction({ forged: nonce }, null, [output(alice, 1)], alice.publicKey), bob.privateKey) as Tx;
  await commit(forged);
  return forged.id;
}

const get = async (path: string): Promise<{ status: number; body: string }> => {
  const response = await fetch(url! + path);
  return { status: response.status, body: await response.text() };
};

describe("ledgerd import --from-bigchaindb, a live BigchainDB", { skip: url === undefined ? "set LEDGERD_TEST_BIGCHAINDB_URL to a BigchainDB 2.x node's URL" : false }, () => {
  it("imports the node's chain, killed once and resumed; every accepted transaction is the node's, byte for byte", async () => {
    const forged = await addToChain();
    const dir = join(root, "live");
    const args = ["import", "--from-bigchaindb", url!, "--data_dir", dir];
    const killed = await runLedgerdAsync(args, { LEDGERD_TEST_FAILPOINTS: "import.block=2" }, importTimeoutMs);
    assert.equal(killed.status, null, killed.stderr);
    assert.match(killed.stderr, /failpoint import\.block: SIGKILL/);
    const started = performance.now();
    const resumed = await runLedgerdAsync(args, {}, importTimeoutMs);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(resumed.status === 2, `exit 2 (refusals): ${resumed.stderr}`);
    assert.match(resumed.stdout, /\(resumed at height 3\)/);
    const report = JSON.parse(readFileSync(join(dir, "bigchaindb-import-report.json"), "utf8")) as { to: number; accepted: number; refusals: { id: string; code: string; compatibility: number[] }[] };
    const refusal = report.refusals.find((r) => r.id === forged);
    assert.deepEqual(refusal === undefined ? null : [refusal.code, refusal.compatibility], ["InvalidSignature", [8]]);
    const { accepted } = await checkImported(dir, report.to, get, new Set(report.refusals.map((r) => r.id)));
    assert.equal(accepted, report.accepted);
    process.stdout.write(`# live: heights 1 to ${report.to}, ${report.accepted} accepted, ${report.refusals.length} refused; resumed run ${seconds.toFixed(1)} s\n`);
  });
});
