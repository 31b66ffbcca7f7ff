// ledgerd as a witness (POST /api/v1/witness/add-checkpoint, docs/transparency.md "Witness")
// of a log made here from RFC 9162 trees and a signed-note key, through app.inject: it cosigns a
// checkpoint that extends the last one it cosigned (a timestamped Ed25519 cosignature, C2SP
// tlog-cosignature), answers 409 with the size it knows, 422 to an inconsistent one (the second
// branch of a split view), 404 / 403 / 400 as C2SP tlog-witness names them, and keeps its
// heads in a file across restarts.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { Witness } from "../../../src/ledger/witness.js";
import { checkpointSignerOf } from "../../../src/node/checkpointSigner.js";
import { fileWitnessState } from "../../../src/node/witnessService.js";
import { checkpointBody } from "../../../src/proofs/checkpoint.js";
import { cosignatureVerifierKeyOf, verifyCosignature } from "../../../src/proofs/cosignature.js";
import { toBase64 } from "../../../src/proofs/encoding.js";
import { consistencyPath, emptyRoot, leafHash, leafNodes, rootOf } from "../../../src/proofs/merkle.js";
import { noteKeyId, signedNoteOf, splitNote } from "../../../src/proofs/signedNote.js";
import { keypairOf } from "../../helpers/txFactory.js";
import { assertDescribed } from "../../helpers/openapiConformance.js";
import { expectJson, startHttpStack, type HttpStack } from "./helpers.js";

const origin = "log.example/witnessed";
const logSigner = checkpointSignerOf(keypairOf("witnessed-log"), origin);
const cosigner = checkpointSignerOf(keypairOf("the-witness"), "witness.example/w1");
const leavesOf = (branch: string, count: number) => Array.from({ length: count }, (_, i) => leafHash(new TextEncoder().encode(`${i < 4 ? "" : branch}${i}`)));

/** A checkpoint of the first `size` leaves, signed by `signer` (the log's key by default). */
function checkpointOf(leaves: readonly Uint8Array[], signer = logSigner, root = rootOf(leaves)): string {
  const body = checkpointBody({ origin: signer.name, size: leaves.length, root });
  return signedNoteOf(body, [{ name: signer.name, keyId: noteKeyId(signer), signature: signer.sign(new TextEncoder().encode(body)) }]);
}

function requestOf(oldSize: number, leaves: readonly Uint8Array[], proof?: readonly Uint8Array[], note = checkpointOf(leaves)): string {
  const path = proof ?? (oldSize === 0 ? [] : consistencyPath(leafNodes(leaves), oldSize, leaves.length));
  return `old ${oldSize}\n${path.map((hash) => `${toBase64(hash)}\n`).join("")}\n${note}`;
}

