// ledgerd/client against a real solo node over real sockets: it posts what the official JS
// driver builds and signs, reads it back, walks paged outputs across pages, verifies a proof,
// and refuses a tampered proof, a proof of another transaction and a body that does not hash to
// its id, in Node and in a browser's context.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { runInNewContext } from "node:vm";
import driver from "bigchaindb-driver";
import { build } from "esbuild";
import { CheckpointRefused, LedgerdClient, LedgerdError, ProofRefused, type FetchLike, type TransactionProof } from "../../../src/client/client.js";
import { appHashV1 } from "../../../src/proofs/commitment.js";
import { verifierKeyOf } from "../../../src/proofs/signedNote.js";
import { createTx, ed, keypair, out } from "../../e2e/driverScenarios.js";
import { useStartedNode } from "../../helpers/startedNode.js";

// The driver is used as plain JavaScript, as its users do (its typings are narrower than its API).
const { Transaction } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Keypair = ReturnType<typeof keypair>;

const driverCreate = (owner: Keypair, data: Record<string, unknown>, amount = "1") => createTx(owner, data, { made: "by the driver" }, amount);

/** The real fetch, with the proof answers rewritten by `change`: a node (or a path) that lies. */
function lyingFetch(change: (proof: TransactionProof) => TransactionProof): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!url.includes("/proofs/transactions/")) return response;
    const proof = change((await response.json()) as TransactionProof);
    return { status: response.status, ok: response.ok, headers: response.headers, text: async () => JSON.stringify(proof) };
  };
}

/** The real fetch, with each transaction's metadata rewritten: a node that changed what was signed. */
function bodyChangingFetch(url: string, init?: Parameters<FetchLike>[1]): ReturnType<FetchLike> {
  return fetch(url, init).then((response) => {
    if (!/\/api\/v1\/transactions\/[0-9a-f]{64}$/.test(url)) return response;
    const rewritten = response.text().then((body) => JSON.stringify({ ...JSON.parse(body), metadata: { made: "by the node" } }));
    return { status: response.status, ok: response.ok, headers: response.headers, text: () => rewritten };
  });
}

/** A fetch whose answer to a transaction read is `body`. */
function answeringTransaction(body: string): FetchLike {
  return (url, init) =>
    fetch(url, init).then((response) => {
      if (!/\/api\/v1\/transactions\/[0-9a-f]{64}$/.test(url)) return response;
      return { status: response.status, ok: response.ok, headers: response.headers, text: () => Promise.resolve(body) };
    });
}

