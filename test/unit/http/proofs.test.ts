// GET /api/v1/proofs/... on a real solo stack: the proofs verify with the verifier alone and
// reach the app hash the ledger committed; bad input is a 4xx; a chain that keeps BigchainDB's
// app hash answers 409.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { verifyConsistencyProof, verifyTransactionProof, type ConsistencyProof, type SignedHeader, type TransactionProof } from "../../../src/proofs/verify.js";
import type { SignedHeaders } from "../../../src/http/routes/proofs.js";
import { validatorChangeHeadersAtOnceMax } from "../../../src/ledger/validatorChanges.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { bytesOf, create, keypairOf } from "../../helpers/txFactory.js";
import { assertDescribed } from "../../helpers/openapiConformance.js";
import { commit, errorBody, expectJson, get, startHttpStack, type HttpStack } from "./helpers.js";

describe("GET /api/v1/proofs", () => {
  let http: HttpStack;
  const ids: string[] = [];
  before(async () => {
    http = await startHttpStack();
    for (let i = 0; i < 5; i++) {
      const tx = create(keypairOf(`proof-${i}`), 1n, { proof: i });
      await commit(http.app, tx);
      ids.push(tx["id"] as string);
    }
  });
  after(() => http.close());

  const described = (key: string, response: Awaited<ReturnType<typeof get>>) =>
    assertDescribed(key, { status: response.statusCode, contentType: String(response.headers["content-type"]), body: response.body });

  it("proves each committed transaction to the last app hash", async () => {
    const head = await http.stack.store.getChainState();
    for (const id of ids) {
      const response = await get(http.app, `/api/v1/proofs/transactions/${id}`);
      expectJson(response, 200);
      described("GET /api/v1/proofs/transactions/{transaction_id}", response);
      const proof = JSON.parse(response.body) as TransactionProof;
      assert.equal(proof.signed_header, null);
      assert.equal(proof.height, head.height);
      assert.equal(proof.app_hash, head.appHash);
      const verdict = verifyTransactionProof(proof, {}, id);
      assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
      assert.equal(verifyTransactionProof(proof, {}, ids.find((other) => other !== id)).ok, false);
    }
  });

  it("proves to an earlier height with ?height, and not to one before the transaction", async () => {
    const height = (await http.stack.store.getBlockHeightOfTransaction(ids[1]!))!;
    const response = await get(http.app, `/api/v1/proofs/transactions/${ids[1]}?height=${height}`);
    expectJson(response, 200);
    const proof = JSON.parse(response.body) as TransactionProof;
    assert.equal(proof.app_hash, (await http.stack.store.getBlock(height))!.appHash);
    assert.ok(verifyTransactionProof(proof).ok);
    // Each was committed (mode=commit) before the next was posted: in a block of its own.
    const early = (await http.stack.store.getBlockHeightOfTransaction(ids[0]!))!;
    assert.ok(early < height);
    // A height asked before the transaction's block can never prove it: 400, not "retry"
    // (issue 36 #7); leading zeros change nothing.
    const message = `height: The transaction is in block ${height}, after height ${early}: ask for a height of ${height} or more`;
    for (const asked of [`${early}`, `00${early}`]) {
      const never = await get(http.app, `/api/v1/proofs/transactions/${ids[1]}?height=${asked}`);
      expectJson(never, 400, errorBody(400, message));
      assert.equal(never.headers["retry-after"], undefined);
    }
  });

  it("a height parameter is at most 20 digits, and one past 2^53 is a block no chain has", async () => {
    const tooLong = `${"0".repeat(20)}1`;
    for (const url of [`/api/v1/proofs/transactions/${ids[0]}?height=${tooLong}`, `/api/v1/proofs/consistency?from=${tooLong}`]) {
      const name = url.includes("from=") ? "from" : "height";
      expectJson(await get(http.app, url), 400, errorBody(400, `${name}: A block height has at most 20 digits`));
    }
    for (const height of ["9007199254740993", "18446744073709551616"]) {
      const notFound = errorBody(404, `No block at height ${height}`);
      expectJson(await get(http.app, `/api/v1/proofs/transactions/${ids[0]}?height=${height}`), 404, notFound);
      expectJson(await get(http.app, `/api/v1/proofs/consistency?from=1&to=${height}`), 404, notFound);
    }
  });

  it("an error's log line holds at most 512 characters of the URL", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString("utf8"));
        done();
      },
    });
    const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, logger: pino({ level: "debug" }, sink) });
    try {
      const url = `/api/v1/proofs/transactions/${ids[0]}?height=${"0".repeat(15_000)}1`;
      expectJson(await get(app, url), 400);
      const logged = lines.map((line) => JSON.parse(line) as { url?: string }).find((line) => line.url !== undefined);
      assert.equal(logged?.url, `${url.slice(0, 512)}... (${url.length - 512} more characters)`);
    } finally {
      await app.close();
    }
  });

  it("proves the history consistent between two heights", async () => {
    const head = (await http.stack.store.getChainState()).height;
    for (let from = 1; from <= head; from++) {
      const response = await get(http.app, `/api/v1/proofs/consistency?from=${from}&to=${head}`);
      expectJson(response, 200);
      described("GET /api/v1/proofs/consistency", response);
      const proof = JSON.parse(response.body) as ConsistencyProof;
      assert.ok(verifyConsistencyProof(proof).ok, `from ${from}`);
    }
    const latest = JSON.parse((await get(http.app, "/api/v1/proofs/consistency?from=1")).body) as ConsistencyProof;
    assert.equal(latest.to.height, head);
  });

  it("answers bad input with a 4xx", async () => {
    const cases: [string, number][] = [
      [`/api/v1/proofs/transactions/${"0".repeat(64)}`, 404],
      ["/api/v1/proofs/transactions/nothex", 404],
      [`/api/v1/proofs/transactions/${ids[0]}?height=0`, 400],
      [`/api/v1/proofs/transactions/${ids[0]}?height=x`, 400],
      [`/api/v1/proofs/transactions/${ids[0]}?height=99999999`, 404],
      [`/api/v1/proofs/transactions/${ids[0]}?other=1`, 400],
      ["/api/v1/proofs/consistency", 400],
      ["/api/v1/proofs/consistency?from=2&to=1", 400],
      ["/api/v1/proofs/consistency?from=1&to=99999999", 404],
      ["/api/v1/proofs/consistency?from=99999999", 404],
      ["/api/v1/proofs/consistency?from=-1", 400],
      ["/api/v1/proofs/consistency?from=1&from=2", 400],
      // A solo node signs no headers: no validator set to follow.
      ["/api/v1/proofs/validator-changes", 409],
      ["/api/v1/proofs/validator-changes?from_height=0", 400],
      ["/api/v1/proofs/validator-changes?other=1", 400],
    ];
    for (const [url, status] of cases) {
      const response = await get(http.app, url);
      expectJson(response, status);
      assert.equal((JSON.parse(response.body) as { status: number }).status, status, url);
    }
  });
});

