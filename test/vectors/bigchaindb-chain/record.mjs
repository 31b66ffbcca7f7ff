// Makes a chain on a real BigchainDB 2.2.2 with both official drivers, then records the node's
// HTTP answers that `ledgerd import --from-bigchaindb` reads (and each transaction's own answer)
// into answers.jsonl beside this file. See README.md.
//
//   node test/vectors/bigchaindb-chain/record.mjs http://127.0.0.1:9984 <python of bigchaindb_driver 0.6.2>
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const driver = require("bigchaindb-driver");
const { Transaction, Ed25519Keypair } = driver;
const driverRequire = createRequire(require.resolve("bigchaindb-driver"));
const cc = driverRequire("crypto-conditions");
const bs58 = driverRequire("bs58");

const base = (process.argv[2] ?? "http://127.0.0.1:9984").replace(/\/+$/, "");
const python = process.argv[3];
const here = dirname(fileURLToPath(import.meta.url));
// Fixed seeds: the same people every run (the chain itself differs: BigchainDB's ids have no time, but blocks do).
const [alice, bob, carol, dave, erin] = [1, 2, 3, 4, 5].map((i) => new Ed25519Keypair(Buffer.alloc(32, i)));

/** POST in mode=commit; a refusal throws with BigchainDB's message (the driver's error drops it). */
async function commit(tx) {
  const response = await fetch(`${base}/api/v1/transactions?mode=commit`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tx) });
  if (response.status !== 202) throw new Error(`${tx.operation} ${tx.id}: ${response.status} ${await response.text()}`);
}
const output = (keypair, amount) => Transaction.makeOutput(Transaction.makeEd25519Condition(keypair.publicKey), String(amount));

function create(issuer, data, metadata, outputs, signer = issuer) {
  const tx = Transaction.makeCreateTransaction(data, metadata, outputs, issuer.publicKey);
  return Transaction.signTransaction(tx, signer.privateKey);
}

function transfer(spent, metadata, outputs, ...signers) {
  const unspent = spent.map(([tx, index]) => ({ tx, output_index: index }));
  const tx = Transaction.makeTransferTransaction(unspent, outputs, metadata);
  return Transaction.signTransaction(tx, ...signers.map((s) => s.privateKey));
}

/** Every input a threshold fulfillment signed by all of `signers` (the driver signs one key per input). */
function signBoth(unsigned, signers) {
  return Transaction.delegateSignTransaction(unsigned, (serialized, input) => {
    const message = input.fulfills ? serialized + input.fulfills.transaction_id + input.fulfills.output_index : serialized;
    const digest = createHash("sha3-256").update(message).digest();
    const threshold = new cc.ThresholdSha256();
    threshold.setThreshold(signers.length);
    for (const signer of signers) {
      const part = new cc.Ed25519Sha256();
      part.sign(digest, Buffer.from(bs58.decode(signer.privateKey)));
      threshold.addSubfulfillment(part);
    }
    return threshold.serializeUri();
  });
}

async function makeChain() {
  // A divisible asset, split, passed along a chain of transfers, and merged back.
  const token = create(alice, { token: "bigchaindb-import", decimals: 0 }, { note: "js driver", ratio: 1.5, text: "héllo ✓ 🚲" }, [output(alice, 100)]);
  await commit(token);
  const split = transfer([[token, 0]], { step: "split" }, [output(bob, 30), output(alice, 70)], alice);
  await commit(split);
  const toCarol = transfer([[split, 0]], { step: "bob to carol" }, [output(carol, 30)], bob);
  await commit(toCarol);
  const back = transfer([[toCarol, 0]], { step: "carol to alice" }, [output(alice, 30)], carol);
  await commit(back);
  const merged = transfer([[back, 0], [split, 1]], { step: "merge", nested: { list: [1, 2.25, null, true] } }, [output(dave, 100)], alice, alice);
  await commit(merged);
  // Two owners: a 2-of-2 threshold output, spent by both.
  const shared = Transaction.makeOutput(Transaction.makeThresholdCondition(2, [Transaction.makeEd25519Condition(alice.publicKey, false), Transaction.makeEd25519Condition(bob.publicKey, false)]), "1");
  shared.public_keys = [alice.publicKey, bob.publicKey];
  const joint = create(alice, { deed: "shared house" }, null, [shared]);
  await commit(joint);
  await commit(signBoth(Transaction.makeTransferTransaction([{ tx: joint, output_index: 0 }], [output(carol, 1)], { step: "both sign" }), [alice, bob]));
  // Several in one block: posted together, committed together.
  await Promise.all([1, 2, 3, 4].map((n) => commit(create(erin, { batch: n }, { n }, [output(erin, n)]))));
  // BigchainDB accepts a CREATE naming Alice as its issuer but signed by Bob; ledgerd does not
  // (docs/compatibility.md #8). Then a TRANSFER spending it, which ledgerd refuses in its turn.
  const forged = create(alice, { forged: "signed by bob" }, { why: "compatibility 8" }, [output(alice, 5)], bob);
  await commit(forged);
  await commit(transfer([[forged, 0]], { step: "spends the forged create" }, [output(carol, 5)], alice));
  return merged;
}

