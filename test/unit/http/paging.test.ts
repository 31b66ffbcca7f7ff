// Paging over HTTP on a real stack (docs/http-api.md "Paging"): every list walks page by page
// through `Link: <...>; rel="next"` to exactly the unpaged answer, while blocks commit between
// pages; outputs say what they hold on request; balances, paged by asset; server.list_max; and
// every bad paging input a 400.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { after, before, describe, test } from "node:test";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";
import { commit, expectJson, get, startHttpStack, type HttpStack } from "./helpers.js";
import { rawExchange } from "./rawSocket.js";

describe("paging", () => {
  let http: HttpStack;
  const alice = keypairOf("pager-alice");
  const bob = keypairOf("pager-bob");
  const creates: JsonObject[] = [];
  const history: JsonObject[] = [];

  before(async () => {
    http = await startHttpStack({ blockIntervalMs: 5 });
    for (let i = 0; i < 5; i++) {
      const tx = create(alice, BigInt(10 + i), { pager: "word", i });
      creates.push(tx);
      await commit(http.app, tx);
    }
    // An asset's history: its CREATE, then each TRANSFER spending the one before.
    history.push(creates[0]!);
    for (let i = 0; i < 4; i++) {
      const owner = i % 2 === 0 ? alice : bob;
      const next = i % 2 === 0 ? bob : alice;
      const tx = transfer([{ tx: history[history.length - 1]!, outputIndex: 0 }], [owner], [{ publicKeys: [next.publicKey], amount: 10n }]);
      history.push(tx);
      await commit(http.app, tx);
    }
  });
  after(() => http.close());

  const id = (tx: JsonObject) => tx["id"] as string;
  const body = async (app: FastifyInstance, url: string): Promise<{ items: unknown[]; next: string | undefined }> => {
    const response = await get(app, url);
    expectJson(response, 200);
    const link = response.headers["link"] as string | undefined;
    const next = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
    return { items: JSON.parse(response.body) as unknown[], next };
  };
  /** Follows `Link` from `url` to the end, running `between` after each page. */
  const walk = async (url: string, between: () => Promise<void> = async () => {}): Promise<unknown[][]> => {
    const pages: unknown[][] = [];
    let next: string | undefined = url;
    while (next !== undefined) {
      const page = await body(http.app, next);
      pages.push(page.items);
      next = page.next;
      await between();
    }
    return pages;
  };
  const refused = async (url: string, text: RegExp, app = http.app) => {
    const response = await get(app, url);
    expectJson(response, 400);
    assert.match((JSON.parse(response.body) as { message: string }).message, text, url);
  };

  test("outputs, transactions of an asset and search walk to exactly the unpaged answer", async () => {
    const lists = [
      `/api/v1/outputs?public_key=${alice.publicKey}`,
      `/api/v1/outputs?public_key=${alice.publicKey}&spent=false`,
      `/api/v1/transactions?asset_id=${id(creates[0]!)}`,
      `/api/v1/transactions?asset_id=${id(creates[0]!)}&operation=TRANSFER`,
      "/api/v1/assets?search=word",
    ];
    for (const url of lists) {
      const whole = (await body(http.app, url)).items;
      assert.ok(whole.length >= 3, url);
      for (const limit of [1, 2, whole.length - 1]) {
        const pages = await walk(`${url}&limit=${limit}`);
        assert.deepEqual(pages.flat(), whole, `${url} by ${limit}`);
        assert.ok(pages.every((page) => page.length <= limit));
      }
      // A limit that holds everything: no Link.
      assert.equal((await body(http.app, `${url}&limit=${whole.length}`)).next, undefined);
      // A cursor without a limit continues with the rest (no server.list_max here).
      const first = await body(http.app, `${url}&limit=1`);
      const rest = await body(http.app, first.next!.replace("&limit=1", ""));
      assert.deepEqual([...first.items, ...rest.items], whole, `${url}: the rest after a cursor`);
      assert.equal(rest.next, undefined);
    }
  });

  test("a walk sees the ledger of its first page, whatever commits between its pages", async () => {
    const url = `/api/v1/outputs?public_key=${alice.publicKey}&spent=false`;
    const before = (await body(http.app, url)).items;
    const spendable = creates.slice(1, 3);
    const pending = [
      create(alice, 99n, { pager: "later" }), // a new output of the key: not in this walk
      transfer([{ tx: spendable[0]!, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 11n }]),
      transfer([{ tx: spendable[1]!, outputIndex: 0 }], [alice], [{ publicKeys: [bob.publicKey], amount: 12n }]),
    ];
    const pages = await walk(`${url}&limit=1`, async () => {
      const tx = pending.shift();
      if (tx !== undefined) await commit(http.app, tx);
    });
    assert.equal(pending.length, 0, "every commit ran during the walk");
    assert.deepEqual(pages.flat(), before, "every output unspent at the start, exactly once");
    const now = (await body(http.app, url)).items as { transaction_id: string }[];
    assert.equal(now.length, before.length - 1, "a new walk sees the two spends and the new output");
  });

  test("outputs with include=amount,asset_id; without it, BigchainDB's bytes", async () => {
    const key = bob.publicKey;
    const plain = await get(http.app, `/api/v1/outputs?public_key=${key}`);
    expectJson(plain, 200);
    assert.match(plain.body, /^\[\{"transaction_id": "[0-9a-f]{64}", "output_index": 0\}/);
    for (const include of ["amount,asset_id", "asset_id,amount"]) {
      const rich = (await body(http.app, `/api/v1/outputs?public_key=${key}&include=${include}`)).items as Record<string, unknown>[];
      assert.deepEqual(rich.map((o) => ({ transaction_id: o["transaction_id"], output_index: o["output_index"] })), JSON.parse(plain.body));
      assert.deepEqual(Object.keys(rich[0]!), ["transaction_id", "output_index", "amount", "asset_id"]);
      assert.equal(rich[0]!["amount"], "10");
      assert.equal(rich[0]!["asset_id"], id(creates[0]!));
    }
    const one = (await body(http.app, `/api/v1/outputs?public_key=${key}&include=amount`)).items as Record<string, unknown>[];
    assert.deepEqual(Object.keys(one[0]!), ["transaction_id", "output_index", "amount"]);
    await refused(`/api/v1/outputs?public_key=${key}&include=nonsense`, /include: 'nonsense' is not one of amount, asset_id/);
    await refused(`/api/v1/outputs?public_key=${key}&include=amount,amount`, /include: names a field twice/);
    await refused(`/api/v1/outputs?public_key=${key}&include=`, /include: '' is not one of/);
  });

  test("balances: what the key alone may spend, per asset", async () => {
    const alices = (await body(http.app, `/api/v1/balances?public_key=${alice.publicKey}`)).items as { asset_id: string; amount: string }[];
    const outputs = (await body(http.app, `/api/v1/outputs?public_key=${alice.publicKey}&spent=false&include=amount,asset_id`)).items as { asset_id: string; amount: string }[];
    const sums = new Map<string, bigint>();
    for (const o of outputs) sums.set(o.asset_id, (sums.get(o.asset_id) ?? 0n) + BigInt(o.amount));
    const expected = [...sums].sort(([a], [b]) => (a < b ? -1 : 1)).map(([asset_id, sum]) => ({ asset_id, amount: String(sum) }));
    assert.deepEqual(alices, expected);
    const response = await get(http.app, `/api/v1/balances?public_key=${alice.publicKey}&asset_id=${expected[0]!.asset_id}`);
    expectJson(response, 200, `[{"asset_id": "${expected[0]!.asset_id}", "amount": "${expected[0]!.amount}"}]`);
    await refused(`/api/v1/balances?public_key=${alice.publicKey}&asset_id=nothex`, /asset_id/);
    await refused(`/api/v1/balances?public_key=${alice.publicKey}&limit=0x2`, /limit/);
    await refused(`/api/v1/balances?public_key=${alice.publicKey}&page=2`, /Unknown arguments: page/);
    await refused("/api/v1/balances", /public_key/);
  });

  test("balances page by asset: every asset once, in order, its whole sum; cursors of this query only", async () => {
    const url = `/api/v1/balances?public_key=${alice.publicKey}`;
    const whole = (await body(http.app, url)).items;
    assert.ok(whole.length >= 3);
    for (const limit of [1, 2, whole.length - 1]) {
      const pages = await walk(`${url}&limit=${limit}`);
      assert.deepEqual(pages.flat(), whole, `by ${limit}`);
      assert.equal(pages.length, Math.ceil(whole.length / limit), `by ${limit}`);
    }
    assert.equal((await body(http.app, `${url}&limit=${whole.length}`)).next, undefined);
    const first = await body(http.app, `${url}&limit=1`);
    const rest = await body(http.app, first.next!.replace("&limit=1", ""));
    assert.deepEqual([...first.items, ...rest.items], whole);
    // A cursor of another key's balances, of one asset's, or of the outputs: refused.
    const cursor = /cursor=([^&]+)/.exec(first.next!)![1]!;
    const one = (whole[0] as { asset_id: string }).asset_id;
    await refused(`/api/v1/balances?public_key=${bob.publicKey}&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    await refused(`${url}&asset_id=${one}&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    await refused(`/api/v1/outputs?public_key=${alice.publicKey}&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    // One asset: a page of it, and no next page.
    const asset = await body(http.app, `${url}&asset_id=${one}&limit=1`);
    assert.deepEqual(asset.items, [whole[0]]);
    assert.equal(asset.next, undefined);
  });

  test("server.list_max applies to balances: past it refused, pages still work", async () => {
    const url = `/api/v1/balances?public_key=${alice.publicKey}`;
    const whole = (await body(http.app, url)).items;
    const capped = await http.appWith({ listMax: whole.length - 1 });
    await refused(url, /server\.list_max\): page it with limit and cursor/, capped);
    const pages = [];
    let next: string | undefined = `${url}&limit=2`;
    while (next !== undefined) {
      const page = await body(capped, next);
      pages.push(...page.items);
      next = page.next;
    }
    assert.deepEqual(pages, whole);
    const exact = await http.appWith({ listMax: whole.length });
    assert.deepEqual((await body(exact, url)).items, whole);
  });

  test("bad paging input is a 400 that says what is wrong", async () => {
    const outputs = `/api/v1/outputs?public_key=${alice.publicKey}`;
    await refused(`${outputs}&limit=-1`, /limit: must be a whole number/);
    await refused(`${outputs}&limit=1e12`, /limit: invalid literal/);
    await refused(`${outputs}&limit=1000000000000`, /limit: 1000000000000 is over the maximum/);
    await refused(`${outputs}&limit=abc`, /limit: invalid literal/);
    await refused(`${outputs}&cursor=forged`, /cursor: not a cursor this node gave/);
    await refused(`${outputs}&limit=1&limit=2`, /limit/);
    const next = (await body(http.app, `${outputs}&limit=1`)).next!;
    const cursor = /cursor=([^&]+)/.exec(next)![1]!;
    await refused(`/api/v1/outputs?public_key=${bob.publicKey}&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    await refused(`${outputs}&spent=true&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    await refused(`/api/v1/transactions?asset_id=${id(creates[0]!)}&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    await refused(`/api/v1/transactions?asset_id=${id(creates[0]!)}&last_tx=true&limit=1`, /last_tx: answers one transaction/);
    await refused(`/api/v1/blocks?transaction_id=${id(creates[0]!)}&cursor=${cursor}`, /cursor: not a cursor this node gave/);
    const block = await get(http.app, `/api/v1/blocks?transaction_id=${id(creates[0]!)}&limit=1`);
    expectJson(block, 200);
    assert.equal((JSON.parse(block.body) as number[]).length, 1);
  });

  test("a cursor from a ledger further along (another node's, or forged with a later snapshot) is refused", async () => {
    const outputs = `/api/v1/outputs?public_key=${alice.publicKey}`;
    const next = (await body(http.app, `${outputs}&limit=1`)).next!;
    const cursor = /cursor=([^&]+)/.exec(next)![1]!;
    const [scope, position] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const [snapshot, ...rest] = position.split(".");
    const later = Buffer.from(JSON.stringify([scope, [Number(snapshot) + 1000, ...rest].join(".")])).toString("base64url");
    await refused(`${outputs}&cursor=${later}`, /cursor: not a cursor this node gave/);
  });

  test("a Link names the route's path and the parameters it read, re-encoded; a '#' in the target is a 400", async () => {
    // Parameters the search ignores still go back, encoded: nothing raw reaches the header.
    const url = "/api/v1/assets/?limit=1&search=word&note=a%3E%3B%20rel%3D%22x%22%2C%3Chttps%3A%2F%2Fevil.example%3E%20%C3%A9";
    const first = await get(http.app, url);
    expectJson(first, 200);
    const link = first.headers["link"] as string;
    const cursor = /cursor=([\w-]+)>/.exec(link)![1]!;
    const note = "note=a%3E%3B%20rel%3D%22x%22%2C%3Chttps%3A%2F%2Fevil.example%3E%20%C3%A9";
    assert.equal(link, `</api/v1/assets?limit=1&search=word&${note}&cursor=${cursor}>; rel="next"`);
    assert.deepEqual((await walk(url)).flat(), (await body(http.app, "/api/v1/assets?search=word")).items);
    // The router would read what follows a '#' as the query: refused on both ways in, the POST
    // lane's too. A client never sends a fragment, so only raw bytes can carry one.
    await http.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (http.app.server.address() as AddressInfo).port;
    const targets = [
      "GET /api/v1/assets#search=car>;rel=x,<https://evil.example/p>;rel=next,<&limit=1",
      "GET /api/v1/assets?search=car#x",
      "POST /api/v1/transactions#mode=commit",
    ];
    for (const target of targets) {
      const answer = await rawExchange(port, `${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}`).answer;
      assert.equal(answer.status, 400, target);
      assert.equal(answer.headers.get("link"), undefined, target);
      assert.deepEqual(JSON.parse(answer.body), { message: "A request target holds no '#' (a fragment is not sent): encode it as %23", status: 400 }, target);
    }
  });

  test("a query whose escapes are not UTF-8 is a 400; every Link round-trips", async () => {
    for (const url of ["/api/v1/assets?search=X%FF&limit=1", "/api/v1/assets?search=word&limit=1&x=%C3", "/api/v1/outputs?public_key=%ED%A0%80"]) {
      await refused(url, /^The query's %-escapes must encode UTF-8 text$/);
    }
    // A '%' without two hex digits is a literal '%', as before.
    expectJson(await get(http.app, "/api/v1/assets?search=50%&limit=1"), 200, "[]");
    for (let i = 0; i < 2; i++) await commit(http.app, create(alice, BigInt(1 + i), { pager: "café 50% ünï" }));
    const whole = (await body(http.app, "/api/v1/assets?search=caf%C3%A9")).items;
    assert.equal(whole.length, 2);
    assert.deepEqual((await walk("/api/v1/assets?search=caf%C3%A9&limit=1")).flat(), whole);
  });

  test("a forged search position (a rank past the matches) is refused", async () => {
    const next = (await body(http.app, "/api/v1/assets?search=word&limit=1")).next!;
    const cursor = /cursor=([^&]+)/.exec(next)![1]!;
    const [scope, position] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const snapshot = position.split(".")[0]!;
    const forged = Buffer.from(JSON.stringify([scope, `${snapshot}.999999999`])).toString("base64url");
    await refused(`/api/v1/assets?search=word&limit=1&cursor=${forged}`, /cursor: not a cursor this node gave/);
    await refused(`/api/v1/assets?search=word&cursor=${forged}`, /cursor: not a cursor this node gave/);
  });

  test("server.list_max: an unpaged list past it is refused before any byte; pages still work", async () => {
    const capped = await http.appWith({ listMax: 3 });
    const outputs = `/api/v1/outputs?public_key=${alice.publicKey}`;
    const whole = (await body(http.app, outputs)).items;
    assert.ok(whole.length > 3);
    await refused(outputs, /more than 3 items \(server\.list_max\): page it with limit and cursor/, capped);
    const response = await get(capped, outputs);
    assert.equal((JSON.parse(response.body) as { status: number }).status, 400);
    // A cursor alone continues with pages of list_max items.
    const first = await body(capped, `${outputs}&limit=2`);
    const second = await body(capped, first.next!.replace(/&limit=2/, ""));
    assert.equal(second.items.length, 3);
    // At or under the cap, the unpaged answer is whole.
    assert.deepEqual((await body(capped, `/api/v1/transactions?asset_id=${id(creates[1]!)}`)).items.length, 2);
    await refused(`/api/v1/transactions?asset_id=${id(creates[0]!)}`, /server\.list_max/, capped);
    await refused("/api/v1/assets?search=word", /server\.list_max/, capped);
  });
});
