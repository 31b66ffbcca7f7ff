// The official JavaScript driver's end-to-end scenarios against a running node over real sockets
// (issue #4; reused by the CometBFT network suite of issue #5). BigchainDB's own acceptance tests
// (docs/bigchaindb-behaviour.md §5.1) are the model: basic, divisible, multiple owners, double
// spend, search, outputs, blocks, stream.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { it } from "node:test";
import driver from "bigchaindb-driver";
import WebSocket from "ws";
import { base58KeyCharsMin } from "../../src/transaction/schemas.js";
import { waitFor } from "../helpers/waitFor.js";

// The driver is used as plain JavaScript, as its users do (its typings are narrower than its API).
const { Connection, Transaction, Ed25519Keypair } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Tx = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface NodeUnderTest {
  /** e.g. `http://127.0.0.1:9984` */
  readonly baseUrl: string;
  /** e.g. `ws://127.0.0.1:9985/api/v1/streams/valid_transactions` */
  readonly streamsUrl: string;
}

/** The driver throws on a 404 until a posted transaction is committed: that is "not yet". */
const retried = { retryErrors: true } as const;
export const ed = (publicKey: string) => Transaction.makeEd25519Condition(publicKey);
export const out = (condition: unknown, amount = "1") => Transaction.makeOutput(condition, amount);

/** A random driver keypair whose public key the schema accepts (see `makeRandomKeypair`). */
export function keypair(): { publicKey: string; privateKey: string } {
  for (;;) {
    const pair = new Ed25519Keypair(randomBytes(32)) as { publicKey: string; privateKey: string };
    if (pair.publicKey.length >= base58KeyCharsMin) return pair;
  }
}

export function createTx(owner: { publicKey: string; privateKey: string }, data: Record<string, unknown>, metadata: Record<string, unknown> | null = null, amount = "1"): Tx {
  const unsigned = Transaction.makeCreateTransaction(data, metadata, [out(ed(owner.publicKey), amount)], owner.publicKey);
  return Transaction.signTransaction(unsigned, owner.privateKey);
}

/** The driver's ResponseError carries only the status (`"400 Bad Request"`), not the body. */
async function failedStatus(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    return Number.parseInt(String((error as { status?: unknown }).status), 10);
  }
  assert.fail("expected the driver call to fail");
}

/** POST as the driver does, but keep the body of the answer. */
async function post(url: string, tx: Tx): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(tx) });
  return { status: response.status, body: await response.json() };
}

const driverRequire = createRequire(createRequire(import.meta.url).resolve("bigchaindb-driver"));
const cc = driverRequire("crypto-conditions");
const bs58 = driverRequire("bs58");

/** Signs every (threshold) input with all `signers`, as the driver's users do (delegateSign + crypto-conditions). */
function signThreshold(unsigned: Tx, signers: readonly { privateKey: string }[]): Tx {
  return Transaction.delegateSignTransaction(unsigned, (serialized: string, input: Tx) => {
    const message = input.fulfills ? serialized + input.fulfills.transaction_id + input.fulfills.output_index : serialized;
    const digest = createHash("sha3-256").update(message).digest();
    const threshold = new cc.ThresholdSha256();
    threshold.setThreshold(signers.length);
    for (const signer of signers) {
      const f = new cc.Ed25519Sha256();
      f.sign(digest, Buffer.from(bs58.decode(signer.privateKey)));
      threshold.addSubfulfillment(f);
    }
    return threshold.serializeUri();
  });
}

async function getJson(url: string): Promise<{ status: number; body: any; type: string | null }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(url);
  const type = response.headers.get("content-type");
  return { status: response.status, body: await response.json(), type };
}