describe("POST /api/v1/witness/add-checkpoint", () => {
  let http: HttpStack;
  let dir = "";
  let app: FastifyInstance;
  const now = 1_764_000_000_000;
  const witnessAt = (path: string) => new Witness([logSigner], { cosigner, state: fileWitnessState(path), now: () => now });
  const appOf = (witness: Witness) => buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, witness });
  const add = (target: FastifyInstance, body: string) => target.inject({ method: "POST", url: "/api/v1/witness/add-checkpoint", payload: body });

  before(async () => {
    http = await startHttpStack();
    dir = mkdtempSync(join(tmpdir(), "ledgerd-witness-"));
    app = await appOf(witnessAt(join(dir, "state.json")));
  });
  after(async () => {
    await app.close();
    await http.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const a = leavesOf("a", 9);
  const b = leavesOf("b", 9);

  test("cosigns a first checkpoint: one timestamped Ed25519 cosignature line over it", async () => {
    const response = await add(app, requestOf(0, a.slice(0, 3)));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers["content-type"], "text/plain; charset=utf-8");
    const note = `${checkpointOf(a.slice(0, 3))}${response.body}`;
    const split = splitNote(note)!;
    const cosignature = split.signatures.find((s) => s.name === "witness.example/w1")!;
    assert.ok(verifyCosignature(cosigner, split.body, cosignature.signature));
    assert.equal(new DataView(cosignature.signature.buffer, cosignature.signature.byteOffset).getBigUint64(0), BigInt(now / 1000));
  });

  test("an old size that is not the one cosigned last is 409 with that size, as text/x.tlog.size", async () => {
    const response = await add(app, requestOf(0, a.slice(0, 5)));
    assert.equal(response.statusCode, 409);
    assert.equal(response.headers["content-type"], "text/x.tlog.size");
    assert.equal(response.body, "3\n");
  });

  test("cosigns what extends it with a valid proof; the same size again only with the same root", async () => {
    assert.equal((await add(app, requestOf(3, a.slice(0, 5)))).statusCode, 200);
    assert.equal((await add(app, requestOf(5, a.slice(0, 5)))).statusCode, 200);
    const other = checkpointOf(b.slice(0, 5));
    expectJson(await add(app, requestOf(5, b.slice(0, 5), [], other)), 422);
  });

  test("the second branch of a split view is refused (422), and the witness still knows the first", async () => {
    // b shares a's first four leaves only: no proof from a's 5 to b's 7 verifies.
    expectJson(await add(app, requestOf(5, b.slice(0, 7), consistencyPath(leafNodes(b.slice(0, 7)), 5, 7))), 422);
    expectJson(await add(app, requestOf(5, a.slice(0, 7), [emptyRoot])), 422);
    assert.equal((await add(app, requestOf(5, a.slice(0, 7)))).statusCode, 200);
  });

  test("after a restart it knows the last size it cosigned", async () => {
    const again = await appOf(witnessAt(join(dir, "state.json")));
    try {
      const response = await add(again, requestOf(0, a.slice(0, 9)));
      assert.equal(response.statusCode, 409);
      assert.equal(response.body, "7\n");
      expectJson(await add(again, requestOf(7, b.slice(0, 9), consistencyPath(leafNodes(b.slice(0, 9)), 7, 9))), 422);
    } finally {
      await again.close();
    }
  });

  test("unknown origin 404, no valid signature by the log 403, malformed bodies 400, JSON errors", async () => {
    const stranger = checkpointSignerOf(keypairOf("stranger"), "stranger.example/log");
    expectJson(await add(app, requestOf(0, a.slice(0, 1), [], checkpointOf(a.slice(0, 1), stranger))), 404);
    const impostor = checkpointSignerOf(keypairOf("impostor"), origin);
    expectJson(await add(app, requestOf(0, a.slice(0, 1), [], checkpointOf(a.slice(0, 1), impostor))), 403);
    const forged = checkpointOf(a.slice(0, 8)).replace(/\n8\n/, "\n9\n");
    expectJson(await add(app, requestOf(7, a.slice(0, 8), undefined, forged)), 403);
    const bodies = ["", "old 7\n", "old 07\n\n" + checkpointOf(a.slice(0, 8)), "new 7\n\n" + checkpointOf(a.slice(0, 8)), "old 7\nnot base64!\n\n" + checkpointOf(a.slice(0, 8)), `old 7\n${"AAAA\n"}\n${checkpointOf(a.slice(0, 8))}`, "old 9\n\n" + checkpointOf(a.slice(0, 8)), "old 0\n\nnot a checkpoint\n"];
    for (const body of bodies) expectJson(await add(app, body), 400);
    const tooLong = `old 7\n${`${toBase64(emptyRoot)}\n`.repeat(64)}\n${checkpointOf(a.slice(0, 8))}`;
    expectJson(await add(app, tooLong), 400);
    const invalidUtf8 = await app.inject({ method: "POST", url: "/api/v1/witness/add-checkpoint", payload: Buffer.from([0x6f, 0xff, 0x0a]) });
    expectJson(invalidUtf8, 400);
  });

  test("a size-0 checkpoint must have the empty tree's root; a proof with old size 0 is refused", async () => {
    const fresh = await appOf(witnessAt(join(dir, "fresh.json")));
    try {
      expectJson(await add(fresh, requestOf(0, [], [], checkpointOf([], logSigner, new Uint8Array(32)))), 422);
      expectJson(await add(fresh, requestOf(0, a.slice(0, 2), [emptyRoot])), 422);
      assert.equal((await add(fresh, requestOf(0, []))).statusCode, 200);
    } finally {
      await fresh.close();
    }
  });

  test("two keys of one origin (two nodes of one chain) share its head: either may extend it", async () => {
    const second = checkpointSignerOf(keypairOf("second-node"), origin);
    const shared = new Witness([logSigner, second], { cosigner, state: fileWitnessState(join(dir, "shared.json")), now: () => now });
    const sharedApp = await appOf(shared);
    try {
      assert.equal((await add(sharedApp, requestOf(0, a.slice(0, 3)))).statusCode, 200);
      const bySecond = checkpointOf(a.slice(0, 5), second);
      assert.equal((await add(sharedApp, requestOf(3, a.slice(0, 5), undefined, bySecond))).statusCode, 200);
      // The second node showing another history is the split view: refused.
      expectJson(await add(sharedApp, requestOf(5, b.slice(0, 7), consistencyPath(leafNodes(b.slice(0, 7)), 5, 7), checkpointOf(b.slice(0, 7), second))), 422);
    } finally {
      await sharedApp.close();
    }
  });

  test("its answers are the ones the OpenAPI document describes", async () => {
    const fresh = await appOf(witnessAt(join(dir, "described.json")));
    const conforms = (response: { statusCode: number; headers: Record<string, unknown>; body: string }) =>
      assertDescribed("POST /api/v1/witness/add-checkpoint", { status: response.statusCode, contentType: String(response.headers["content-type"]), body: response.body });
    try {
      conforms(await add(fresh, requestOf(0, a.slice(0, 2))));
      conforms(await add(fresh, requestOf(0, a.slice(0, 2))));
      conforms(await add(fresh, requestOf(2, b.slice(0, 5), [])));
      conforms(await add(fresh, "old x\n"));
    } finally {
      await fresh.close();
    }
  });

  test("GET /api/v1/witness/key is the cosigner's verifier key, type 0x04", async () => {
    const response = await app.inject({ method: "GET", url: "/api/v1/witness/key" });
    assert.equal(response.body, `${cosignatureVerifierKeyOf(cosigner)}\n`);
    assert.match(response.body, /^witness\.example\/w1\+[0-9a-f]{8}\+B[A-P]/);
  });

  test("a node that witnesses no log answers 404", async () => {
    expectJson(await http.app.inject({ method: "GET", url: "/api/v1/witness/key" }), 404);
    expectJson(await add(http.app, requestOf(0, a.slice(0, 1))), 404);
  });
});