describe("GET /api/v1/proofs with CometBFT's signed headers", () => {
  /** Headers as CometBFT's RPC would give them (the route passes them on unread), and each call. */
  function signedHeaders(latestHeight: () => number) {
    const calls: string[] = [];
    const headerOf = (height: number) => ({ header: { height: String(height), chain_id: "test-chain" }, commit: { height: String(height) } }) as unknown as SignedHeader;
    const headers: SignedHeaders = {
      async latestSignedHeader() {
        calls.push("latest");
        return headerOf(latestHeight());
      },
      async signedHeader(height: number) {
        calls.push(`commit ${height}`);
        return headerOf(height);
      },
    };
    return { calls, headers };
  }

  it("reads the RPC once for a proof to the last signed height, twice for an earlier one", async () => {
    const http = await startHttpStack();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const tx = create(keypairOf(`signed-proof-${i}`), 1n, { signed: i });
        await commit(http.app, tx);
        ids.push(tx["id"] as string);
      }
      const head = (await http.stack.store.getChainState()).height;
      // CometBFT's last block is the next one: its header carries the app hash after `head`.
      const rpc = signedHeaders(() => head + 1);
      const withHeaders = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, signedHeaders: rpc.headers });
      try {
        const latest = JSON.parse((await get(withHeaders, `/api/v1/proofs/transactions/${ids[2]}`)).body) as TransactionProof;
        assert.equal(latest.height, head);
        assert.equal(Number(latest.signed_header!.header.height), head + 1);
        assert.deepEqual(rpc.calls.splice(0), ["latest"]);

        const early = (await http.stack.store.getBlockHeightOfTransaction(ids[0]!))!;
        assert.ok(early < head);
        const earlier = JSON.parse((await get(withHeaders, `/api/v1/proofs/transactions/${ids[0]}?height=${early}`)).body) as TransactionProof;
        assert.equal(earlier.height, early);
        assert.equal(Number(earlier.signed_header!.header.height), early + 1);
        assert.deepEqual(rpc.calls.splice(0), ["latest", `commit ${early + 1}`]);

        const consistency = JSON.parse((await get(withHeaders, `/api/v1/proofs/consistency?from=${early}`)).body) as ConsistencyProof;
        assert.equal(consistency.to.height, head);
        assert.equal(Number(consistency.from.signed_header!.header.height), early + 1);
        assert.equal(Number(consistency.to.signed_header!.header.height), head + 1);
        assert.deepEqual(rpc.calls.splice(0), ["latest", `commit ${early + 1}`]);

        // The proofs verify as without headers once the (made-up) headers are taken off.
        assert.ok(verifyTransactionProof({ ...latest, signed_header: null }, {}, ids[2]).ok);
        // Without the headers the same app answers as the solo engine does.
        const solo = JSON.parse((await get(http.app, `/api/v1/proofs/transactions/${ids[2]}`)).body) as TransactionProof;
        assert.equal(solo.signed_header, null);
        assert.equal(rpc.calls.length, 0);
      } finally {
        await withHeaders.close();
      }
    } finally {
      await http.close();
    }
  });

  it("serves the validator changes: none on a chain whose set never changed; bad heights are 4xx, later ones 503", async () => {
    const http = await startHttpStack();
    try {
      await commit(http.app, create(keypairOf("changes"), 1n, {}));
      const head = (await http.stack.store.getChainState()).height;
      const rpc = signedHeaders(() => head + 1);
      const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, signedHeaders: rpc.headers });
      try {
        const response = await get(app, "/api/v1/proofs/validator-changes?from_height=1");
        expectJson(response, 200);
        assertDescribed("GET /api/v1/proofs/validator-changes", { status: response.statusCode, contentType: String(response.headers["content-type"]), body: response.body });
        const body = JSON.parse(response.body) as { to_height: number; light_blocks: unknown[]; next_from_height: number | null };
        assert.deepEqual([body.to_height, body.light_blocks, body.next_from_height], [head + 1, [], null]);
        expectJson(await get(app, `/api/v1/proofs/validator-changes?from_height=${head + 1}&to_height=${head}`), 400);
        const later = await get(app, `/api/v1/proofs/validator-changes?to_height=${head + 2}`);
        expectJson(later, 503);
        assert.equal(later.headers["retry-after"], "1");
        // A proof links to the changes up to its header.
        const tx = (await http.stack.store.getBlockIds(head))![0]!;
        assert.equal((await get(app, `/api/v1/proofs/transactions/${tx}`)).headers["link"], `</api/v1/proofs/validator-changes?to_height=${head + 1}>; rel="validator-changes"`);
      } finally {
        await app.close();
      }
    } finally {
      await http.close();
    }
  });

  it("fetches the validator changes' headers side by side, at most a bound at once, in height order", async () => {
    const http = await startHttpStack();
    try {
      for (let i = 0; i < 12; i++) await commit(http.app, create(keypairOf("changes-many"), 1n, { i }));
      const head = (await http.stack.store.getChainState()).height;
      // A set recorded from each even height 2 to 10: ten light blocks, none shared.
      const sets = [1, 2, 4, 6, 8, 10].map((height) => ({ height, validators: [{ publicKey: height.toString(16).padStart(64, "0"), power: 10 }] }));
      const store = new Proxy(http.stack.store, {
        get(target, name) {
          if (name === "getValidatorSetsFrom") return async (from: number, to: number, limit: number) => sets.filter((s) => s.height >= from && s.height <= to).slice(0, limit);
          if (name === "getValidatorSet") return async (height: number) => sets.filter((s) => s.height <= height).pop() ?? null;
          const value = Reflect.get(target, name) as unknown;
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const rpc = signedHeaders(() => head + 1);
      let running = 0;
      let most = 0;
      const slow: SignedHeaders = {
        latestSignedHeader: () => rpc.headers.latestSignedHeader(),
        async signedHeader(height) {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setImmediate(resolve));
          running--;
          return rpc.headers.signedHeader(height);
        },
      };
      const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store, signedHeaders: slow });
      try {
        const response = await get(app, "/api/v1/proofs/validator-changes?from_height=1");
        expectJson(response, 200);
        const body = JSON.parse(response.body) as { light_blocks: { signed_header: SignedHeader }[] };
        assert.deepEqual(body.light_blocks.map((b) => Number(b.signed_header.header.height)), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert.equal(most, validatorChangeHeadersAtOnceMax);
      } finally {
        await app.close();
      }
    } finally {
      await http.close();
    }
  });

  it("answers 503 with Retry-After for a height no signed header carries yet", async () => {
    const http = await startHttpStack();
    try {
      const tx = create(keypairOf("signed-proof-late"), 1n, {});
      await commit(http.app, tx);
      const head = (await http.stack.store.getChainState()).height;
      // CometBFT's last block is the store's own: its app hash is carried by no header yet.
      const rpc = signedHeaders(() => head);
      const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store: http.stack.store, signedHeaders: rpc.headers });
      try {
        const response = await get(app, `/api/v1/proofs/transactions/${tx["id"] as string}?height=${head}`);
        expectJson(response, 503);
        assert.equal(response.headers["retry-after"], "1");
        assert.deepEqual(rpc.calls, ["latest"]);
        // Without a height, the anchor is the last signed one, before the transaction: that one
        // moves on with the chain, so the answer is still "retry".
        const latest = await get(app, `/api/v1/proofs/transactions/${tx["id"] as string}`);
        expectJson(latest, 503);
        assert.equal(latest.headers["retry-after"], "1");
      } finally {
        await app.close();
      }
    } finally {
      await http.close();
    }
  });
});

describe("GET /api/v1/proofs on a chain with BigchainDB's app hash", () => {
  it("answers 409: its app hash proves nothing", async () => {
    const http = await startHttpStack();
    const store = SqliteStore.open({ path: `${http.stack.dir}/old.sqlite` });
    const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0, batchTxsMax: 8 });
    const ledger = await LedgerApp.open({}, { store, pool });
    await ledger.initChain("old", [{ publicKey: "ab".repeat(32), power: 1 }], "bigchaindb");
    const tx = create(keypairOf("old"), 1n, {});
    await ledger.finalizeBlock(1, [bytesOf(tx)]);
    await ledger.commit();
    const app = await buildHttpApp({}, { broadcaster: http.stack.engine, store });
    try {
      const response = await get(app, `/api/v1/proofs/transactions/${tx["id"] as string}`);
      expectJson(response, 409);
      assert.match(response.body, /BigchainDB's app hash/);
      expectJson(await get(app, "/api/v1/proofs/consistency?from=1"), 409);
    } finally {
      await app.close();
      await pool.close();
      await store.close();
      await http.close();
    }
  });
});
