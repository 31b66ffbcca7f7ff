// A node whose checkpoints are cosigned by witnesses (checkpoint.witnesses, src/ledger/
// checkpointWitnesses.ts): two ledgerd witnesses over real sockets cosign the latest checkpoint
// as the history grows (each time with a consistency proof from the size it cosigned last), a
// node that forgot what they cosigned learns it from their 409, and a witness that is down
// leaves the checkpoint short of its quorum. Bad settings are refused.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { ConfigError } from "../../../src/config/configError.js";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { CheckpointNotary } from "../../../src/ledger/checkpoints.js";
import { CheckpointWitnesses, type WitnessTransport } from "../../../src/ledger/checkpointWitnesses.js";
import { Witness } from "../../../src/ledger/witness.js";
import { checkpointNotaryOf, checkpointSignerOf } from "../../../src/node/checkpointSigner.js";
import { createNodeKey } from "../../../src/node/nodeKey.js";
import { fileWitnessState } from "../../../src/node/witnessService.js";
import { cosignatureVerifierKeyOf, verifyCosignature } from "../../../src/proofs/cosignature.js";
import { splitNote } from "../../../src/proofs/signedNote.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { commit, get, startHttpStack, type HttpStack } from "./helpers.js";

const origin = "ledgerd.test/witnessed";
const signer = checkpointSignerOf(keypairOf("witnessed-node"), origin);
const cosigners = [checkpointSignerOf(keypairOf("cosigner-1"), "w1.example/w"), checkpointSignerOf(keypairOf("cosigner-2"), "w2.example/w")];
const post: WitnessTransport = async (url, body) => {
  const response = await fetch(url, { method: "POST", body });
  return { status: response.status, body: await response.text() };
};

describe("a node's checkpoints cosigned by its witnesses", () => {
  let http: HttpStack;
  let dir = "";
  const witnessApps: FastifyInstance[] = [];
  const urls: string[] = [];
  const alice = keypairOf("witnessed-alice");
  let blocks = 0;
  const addBlocks = async (count: number) => {
    for (let i = 0; i < count; i++) await commit(http.app, create(alice, 1n, { n: blocks++ }));
  };
  const witnessesOf = (quorum: number) => new CheckpointWitnesses(cosigners.map((key, i) => ({ key, url: urls[i]! })), quorum, post);
  /** The latest checkpoint through an app whose notary has these witnesses; the names that cosigned it. */
  const cosignedBy = async (notary: CheckpointNotary): Promise<string[]> => {
    const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, checkpoints: notary });
    try {
      const split = splitNote((await get(app, "/api/v1/checkpoint")).body)!;
      return cosigners.filter((key) => split.signatures.some((s) => s.name === key.name && verifyCosignature(key, split.body, s.signature))).map((key) => key.name);
    } finally {
      await app.close();
    }
  };

  before(async () => {
    http = await startHttpStack();
    dir = mkdtempSync(join(tmpdir(), "ledgerd-cosigned-"));
    for (const [i, cosigner] of cosigners.entries()) {
      const witness = new Witness([signer], { cosigner, state: fileWitnessState(join(dir, `w${i}.json`)), now: () => 1_764_000_000_000 });
      const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, witness });
      await app.listen({ host: "127.0.0.1", port: 0 });
      witnessApps.push(app);
      urls.push(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/witness`);
    }
  });
  after(async () => {
    for (const app of witnessApps) await app.close();
    await http.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("both witnesses cosign the latest, again after the history grew, and after the node forgot them", async () => {
    const notary = new CheckpointNotary(signer, witnessesOf(0));
    await addBlocks(3);
    assert.deepEqual(await cosignedBy(notary), ["w1.example/w", "w2.example/w"]);
    await addBlocks(2);
    assert.deepEqual(await cosignedBy(notary), ["w1.example/w", "w2.example/w"]);
    // A restarted node: its first requests say old 0, the witnesses answer 409 with 5.
    await addBlocks(1);
    assert.deepEqual(await cosignedBy(new CheckpointNotary(signer, witnessesOf(2))), ["w1.example/w", "w2.example/w"]);
  });

  test("a split view: a second ledger signed with the same key, other transactions, gets no cosignature", async () => {
    const twin = await startHttpStack();
    try {
      // The twin is a second solo node with the first's key: its history differs from block 1 on.
      const size = (await http.stack.store.getChainState()).historySize;
      for (let i = 0; i < size + 2; i++) await commit(twin.app, create(keypairOf("twin-bob"), 1n, { twin: i }));
      const app = await buildHttpApp({}, { broadcaster: twin.stack.engine, store: twin.stack.store, checkpoints: new CheckpointNotary(signer, witnessesOf(1)) });
      try {
        const note = (await get(app, "/api/v1/checkpoint")).body;
        const split = splitNote(note)!;
        assert.deepEqual(split.signatures.map((s) => s.name), [origin], "only the node's own signature");
      } finally {
        await app.close();
      }
    } finally {
      await twin.close();
    }
  });

  test("requests of one size at once share one signing and one round of the witnesses", async () => {
    let signs = 0;
    let posts = 0;
    const counted = new CheckpointNotary(
      { ...signer, sign: (message) => (signs++, signer.sign(message)) },
      new CheckpointWitnesses(cosigners.map((key, i) => ({ key, url: urls[i]! })), 2, async (url, body) => (posts++, post(url, body))),
    );
    const latest = async () => (await http.stack.store.getChainState()).historySize;
    // Once alone: the notary learns the sizes the witnesses cosigned last (their 409s).
    await counted.at(http.stack.store, await latest(), await latest());
    await addBlocks(1);
    [signs, posts] = [0, 0];
    const size = await latest();
    const answers = await Promise.all(Array.from({ length: 5 }, () => counted.at(http.stack.store, size, size)));
    assert.equal(signs, 1);
    assert.equal(posts, cosigners.length);
    assert.ok(answers.every((answer) => answer === answers[0]), "one answer for all");
    assert.equal(splitNote(answers[0]!.note)!.signatures.length, 1 + cosigners.length);
  });

  test("a witness that is down leaves the checkpoint with the other's cosignature", async () => {
    await witnessApps[1]!.close();
    await addBlocks(1);
    assert.deepEqual(await cosignedBy(new CheckpointNotary(signer, witnessesOf(1))), ["w1.example/w"]);
  });

  test("checkpoint.witnesses must be <cosignature vkey>@<URL>, and the quorum at most their number", () => {
    const data = mkdtempSync(join(tmpdir(), "ledgerd-cosigned-config-"));
    try {
      createNodeKey(data);
      const configOf = (flags: Record<string, string>) => loadConfig({ flags: { data_dir: data, ...flags }, env: {} });
      const good = `${cosignatureVerifierKeyOf(cosigners[0]!)}@http://127.0.0.1:1/api/v1/witness`;
      assert.ok(checkpointNotaryOf(configOf({ "checkpoint.witnesses": good, "checkpoint.witness_quorum": "1" })) !== undefined);
      for (const bad of [cosignatureVerifierKeyOf(cosigners[0]!), `${cosignatureVerifierKeyOf(cosigners[0]!)}@ftp://x`, "nonsense@http://x"]) {
        assert.throws(() => checkpointNotaryOf(configOf({ "checkpoint.witnesses": bad })), ConfigError, bad);
      }
      assert.throws(() => checkpointNotaryOf(configOf({ "checkpoint.witnesses": good, "checkpoint.witness_quorum": "2" })), ConfigError);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