/** The Python driver's part: a CREATE and a TRANSFER of it, with Python's own numbers in the metadata. */
function pythonPart() {
  if (python === undefined) throw new Error("give the Python of bigchaindb_driver 0.6.2 as the second argument");
  const script = `
import sys, json
from bigchaindb_driver import BigchainDB
base, pub, priv, pub2 = sys.argv[1:5]
bdb = BigchainDB(base)
c = bdb.transactions.prepare(operation='CREATE', signers=pub, asset={'data': {'made_by': 'python driver', 'big': 2**60}}, metadata={'float': 1.0, 'exp': 1e-7, 'unicode': 'ünïcödé'})
c = bdb.transactions.fulfill(c, private_keys=priv)
bdb.transactions.send_commit(c)
o = c['outputs'][0]
t = bdb.transactions.prepare(operation='TRANSFER', asset={'id': c['id']}, inputs={'fulfillment': o['condition']['details'], 'fulfills': {'output_index': 0, 'transaction_id': c['id']}, 'owners_before': o['public_keys']}, recipients=pub2, metadata={'step': 'python transfer'})
t = bdb.transactions.fulfill(t, private_keys=priv)
bdb.transactions.send_commit(t)
print(json.dumps([c['id'], t['id']]))
`;
  const run = spawnSync(python, ["-c", script, base, erin.publicKey, erin.privateKey, dave.publicKey], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`the Python driver failed: ${run.stderr}`);
}

async function answerOf(path) {
  const response = await fetch(base + path);
  return { path, status: response.status, content_type: response.headers.get("content-type"), body: await response.text() };
}

/**
 * Tendermint makes one more block after a block that changed the app hash: waits until the
 * block after the last one holding transactions is there (polled, not a fixed sleep).
 */
async function blockAfterLastTransactions() {
  let last = 0;
  for (let h = 1; ; h++) {
    const block = await fetch(`${base}/api/v1/blocks/${h}`);
    if (block.status !== 200) break;
    if ((await block.json()).transactions.length > 0) last = h;
  }
  for (const deadline = Date.now() + 60_000; (await fetch(`${base}/api/v1/blocks/${last + 1}`)).status !== 200; ) {
    if (Date.now() > deadline) throw new Error(`block ${last + 1} did not come within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function record() {
  const answers = [await answerOf("/"), await answerOf("/api/v1/validators")];
  let height = 1;
  for (;; height++) {
    const block = await answerOf(`/api/v1/blocks/${height}`);
    answers.push(block);
    if (block.status !== 200) break;
    for (const tx of JSON.parse(block.body).transactions) answers.push(await answerOf(`/api/v1/transactions/${tx.id}`));
  }
  answers.push(await answerOf("/api/v1/blocks/latest"));
  writeFileSync(join(here, "answers.jsonl"), answers.map((a) => JSON.stringify(a)).join("\n") + "\n");
  return height - 1;
}

await makeChain();
pythonPart();
await blockAfterLastTransactions();
const latest = await record();
console.log(`recorded heights 1 to ${latest} of ${base} into ${join(here, "answers.jsonl")}`);