describe("the witness's heads file", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-witness-state-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("is read once, when the witness starts: the heads live in memory, written through", async () => {
    const path = join(dir, "heads.json");
    const state = fileWitnessState(path);
    assert.deepEqual(state.read(), {});
    await state.write({ [origin]: { size: 3, root: toBase64(emptyRoot) } });
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { [origin]: { size: 3, root: toBase64(emptyRoot) } });
    writeFileSync(path, "{}");
    assert.deepEqual(state.read(), { [origin]: { size: 3, root: toBase64(emptyRoot) } }, "read again from the file");
    assert.deepEqual(fileWitnessState(path).read(), {});
  });

  test("is written off the event loop: nothing on disk when write() returns, the heads moved once the file is durable", async () => {
    const path = join(dir, "off-loop.json");
    const state = fileWitnessState(path);
    const next = { [origin]: { size: 5, root: toBase64(emptyRoot) } };
    const writing = state.write(next);
    assert.equal(existsSync(path), false, "not written in the caller's turn");
    assert.deepEqual(state.read(), {}, "not yet durable: the last heads still");
    await writing;
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), next);
    assert.deepEqual(state.read(), next);
  });

  test("that holds no heads stops the witness's start, naming the file, instead of failing each request", () => {
    for (const text of ["{not json", "[]", "null", `{"${origin}": {"size": -1, "root": ""}}`, `{"${origin}": {"size": 1}}`]) {
      const path = join(dir, "broken.json");
      writeFileSync(path, text);
      assert.throws(() => fileWitnessState(path), (error: Error) => error.message.includes(path) && /holds no witness heads/.test(error.message), text);
    }
  });
});