describe("ledgerd/client against a solo node", () => {
  const node = useStartedNode("client");
  const alice = keypair();
  const bob = keypair();

  it("posts the driver's CREATE and TRANSFER, reads them back, and walks the outputs page by page", async () => {
    const client = new LedgerdClient(node().baseUrl);
    const tokens = driverCreate(alice, { token: "client-test" }, "10");
    const echoed = await client.postTransaction(tokens, "commit");
    assert.equal(echoed.id, tokens.id);
    assert.deepEqual(await client.getTransaction(tokens.id), tokens);
    const split = Transaction.signTransaction(
      Transaction.makeTransferTransaction([{ tx: tokens, output_index: 0 }], [out(ed(alice.publicKey), "3"), out(ed(bob.publicKey), "7")], null),
      alice.privateKey,
    );
    await client.postTransaction(split, "commit");
    assert.deepEqual((await client.listTransactions(tokens.id)).map((tx) => tx.id), [tokens.id, split.id]);
    assert.deepEqual((await client.listTransactions(tokens.id, "TRANSFER")).map((tx) => tx.id), [split.id]);
    const [height] = await client.blocksOf(split.id);
    assert.ok(height !== undefined);
    assert.ok((await client.getBlock(height)).transactions.some((tx) => tx.id === split.id));
    assert.ok((await client.getLatestBlock()).height >= height);
    const evidence = [];
    for await (const item of client.evidence()) evidence.push(item);
    assert.deepEqual(evidence, [], "a solo node has no evidence");
    assert.deepEqual(await client.getOutputs(alice.publicKey, true), [{ transaction_id: tokens.id, output_index: 0 }]);
    const walked = [];
    for await (const balance of client.balances(bob.publicKey)) walked.push(balance);
    assert.deepEqual(walked, [{ asset_id: tokens.id, amount: "7" }]);

    for (let i = 0; i < 6; i++) await client.postTransaction(driverCreate(alice, { token: "client-page", i }), "commit");
    const whole = await client.getOutputs(alice.publicKey);
    assert.equal(whole.length, 8);
    const asked: string[] = [];
    const counting = new LedgerdClient(node().baseUrl, { fetch: (url, init) => (asked.push(url), fetch(url, init)) });
    const paged = [];
    for await (const output of counting.outputs(alice.publicKey, undefined, { pageSize: 3 })) paged.push(output);
    assert.deepEqual(paged, whole);
    assert.equal(asked.length, 3, "three pages, each named by the Link of the one before");
    assert.ok(asked.slice(1).every((url) => url.includes("cursor=")));
    const byField = [];
    for await (const hit of client.assetsWhere({ token: "client-page" }, { pageSize: 4 })) byField.push(hit.data);
    assert.deepEqual(byField, [0, 1, 2, 3, 4, 5].map((i) => ({ token: "client-page", i })));
    const one = [];
    for await (const hit of client.assetsWhere({ token: "client-page", i: 2 })) one.push(hit.data);
    assert.deepEqual(one, [{ token: "client-page", i: 2 }]);
    let made = 0;
    for await (const _ of client.metadataWhere({ made: "by the driver" })) made++;
    assert.ok(made >= 7);
    const hits = await client.searchAssets("client-page", 2);
    assert.equal(hits.length, 2);
    assert.ok((await client.searchMetadata("driver")).length >= 7);
  });

  it("answers errors as LedgerdError with the status and the API's message", async () => {
    const client = new LedgerdClient(node().baseUrl);
    const missing = "00".repeat(32);
    await assert.rejects(client.getTransaction(missing), (error: unknown) =>
      error instanceof LedgerdError && error.status === 404 && error.message.length > 0 && JSON.parse(error.body).status === 404);
    await assert.rejects(client.postTransaction({ id: missing }, "commit"), (error: unknown) => error instanceof LedgerdError && error.status === 400);
    // A solo node signs no headers.
    await assert.rejects(client.getValidatorChanges(), (error: unknown) => error instanceof LedgerdError && error.status === 409);
  });

  it("verifies a transaction's proof as it reads it, and refuses a tampered proof or another transaction's", async () => {
    const honest = new LedgerdClient(node().baseUrl);
    const tx = driverCreate(alice, { token: "client-proof" });
    await honest.postTransaction(tx, "commit");
    const other = driverCreate(bob, { token: "client-proof-other" });
    await honest.postTransaction(other, "commit");
    assert.deepEqual(await honest.getTransaction(tx.id, { verify: true }), tx);
    const proof = await honest.getProof(tx.id);
    assert.equal(proof.transaction_id, tx.id);

    const flipped = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);
    const tampered = new LedgerdClient(node().baseUrl, {
      fetch: lyingFetch((p) => ({ ...p, app_hash: flipped(p.app_hash) })),
    });
    await assert.rejects(tampered.getTransaction(tx.id, { verify: true }), (error: unknown) => error instanceof ProofRefused && /app hash/.test(error.reason));
    // Without verify, the same lying node is believed: verify is what refuses it.
    assert.deepEqual(await tampered.getTransaction(tx.id), tx);

    // The body recomputed: the same id and a true proof, but the metadata changed.
    const rewriting = new LedgerdClient(node().baseUrl, { fetch: bodyChangingFetch });
    await assert.rejects(rewriting.getTransaction(tx.id, { verify: true }), (error: unknown) => error instanceof ProofRefused && /does not hash to its id/.test(error.reason));
    // An answer that is JSON but no transaction is a ProofRefused, not a TypeError.
    for (const [answer, named] of [["null", "null"], ["[1]", "[1]"]] as const) {
      const odd = new LedgerdClient(node().baseUrl, { fetch: answeringTransaction(answer) });
      await assert.rejects(odd.getTransaction(tx.id, { verify: true }), (error: unknown) => error instanceof ProofRefused && error.reason === `the node answered transaction ${named}`);
    }
    // Numbers are read exactly: 0.1 + 0.2 and 2^53 + 1 hash as written.
    const exact = driverCreate(alice, { token: "client-exact", sum: 0.30000000000000004, big: 9007199254740993n.toString() });
    await honest.postTransaction(exact, "commit");
    assert.deepEqual(await honest.getTransaction(exact.id, { verify: true }), exact);

    const otherProof = await honest.getProof(other.id);
    const swapped = new LedgerdClient(node().baseUrl, { fetch: lyingFetch(() => otherProof) });
    await assert.rejects(swapped.getTransaction(tx.id, { verify: true }), (error: unknown) => error instanceof ProofRefused && error.reason.includes(other.id));

    // A solo node signs no headers: asked for the validators' signature, the proof is refused.
    const validators = [{ address: "AA".repeat(20), pub_key: "11".repeat(32), power: 10 }];
    await assert.rejects(honest.getTransaction(tx.id, { verify: { validators: validators as never } }), (error: unknown) =>
      error instanceof ProofRefused && /signed header/.test(error.reason));
  });

  it("verifies a checkpoint by the key it pins, and reads with proof against the checkpoint it keeps", async () => {
    const client = new LedgerdClient(node().baseUrl);
    const tx = driverCreate(alice, { token: "client-checkpoint" });
    await client.postTransaction(tx, "commit");
    const key = await client.getCheckpointKey();
    const kept = await client.verifiedCheckpoint(key);
    assert.ok(kept.height >= (await client.blocksOf(tx.id))[0]!);
    assert.deepEqual(await client.getTransaction(tx.id, { checkpoint: kept }), tx);
    // A checkpoint of another history: the proof does not reach it.
    const root = Buffer.from(kept.root, "base64");
    root[0]! ^= 1;
    const forged = { ...kept, appHash: appHashV1(kept.size, root) };
    await assert.rejects(client.getTransaction(tx.id, { checkpoint: forged }), (error: unknown) => error instanceof ProofRefused && /checkpoint/.test(error.reason));
    // Another key than the node's: the checkpoint is refused.
    const other = verifierKeyOf({ name: key.split("+")[0]!, publicKey: new Uint8Array(32).fill(7) });
    await assert.rejects(client.verifiedCheckpoint(other), CheckpointRefused);
  });

  it("runs in a browser: bundled for the browser platform, in a context with browser globals only, it reads with proof", async () => {
    const entry = new URL("../../../src/client/client.ts", import.meta.url).pathname;
    const bundle = await build({ entryPoints: [entry], bundle: true, platform: "browser", format: "iife", globalName: "ledgerdClient", write: false, logLevel: "silent" });
    const code = bundle.outputFiles[0]!.text;
    assert.doesNotMatch(code, /require\(["']node:/);
    const client = new LedgerdClient(node().baseUrl);
    const tx = driverCreate(alice, { token: "client-browser" });
    await client.postTransaction(tx, "commit");
    // The browser's fetch is the only door out of the context; like a browser's, it refuses to
    // be called as a method of another object ("Illegal invocation").
    function browserFetch(this: unknown, url: string, init?: RequestInit): Promise<Response> {
      if (typeof this === "object" && this !== null && "getTransaction" in this) throw new TypeError("Illegal invocation");
      return fetch(url, init);
    }
    const browser = { TextEncoder, TextDecoder, atob, URL, fetch: browserFetch, bodyChangingFetch, baseUrl: node().baseUrl, id: tx.id, result: undefined as unknown };
    // It recomputes the id from the body there too (with @noble/hashes's SHA3), and refuses a changed one.
    await runInNewContext(`${code}
      const { LedgerdClient } = ledgerdClient;
      result = new LedgerdClient(baseUrl).getTransaction(id, { verify: true }).then((read) =>
        new LedgerdClient(baseUrl, { fetch: bodyChangingFetch }).getTransaction(id, { verify: true })
          .then(() => "believed", (error) => error.name + ": " + error.reason)
          .then((changed) => JSON.stringify([read.id, changed, typeof require, typeof process])));`, browser);
    assert.equal(await browser.result, JSON.stringify([tx.id, "ProofRefused: the transaction's body does not hash to its id", "undefined", "undefined"]));
  });

  it("is what the package exports as ledgerd/client", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, { default: string; types: string }> };
    assert.deepEqual(pkg.exports["./client"], { types: "./dist/src/client/client.d.ts", default: "./dist/src/client/client.js" });
  });
});
