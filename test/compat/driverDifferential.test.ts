// Differential test against the official JavaScript driver (issue #2, "Done when"): random
// transactions made and signed by bigchaindb-driver 4.3.0 are all accepted with the driver's
// id, and random one-field or one-byte mutations of them are all rejected.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import driver from "bigchaindb-driver";
import { prepareTxBytes } from "../../src/transaction/prepareTxBytes.js";
import type { PreparedTx } from "../../src/transaction/types.js";
import { validateTx } from "../../src/transaction/validateTx.js";
import { MemoryView } from "../helpers/memoryView.js";
import { Random } from "../helpers/random.js";
import { describeResult } from "../helpers/vectors.js";

// The driver is the subject here, used as plain JavaScript (its typings are narrower than its API).
const { Transaction, Ed25519Keypair } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
const driverRequire = createRequire(createRequire(import.meta.url).resolve("bigchaindb-driver"));
const cc = driverRequire("crypto-conditions");
const bs58 = driverRequire("bs58");

type Tx = Record<string, any>;
type Keypair = { publicKey: string; privateKey: string };

const txCount = 2_000;
const mutationCount = 2_000;
const random = new Random(0x1ed9e5d);
const people: Keypair[] = Array.from({ length: 6 }, (_, i) => new Ed25519Keypair(Buffer.alloc(32, i + 1)));

function randomValue(depth: number): unknown {
  const kind = random.int(depth > 3 ? 5 : 7);
  switch (kind) {
    case 0: return random.text(12);
    case 1: return random.int(2) === 0 ? random.int(1_000_000) - 500_000 : random.pick([0.5, -1.25, 1e21, 1.5e-7, 123.456, 2 ** 53 - 1, 1e300, 3.14159]);
    case 2: return random.pick([true, false, null]);
    case 3: return random.text(3);
    case 4: return random.int(100);
    case 5: return Array.from({ length: random.int(4) }, () => randomValue(depth + 1));
    default: return randomObject(depth + 1);
  }
}

function randomKey(): string {
  // Keys the key rules allow (no leading `$`, no `.`, no NUL), including astral and BMP-private ones.
  let key = random.text(6).replace(/[.\u0000]/g, "_").replace(/^\$/, "_");
  if (key === "language") key = "lang";
  return random.int(8) === 0 ? random.pick(["🔑", "ｚ", "\ue000", "Z", "a"]) + key : key;
}

function randomObject(depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = 1 + random.int(4);
  for (let i = 0; i < n; i++) out[randomKey()] = randomValue(depth);
  return out;
}

function randomCondition(owners: readonly Keypair[]): { condition: unknown; threshold: number } {
  if (owners.length === 1) return { condition: Transaction.makeEd25519Condition(owners[0]!.publicKey), threshold: 1 };
  const threshold = 1 + random.int(owners.length);
  const subconditions = owners.map((o) => Transaction.makeEd25519Condition(o.publicKey, false));
  return { condition: Transaction.makeThresholdCondition(threshold, subconditions), threshold };
}

interface Spendable {
  readonly tx: Tx;
  readonly outputIndex: number;
  readonly owners: readonly Keypair[];
  readonly threshold: number;
  readonly amount: bigint;
}

function makeOutputs(total: bigint): { outputs: unknown[]; made: Omit<Spendable, "tx" | "outputIndex">[] } {
  const parts = total > 1n && random.int(2) === 0 ? 2 : 1;
  const amounts = parts === 1 ? [total] : [total / 2n, total - total / 2n];
  const made = amounts.map((amount) => {
    const owners = Array.from(new Set(Array.from({ length: 1 + random.int(3) }, () => random.pick(people))));
    const { condition, threshold } = randomCondition(owners);
    return { condition, owners, threshold, amount };
  });
  return {
    outputs: made.map((m) => Transaction.makeOutput(m.condition, m.amount.toString())),
    made: made.map(({ owners, threshold, amount }) => ({ owners, threshold, amount })),
  };
}

function sha3(text: string): Buffer {
  return createHash("sha3-256").update(text, "utf8").digest();
}

/** Signs each input with as many of its owners as its threshold needs (driver + crypto-conditions). */
function signInputs(unsigned: Tx, spent: readonly Pick<Spendable, "owners" | "threshold">[]): Tx {
  return Transaction.delegateSignTransaction(unsigned, (serialized: string, input: Tx, index?: number) => {
    const i = index ?? unsigned.inputs.indexOf(input);
    const { owners, threshold } = spent[i]!;
    const message = input.fulfills ? serialized + input.fulfills.transaction_id + input.fulfills.output_index : serialized;
    const digest = sha3(message);
    const signEd = (kp: Keypair) => {
      const f = new cc.Ed25519Sha256();
      f.sign(digest, Buffer.from(bs58.decode(kp.privateKey)));
      return f;
    };
    if (owners.length === 1) return signEd(owners[0]!).serializeUri();
    const th = new cc.ThresholdSha256();
    th.setThreshold(threshold);
    owners.forEach((kp, k) => {
      if (k < threshold) th.addSubfulfillment(signEd(kp));
      else th.addSubcondition(signEd(kp).getCondition());
    });
    return th.serializeUri();
  });
}

function makeCreate(): { tx: Tx; made: Omit<Spendable, "tx" | "outputIndex">[] } {
  const issuers = Array.from(new Set([random.pick(people), ...(random.int(4) === 0 ? [random.pick(people)] : [])]));
  const { outputs, made } = makeOutputs(BigInt(1 + random.int(1000)));
  const metadata = random.int(3) === 0 ? null : randomObject(1);
  const unsigned = Transaction.makeCreateTransaction(randomObject(1), metadata, outputs, ...issuers.map((k) => k.publicKey));
  return { tx: Transaction.signTransaction(unsigned, ...issuers.map((k) => k.privateKey)), made };
}

