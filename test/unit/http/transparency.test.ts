// The checkpoint and tiles routes (docs/transparency.md) on a real stack (SQLite file, solo
// engine), through app.inject: the checkpoint is a signed note the verifier key opens, its size
// and root are the app hash's preimage, past sizes are served, tiles hold the stored nodes and
// the entries hash to them; bad sizes and paths are JSON 4xx.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { parseCheckpointBody } from "../../../src/proofs/checkpoint.js";
import { appHashV1 } from "../../../src/proofs/commitment.js";
import { toHex } from "../../../src/proofs/encoding.js";
import { emptyRoot, leafHash, rootOf } from "../../../src/proofs/merkle.js";
import { openNote, parseVerifierKey, verifierKeyOf } from "../../../src/proofs/signedNote.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import type { ConsistencyProof, SignedHeader } from "../../../src/proofs/verify.js";
import { commit, expectJson, get, startHttpStack, testOrigin, type HttpStack } from "./helpers.js";

const blocks = 3;

describe("checkpoints and tiles", () => {
  let http: HttpStack;
  const alice = keypairOf("transparency-alice");

  before(async () => {
    http = await startHttpStack();
    for (let i = 0; i < blocks; i++) await commit(http.app, create(alice, 1n, { block: i }));
  });
  after(() => http.close());

  const checkpointOf = async (url: string) => {
    const key = parseVerifierKey((await get(http.app, "/api/v1/checkpoint/key")).body.trim());
    assert.ok(key !== null);
    const response = await get(http.app, url);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers["content-type"], "text/plain; charset=utf-8");
    const body = openNote(response.body, key);
    assert.ok(body !== null, "the note carries a valid signature by the node key");
    const checkpoint = parseCheckpointBody(body);
    assert.ok(checkpoint !== null);
    return { checkpoint, response, note: response.body };
  };

  test("the latest checkpoint is signed by the node key and its size and root make the app hash", async () => {
    const { checkpoint, response, note } = await checkpointOf("/api/v1/checkpoint");
    const state = await http.stack.store.getChainState();
    assert.equal(checkpoint.origin, testOrigin);
    assert.equal(checkpoint.size, state.historySize);
    assert.equal(appHashV1(checkpoint.size, checkpoint.root), state.appHash);
    assert.equal(response.headers["cache-control"], "public, max-age=2");
    const height = Number(response.headers["ledgerd-checkpoint-height"]);
    assert.equal((await http.stack.store.getBlockHead(height))?.appHash, state.appHash);
    // Exactly one signature line, the key name being the origin (signed-note's form).
    assert.match(note, /^ledgerd\.test\/log\n3\n[A-Za-z0-9+/]{43}=\n\n\u2014 ledgerd\.test\/log [A-Za-z0-9+/]{91}=\n$/u);
    assert.equal((await get(http.app, "/api/v1/tlog/checkpoint")).body, note);
    // A page of another origin reads the height too.
    const fromPage = await get(http.app, "/api/v1/checkpoint", { headers: { origin: "https://explorer.example" } });
    assert.match(String(fromPage.headers["access-control-expose-headers"]), /Ledgerd-Checkpoint-Height/);
  });

  test("a past size's checkpoint is that of the tree then; past the history, 404; malformed, 400", async () => {
    const { checkpoint } = await checkpointOf("/api/v1/checkpoint?size=1");
    assert.equal(checkpoint.size, 1);
    const first = await http.stack.store.getBlockHead(1);
    assert.equal(appHashV1(1, checkpoint.root), first?.appHash);
    const empty = await checkpointOf("/api/v1/checkpoint?size=0");
    assert.equal(toHex(empty.checkpoint.root), toHex(emptyRoot));
    expectJson(await get(http.app, "/api/v1/checkpoint?size=4"), 404);
    expectJson(await get(http.app, "/api/v1/checkpoint?size=99999999999999999"), 400);
    for (const bad of ["", "01", "-1", "x", "1.0"]) expectJson(await get(http.app, `/api/v1/checkpoint?size=${bad}`), 400);
    expectJson(await get(http.app, "/api/v1/checkpoint?height=1"), 400);
  });

  test("the verifier key is signed-note's: name, key ID, base64 of 0x01 and the public key", async () => {
    const text = (await get(http.app, "/api/v1/checkpoint/key")).body;
    const key = parseVerifierKey(text.trim());
    assert.ok(key !== null);
    assert.equal(text, `${verifierKeyOf(key)}\n`);
    assert.ok(text.startsWith(`${testOrigin}+`));
  });

  test("hash tiles hold the stored leaves; entry bundles the leaves' data, length-prefixed", async () => {
    const tile = await get(http.app, "/api/v1/tlog/tile/0/000.p/3");
    assert.equal(tile.statusCode, 200);
    assert.equal(tile.headers["content-type"], "application/octet-stream");
    assert.equal(tile.headers["cache-control"], "public, max-age=3600");
    assert.equal(tile.rawPayload.length, 3 * 32);
    const entries = await get(http.app, "/api/v1/tlog/tile/entries/000.p/3");
    assert.equal(entries.statusCode, 200);
    const bytes = entries.rawPayload;
    assert.equal(bytes.length, 3 * 47);
    for (let i = 0; i < 3; i++) {
      const entry = bytes.subarray(i * 47, (i + 1) * 47);
      assert.equal(entry.readUInt16BE(0), 45);
      assert.equal(entry[2], 0x42); // "B"
      assert.equal(Number(entry.readBigUInt64BE(3)), i + 1);
      assert.equal(toHex(leafHash(entry.subarray(2))), toHex(tile.rawPayload.subarray(i * 32, (i + 1) * 32)));
    }
    const { checkpoint } = await checkpointOf("/api/v1/checkpoint");
    const hashes = (i: number) => tile.rawPayload.subarray(i * 32, (i + 1) * 32);
    assert.equal(toHex(rootOf([0, 1, 2].map(hashes))), toHex(checkpoint.root));
    assert.equal((await get(http.app, "/api/v1/tlog/tile/0/000.p/2")).rawPayload.length, 64);
  });

  test("a tile the tree does not hold yet, or a path the spec does not allow, is a JSON 404", async () => {
    const paths = ["0/000", "0/000.p/4", "entries/000", "1/000.p/1", "0/0", "0/x000/000", "64/000", "0/000.p/0", "0/000.p/256", "0/001.p/01", "x/000", "0/000/"];
    for (const path of paths) expectJson(await get(http.app, `/api/v1/tlog/tile/${path}`), 404);
  });

  test("under CometBFT the latest is of the last signed height, and the proofs' signed header of its height carries its app hash", async () => {
    const head = (await http.stack.store.getChainState()).height;
    // CometBFT's last block is the store's own: the last app hash a header carries is head - 1's.
    const headerOf = (height: number) => ({ header: { height: String(height) }, commit: {} }) as unknown as SignedHeader;
    const signedHeaders = { latestSignedHeader: async () => headerOf(head), signedHeader: async (height: number) => headerOf(height) };
    const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, checkpoints: http.checkpoints, signedHeaders });
    try {
      const response = await get(app, "/api/v1/checkpoint");
      const checkpoint = parseCheckpointBody(response.body.slice(0, response.body.indexOf("\n\n") + 1))!;
      const height = Number(response.headers["ledgerd-checkpoint-height"]);
      assert.equal(height, head - 1);
      assert.equal(checkpoint.size, (await http.stack.store.getBlockHead(head - 1))?.historySize);
      // docs/transparency.md: the checkpoint's size and root are the app hash's preimage.
      const tie = JSON.parse((await get(app, `/api/v1/proofs/consistency?from=${height}&to=${height}`)).body) as ConsistencyProof;
      assert.equal(tie.to.app_hash, appHashV1(checkpoint.size, checkpoint.root));
      assert.equal(tie.to.signed_header?.header.height, String(height + 1));
    } finally {
      await app.close();
    }
  });

  test("a process without a node key answers the checkpoint routes 404 and still serves tiles", async () => {
    const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store });
    try {
      expectJson(await get(app, "/api/v1/checkpoint"), 404);
      expectJson(await get(app, "/api/v1/checkpoint/key"), 404);
      assert.equal((await get(app, "/api/v1/tlog/tile/0/000.p/1")).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