export function driverScenarios(node: () => NodeUnderTest): void {
  const api = () => `${node().baseUrl}/api/v1/`;
  const conn = () => new Connection(api());

  it("basic: CREATE and TRANSFER in every mode, read back", async () => {
    for (const mode of ["postTransactionAsync", "postTransactionSync", "postTransactionCommit"] as const) {
      const alice = keypair();
      const bob = keypair();
      const bike = createTx(alice, { bicycle: { serial: randomBytes(8).toString("hex"), manufacturer: "bkfab" } }, { planet: "earth" });
      const answer = await conn()[mode](bike);
      assert.equal(answer.id, bike.id);
      if (mode !== "postTransactionCommit") await waitFor("the bike's CREATE", () => conn().getTransaction(bike.id), retried);
      const read = await conn().getTransaction(bike.id);
      assert.equal(read.id, bike.id);
      assert.deepEqual(read.asset, bike.asset);
      const unspent = await conn().listOutputs(alice.publicKey, false);
      assert.deepEqual(unspent, [{ transaction_id: bike.id, output_index: 0 }]);
      const transfer = Transaction.signTransaction(
        Transaction.makeTransferTransaction([{ tx: read, output_index: 0 }], [out(ed(bob.publicKey))], { price: "100 euro" }),
        alice.privateKey,
      );
      await conn()[mode](transfer);
      if (mode !== "postTransactionCommit") await waitFor("the TRANSFER", () => conn().getTransaction(transfer.id), retried);
      assert.equal((await conn().getTransaction(transfer.id)).id, transfer.id);
      assert.deepEqual(await conn().listOutputs(alice.publicKey, false), []);
      assert.deepEqual(await conn().listOutputs(alice.publicKey, true), [{ transaction_id: bike.id, output_index: 0 }]);
      assert.deepEqual(await conn().listOutputs(bob.publicKey), [{ transaction_id: transfer.id, output_index: 0 }]);
      const history = await conn().listTransactions(bike.id);
      assert.deepEqual(history.map((t: Tx) => t.id), [bike.id, transfer.id]);
    }
  });

  it("divisible asset: 10 split 3 and 7; spending the 7 as 8 is an AmountError", async () => {
    const alice = keypair();
    const bob = keypair();
    const tokens = createTx(bob, { token: "divisible" }, null, "10");
    await conn().postTransactionCommit(tokens);
    const split = Transaction.signTransaction(
      Transaction.makeTransferTransaction([{ tx: tokens, output_index: 0 }], [out(ed(alice.publicKey), "3"), out(ed(bob.publicKey), "7")], null),
      bob.privateKey,
    );
    await conn().postTransactionCommit(split);
    const read = await conn().getTransaction(split.id);
    assert.deepEqual(read.outputs.map((o: Tx) => o.amount), ["3", "7"]);
    const over = Transaction.signTransaction(
      Transaction.makeTransferTransaction([{ tx: split, output_index: 1 }], [out(ed(alice.publicKey), "8")], null),
      bob.privateKey,
    );
    assert.equal(await failedStatus(conn().postTransactionCommit(over)), 400);
    const { status, body } = await post(`${api()}transactions?mode=commit`, over);
    assert.equal(status, 400);
    assert.deepEqual(body, {
      message: "Invalid transaction (AmountError): The amount used in the inputs `7` needs to be same as the amount used in the outputs `8`",
      status: 400,
    });
  });

  it("multiple owners: an output of alice and bob spent by both", async () => {
    const alice = keypair();
    const bob = keypair();
    const carol = keypair();
    const threshold = Transaction.makeThresholdCondition(2, [Transaction.makeEd25519Condition(alice.publicKey, false), Transaction.makeEd25519Condition(bob.publicKey, false)]);
    const output = Transaction.makeOutput(threshold);
    output.public_keys = [alice.publicKey, bob.publicKey];
    const shared = Transaction.signTransaction(Transaction.makeCreateTransaction({ shared: "deed" }, null, [output], alice.publicKey), alice.privateKey);
    await conn().postTransactionCommit(shared);
    const transfer = signThreshold(
      Transaction.makeTransferTransaction([{ tx: shared, output_index: 0 }], [out(ed(carol.publicKey))], null),
      [alice, bob],
    );
    await conn().postTransactionCommit(transfer);
    const read = await conn().getTransaction(transfer.id);
    assert.deepEqual(read.inputs[0].owners_before, [alice.publicKey, bob.publicKey]);
    assert.deepEqual(await conn().listOutputs(carol.publicKey), [{ transaction_id: transfer.id, output_index: 0 }]);
    assert.deepEqual(await conn().listOutputs(bob.publicKey, true), [{ transaction_id: shared.id, output_index: 0 }]);
  });

  it("double spend: two concurrent commit spends of one output give exactly one 202", async () => {
    const alice = keypair();
    const asset = createTx(alice, { double: "spend" });
    await conn().postTransactionCommit(asset);
    const spends = [keypair(), keypair()].map((to) =>
      Transaction.signTransaction(Transaction.makeTransferTransaction([{ tx: asset, output_index: 0 }], [out(ed(to.publicKey))], null), alice.privateKey),
    );
    const results = await Promise.allSettled(spends.map((tx: Tx) => conn().postTransactionCommit(tx)));
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    // The same CREATE posted twice at once: one commits.
    const twice = createTx(alice, { twice: randomBytes(4).toString("hex") });
    const again = await Promise.allSettled([twice, twice].map((tx) => conn().postTransactionCommit(tx)));
    assert.deepEqual(again.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
  });

  it("search: assets and metadata by text, relevance order, limit, empty result, empty search 400", async () => {
    const alice = keypair();
    const word = `zq${randomBytes(5).toString("hex")}`;
    const strong = createTx(alice, { title: `${word} ${word} ${word}`, note: "strong" }, { tag: `${word} metadata` });
    const weak = createTx(alice, { title: `${word} with many other words in a longer sentence here`, note: "weak" });
    await conn().postTransactionCommit(strong);
    await conn().postTransactionCommit(weak);
    const assets = await conn().searchAssets(word);
    assert.deepEqual(assets.map((a: Tx) => a.id), [strong.id, weak.id]);
    assert.deepEqual(assets[0].data, strong.asset.data);
    assert.equal((await conn().searchAssets(word, 1)).length, 1);
    assert.deepEqual(await conn().searchAssets(`nothing${word}`), []);
    const metadata = await conn().searchMetadata(word);
    assert.deepEqual(metadata, [{ id: strong.id, metadata: strong.metadata }]);
    const empty = await getJson(`${api()}assets/?search=`);
    assert.deepEqual([empty.status, empty.body], [400, { message: "text_search cannot be empty", status: 400 }]);
  });

  it("blocks by height and by transaction id; validators; discovery documents", async () => {
    const alice = keypair();
    const tx = createTx(alice, { block: "lookup" });
    await conn().postTransactionCommit(tx);
    const heights = await conn().listBlocks(tx.id);
    assert.equal(heights.length, 1);
    const block = await conn().getBlock(heights[0]);
    assert.equal(block.height, heights[0]);
    assert.ok(block.transactions.some((t: Tx) => t.id === tx.id));
    assert.deepEqual(await conn().listBlocks("0".repeat(64)), []);
    const validators = await getJson(`${api()}validators`);
    assert.equal(validators.status, 200);
    assert.ok(validators.body.length >= 1);
    for (const v of validators.body) {
      assert.match(v.pub_key.data, /^[0-9a-fA-F]{64}$/);
      assert.equal(v.pub_key.type, "ed25519");
      assert.equal(typeof v.power, "number");
    }
    const root = await getJson(`${node().baseUrl}/`);
    assert.equal(root.body.software, "ledgerd");
    assert.equal(root.body.api.v1.streams, node().streamsUrl);
    assert.equal(root.body.api.v1.validators, "/api/v1/validators");
    const v1 = await getJson(`${node().baseUrl}/api/v1/`);
    assert.deepEqual(Object.keys(v1.body).sort(), ["assets", "blocks", "docs", "metadata", "outputs", "streams", "transactions", "validators"]);
    assert.equal(v1.body.transactions, "/transactions/");
  });

  it("the stream delivers every committed transaction to two subscribers, in order", async () => {
    const subscribers = [0, 1].map(() => new WebSocket(node().streamsUrl));
    await Promise.all(subscribers.map((ws) => new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject))));
    const received = subscribers.map(() => [] as { height: number; asset_id: string; transaction_id: string }[]);
    subscribers.forEach((ws, i) => ws.on("message", (data) => received[i]!.push(JSON.parse(String(data)))));
    const alice = keypair();
    const txs = Array.from({ length: 10 }, (_, i) => createTx(alice, { stream: i, nonce: randomBytes(4).toString("hex") }));
    for (const tx of txs) await conn().postTransactionAsync(tx);
    const transfer = Transaction.signTransaction(Transaction.makeTransferTransaction([{ tx: txs[0], output_index: 0 }], [out(ed(keypair().publicKey))], null), alice.privateKey);
    await conn().postTransactionCommit(transfer);
    const wanted = [...txs.map((t) => t.id), transfer.id];
    await waitFor("every subscriber's events", async () => received.every((list) => wanted.every((id) => list.some((e) => e.transaction_id === id))) || null, retried);
    for (const list of received) {
      const ours = list.filter((e) => wanted.includes(e.transaction_id));
      assert.deepEqual(ours.map((e) => e.transaction_id).sort(), [...wanted].sort());
      const event = ours.find((e) => e.transaction_id === transfer.id)!;
      assert.equal(event.asset_id, txs[0]!.id, "a TRANSFER's asset_id is its asset");
      const heights = list.map((e) => e.height);
      assert.deepEqual(heights, [...heights].sort((a, b) => a - b), "block order");
    }
    subscribers.forEach((ws) => ws.close());
  });

  it("every 400 and 404 of the spec's Errors table is a JSON error", async () => {
    const cases: [string, number][] = [
      ["api/v1/transactions", 400],
      ["api/v1/transactions?operation=CREATE", 400],
      ["api/v1/outputs", 400],
      ["api/v1/assets/?search=", 400],
      ["api/v1/metadata?search=", 400],
      ["api/v1/blocks", 400],
      [`api/v1/transactions/${"0".repeat(64)}`, 404],
      ["api/v1/blocks/999999999", 404],
      ["api/v1/nothing-here", 404],
    ];
    for (const [path, status] of cases) {
      const response = await getJson(`${node().baseUrl}/${path}`);
      assert.equal(response.status, status, path);
      assert.match(response.type ?? "", /^application\/json/, path);
      assert.equal(response.body.status, status, path);
      assert.equal(typeof response.body.message, "string", path);
    }
    const bad = await fetch(`${api()}transactions?mode=commit`, { method: "POST", body: "{not json" });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get("content-type") ?? "", /^application\/json/);
    const invalid = await fetch(`${api()}transactions`, { method: "POST", body: JSON.stringify({ ...createTx(keypair(), { x: 1 }), id: "0".repeat(64) }) });
    assert.equal(invalid.status, 400);
    const invalidBody = (await invalid.json()) as { message: string };
    assert.match(invalidBody.message, /^Invalid transaction \(InvalidHash\)/);
  });
}