function makeTransfer(spend: Spendable): { tx: Tx; made: Omit<Spendable, "tx" | "outputIndex">[] } {
  const { outputs, made } = makeOutputs(spend.amount);
  const metadata = random.int(2) === 0 ? null : randomObject(1);
  const unsigned = Transaction.makeTransferTransaction([{ tx: spend.tx, output_index: spend.outputIndex }], outputs, metadata);
  return { tx: signInputs(unsigned, [spend]), made };
}

function prepare(text: string): PreparedTx | { code: string; message: string } {
  return prepareTxBytes(text);
}

function generate(): { txs: Tx[]; prepared: PreparedTx[] } {
  const view = new MemoryView();
  const unspent: Spendable[] = [];
  const txs: Tx[] = [];
  const prepared: PreparedTx[] = [];
  while (txs.length < txCount) {
    const transfer = unspent.length > 0 && random.int(2) === 0;
    const spend = transfer ? unspent.splice(random.int(unspent.length), 1)[0]! : null;
    const { tx, made } = spend === null ? makeCreate() : makeTransfer(spend);
    const result = prepare(JSON.stringify(tx));
    assert.ok(!("code" in result), `driver tx ${txs.length} rejected: ${describeResult(result)}\n${JSON.stringify(tx)}`);
    assert.equal(result.id, tx.id, "the id is the driver's");
    const rejection = validateTx(result, view);
    assert.equal(rejection, null, `driver tx ${txs.length} invalid: ${describeResult(rejection)}`);
    view.apply(result);
    prepared.push(result);
    made.forEach((m, outputIndex) => unspent.push({ tx, outputIndex, ...m }));
    txs.push(tx);
  }
  return { txs, prepared };
}

/** The ledger as it stood just before transaction `index` was applied. */
function viewBefore(prepared: readonly PreparedTx[], index: number): MemoryView {
  const view = new MemoryView();
  for (let i = 0; i < index; i++) view.apply(prepared[i]!);
  return view;
}

function driverId(tx: Tx): string {
  return createHash("sha3-256").update(Transaction.serializeTransactionIntoCanonicalString({ ...tx, id: null })).digest("hex");
}

/** One field changed (the id recomputed as the driver would, so the signature is what fails). */
function mutateField(tx: Tx): Tx | null {
  const copy = JSON.parse(JSON.stringify(tx));
  const output = random.pick(copy.outputs as Tx[]);
  const input = random.pick(copy.inputs as Tx[]);
  switch (random.int(7)) {
    case 0: output.amount = String(BigInt(output.amount) + 1n); break;
    case 1: copy.metadata = { changed: random.text(5) || "x" }; break;
    case 2: output.public_keys = [random.pick(people).publicKey]; output.condition = Transaction.makeEd25519Condition(output.public_keys[0]); break;
    case 3:
      if (copy.operation === "CREATE") copy.asset = { data: { changed: random.int(1000) } };
      else return null;
      break;
    case 4:
      if (input.fulfills === null) return null;
      input.fulfills.output_index += 1;
      break;
    case 5: {
      const f = Buffer.from(input.fulfillment, "base64url");
      const at = random.int(f.length);
      f[at] = f[at]! ^ (1 << random.int(8));
      input.fulfillment = f.toString("base64url");
      break;
    }
    default: input.owners_before = [random.pick(people).publicKey]; break;
  }
  copy.id = driverId(copy);
  return copy;
}

/** One byte of the posted text changed, kept only if it changes what the JSON means. */
function mutateByte(text: string): string | null {
  const bytes = Buffer.from(text, "utf8");
  bytes[random.int(bytes.length)] = random.int(128);
  const mutated = bytes.toString("utf8");
  try {
    if (JSON.stringify(JSON.parse(mutated)) === JSON.stringify(JSON.parse(text))) return null;
  } catch {
    // Not JSON any more: a valid mutation (must be a 4xx, never accepted).
  }
  return mutated;
}

describe("bigchaindb-driver differential", () => {
  const { txs, prepared } = generate();

  it(`accepts ${txCount} driver transactions with the driver's ids`, () => {
    assert.equal(txs.length, txCount);
    assert.ok(txs.some((tx) => tx.operation === "TRANSFER"));
    assert.ok(txs.some((tx) => tx.outputs.some((o: Tx) => o.condition.details.type === "threshold-sha-256")));
  });

  it(`rejects ${mutationCount} one-field and one-byte mutations`, () => {
    // Each mutation is checked against the ledger as it stood before the original, where the
    // original itself was valid: so a rejection is due to the mutation, not to a double spend.
    let fields = 0;
    let bytes = 0;
    while (fields + bytes < mutationCount) {
      const index = random.int(txs.length);
      const tx = txs[index]!;
      const byField = random.int(2) === 0;
      const text = byField ? (() => { const m = mutateField(tx); return m === null ? null : JSON.stringify(m); })() : mutateByte(JSON.stringify(tx));
      // A "mutation" that changed nothing (e.g. a key replaced by itself) is not one.
      if (text === null || text === JSON.stringify(tx)) continue;
      const result = prepare(text);
      if (!("code" in result)) {
        // The stateless checks passed (a signature failure is reported after the stateful
        // checks, as BigchainDB orders them): the full validation must reject it.
        const rejection = validateTx(result, viewBefore(prepared, index));
        assert.notEqual(rejection, null, `mutation accepted: ${text}`);
      }
      if (byField) fields++;
      else bytes++;
    }
    assert.equal(fields + bytes, mutationCount);
  });
});
