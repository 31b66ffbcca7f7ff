// The explorer page (issue #17) in a real browser: headless Chromium driven by playwright-core,
// against a started node holding transactions made by the official driver. It follows a
// transaction to its asset's history, searches, sees a transaction posted after the page opened
// appear live, checks a proof, runs axe-core on the home and a transaction page, and points the
// page at nodes of other origins: the node itself (`?node=`) and a BigchainDB-like front that
// lacks ledgerd's additions; and resumes its stream after a drop. Screenshots go to .tmp/explorer-screenshots/ (gitignored).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import driver from "bigchaindb-driver";
import { chromium, type Browser, type Page } from "playwright-core";
import WebSocket, { WebSocketServer } from "ws";
import { balancesPageSize } from "../../explorer/src/limits.js";
import { base58KeyCharsMin } from "../../src/transaction/schemas.js";
import { useStartedNode } from "../helpers/startedNode.js";

// The driver is used as plain JavaScript, as its users do (its typings are narrower than its API).
const { Transaction, Ed25519Keypair } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Tx = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Keypair = { publicKey: string; privateKey: string };

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const bundleDir = "dist/explorer";
const screenshotDir = ".tmp/explorer-screenshots";
/** How long a locator waits for what the page should show (the node commits in milliseconds). */
const waitMs = 15_000;
const testTimeoutMs = 90_000;
const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 900 };
/** limits.ts `idEndChars`: the page shortens ids in lists to this many characters at each end. */
const idEndChars = 8;

const short = (id: string): string => `${id.slice(0, idEndChars)}…${id.slice(-idEndChars)}`;

function keypair(): Keypair {
  for (;;) {
    const pair = new Ed25519Keypair(randomBytes(32)) as Keypair;
    if (pair.publicKey.length >= base58KeyCharsMin) return pair;
  }
}

const ed = (publicKey: string, subcondition = false) => Transaction.makeEd25519Condition(publicKey, !subcondition);

function createTx(owner: Keypair, data: Record<string, unknown>, metadata: Record<string, unknown> | null, amount = "1"): Tx {
  const unsigned = Transaction.makeCreateTransaction(data, metadata, [Transaction.makeOutput(ed(owner.publicKey), amount)], owner.publicKey);
  return Transaction.signTransaction(unsigned, owner.privateKey);
}

function transferTx(from: Tx, owner: Keypair, to: Keypair, metadata: Record<string, unknown> | null): Tx {
  const amount = from.outputs[0].amount as string;
  const unsigned = Transaction.makeTransferTransaction([{ tx: from, output_index: 0 }], [Transaction.makeOutput(ed(to.publicKey), amount)], metadata);
  return Transaction.signTransaction(unsigned, owner.privateKey);
}

/** A CREATE whose one output is a 2-of-2 threshold over `a` and `b`. */
function thresholdTx(a: Keypair, b: Keypair): Tx {
  const condition = Transaction.makeThresholdCondition(2, [ed(a.publicKey, true), ed(b.publicKey, true)]);
  const output = Transaction.makeOutput(condition);
  output.public_keys = [a.publicKey, b.publicKey];
  const unsigned = Transaction.makeCreateTransaction({ shared: "deed", nonce: randomBytes(4).toString("hex") }, null, [output], a.publicKey);
  return Transaction.signTransaction(unsigned, a.privateKey);
}

async function postCommit(baseUrl: string, tx: Tx): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/transactions?mode=commit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(tx),
  });
  assert.equal(response.status, 202, await response.text());
}

async function getJson(url: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return response.json();
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const contentTypes: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** The bundle served from another origin than the node's, as any static host would. */
function staticServer(dir: string): Server {
  return createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const name = path === "/" ? "index.html" : path.slice(1);
    const type = contentTypes[name.slice(name.lastIndexOf("."))];
    if (name.includes("/") || type === undefined || !existsSync(join(dir, name))) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": `${type}; charset=utf-8` }).end(readFileSync(join(dir, name)));
  });
}

/**
 * A front for the node that answers as a BigchainDB 2.x node would: no `blocks/latest`, no
 * balances, no proofs, `include=` and `limit` ignored, and only the `valid_transactions` stream.
 */
function bigchainDbFront(baseUrl: string, streamsUrl: string): { server: Server; sockets: WebSocketServer } {
  let self = "";
  const server = createServer((request, response) => void forward(request, response));
  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", baseUrl);
    self ||= `ws://${request.headers.host}`;
    const cors = { "access-control-allow-origin": "*", "content-type": "application/json" };
    if (/^\/api\/v1\/(blocks\/latest|balances|proofs)/.test(url.pathname)) {
      return void response.writeHead(404, cors).end('{"message": "Not found", "status": 404}');
    }
    url.searchParams.delete("include");
    url.searchParams.delete("limit");
    const answer = await fetch(url);
    let body = await answer.text();
    if (/^\/api\/v1\/?$/.test(url.pathname)) body = JSON.stringify({ ...JSON.parse(body), streams: `${self}/api/v1/streams/valid_transactions` });
    response.writeHead(answer.status, cors).end(body);
  };
  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", (request, socket, head) => {
    if (!(request.url ?? "").endsWith("/valid_transactions")) return void socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
    sockets.handleUpgrade(request, socket, head, (client) => {
      const upstream = new WebSocket(streamsUrl);
      upstream.on("message", (data) => client.send(String(data)));
      client.on("close", () => upstream.close());
    });
  });
  return { server, sockets };
}

/**
 * A front for the node that forwards everything, the streams with their query, and can fail as a
 * network does: `down()` drops its stream connections and refuses new ones until `up()`.
 */
function cuttableFront(baseUrl: string, streamsUrl: string) {
  let self = "";
  let isDown = false;
  const server = createServer((request, response) => void forward(request, response));
  const forward = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", baseUrl);
    self ||= `ws://${request.headers.host}`;
    const answer = await fetch(url);
    let body = await answer.text();
    if (/^\/api\/v1\/?$/.test(url.pathname)) body = JSON.stringify({ ...JSON.parse(body), streams: `${self}/api/v1/streams/valid_transactions` });
    const link = answer.headers.get("link");
    const headers = { "access-control-allow-origin": "*", "access-control-expose-headers": "Link", "content-type": answer.headers.get("content-type") ?? "text/plain" };
    response.writeHead(answer.status, link === null ? headers : { ...headers, link }).end(body);
  };
  const sockets = new WebSocketServer({ noServer: true });
  server.on("upgrade", (request, socket, head) => {
    if (isDown) return void socket.end("HTTP/1.1 503 Service Unavailable\r\n\r\n");
    sockets.handleUpgrade(request, socket, head, (client) => {
      const upstream = new WebSocket(new URL(request.url ?? "/", streamsUrl).href);
      // A cut while the node's socket is still connecting ends it with an 'error' event (ws
      // aborts the handshake): without a listener that would be the test's uncaught exception.
      upstream.on("error", () => client.terminate());
      upstream.on("message", (data) => client.send(String(data)));
      upstream.on("close", () => client.close());
      client.on("close", () => upstream.close());
    });
  });
  return {
    server,
    sockets,
    down(): void {
      isDown = true;
      for (const client of sockets.clients) client.terminate();
    },
    up(): void {
      isDown = false;
    },
  };
}

interface Opened {
  readonly page: Page;
  /** Console errors and uncaught exceptions of the page. */
  readonly errors: string[];
}

type AxeViolation = { id: string; impact: string | null; help: string; nodes: string[] };

/** axe-core's violations of impact serious or critical on the page as it is now. */
async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: "node_modules/axe-core/axe.min.js" });
  const violations = await page.evaluate(async () => {
    type Result = { violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] };
    const axe = (globalThis as unknown as { axe: { run: () => Promise<Result> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

describe("the explorer page, in headless Chromium", () => {
  // Built before the node starts, so that a node reading dist/explorer at start sees this bundle.
  before(() => {
    assert.ok(existsSync(chromiumPath), `no browser at ${chromiumPath}: install Debian's chromium (npm test does) or set CHROMIUM_PATH`);
    const build = spawnSync(process.execPath, ["scripts/build-explorer.mjs"], { encoding: "utf8" });
    assert.equal(build.status, 0, `build-explorer failed:\n${build.stdout}\n${build.stderr}`);
  });
  const node = useStartedNode("explorer");
  const alice = keypair();
  const bob = keypair();
  const word = `zq${randomBytes(5).toString("hex")}`;
  const bike = createTx(alice, { kind: "bicycle", serial: word }, { note: `a shiny red bicycle ${word}` }, "5");
  const sale = transferTx(bike, alice, bob, { price: "100 euro" });
  const deed = thresholdTx(alice, bob);
  let browser: Browser;
  let bundleServer: Server;
  let bundleUrl: string;
  let front: { server: Server; sockets: WebSocketServer };
  let frontUrl: string;
  /** Where the explorer is opened: the node's own `/explorer/`, or the bundle's server with `?node=`. */
  let explorerUrl: string;

  before(async () => {
    for (const tx of [bike, sale, deed]) await postCommit(node().baseUrl, tx);
    mkdirSync(screenshotDir, { recursive: true });
    bundleServer = staticServer(bundleDir);
    bundleUrl = await listen(bundleServer);
    front = bigchainDbFront(node().baseUrl, node().streamsUrl);
    frontUrl = await listen(front.server);
    // Opened as people type it, without the slash: the node sends it on to /explorer/.
    explorerUrl = `${node().baseUrl}/explorer`;
    browser = await chromium.launch({ executablePath: chromiumPath });
  });

  after(async () => {
    await browser?.close();
    bundleServer?.close();
    front?.sockets.close();
    front?.server.close();
  });

  /**
   * Opens `url` in a fresh page, recording its console errors and uncaught exceptions.
   * `forAxe`: the node's Content-Security-Policy would block axe-core's inline script, so such
   * a page bypasses it (the other tests keep it, and would see any violation as a console error).
   */
  async function open(url: string, viewport = desktop, forAxe = false): Promise<Opened> {
    const page = await browser.newPage({ viewport, bypassCSP: forAxe });
    page.setDefaultTimeout(waitMs);
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console: ${message.text()}`);
    });
    page.on("pageerror", (error) => errors.push(`exception: ${error.message}`));
    await page.goto(url);
    return { page, errors };
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });

  it("home: the latest blocks and transactions, the chart, the validators, the checkpoint (consistent when opened again); no serious accessibility violation", { timeout: testTimeoutMs }, async () => {
    const latest = await getJson(`${node().baseUrl}/api/v1/blocks/latest`);
    const { page, errors } = await open(explorerUrl, desktop, true);
    await page.getByRole("heading", { level: 1, name: "Latest on the ledger" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/explorer/", "the node sent /explorer on to /explorer/");
    const blocks = page.getByRole("region", { name: "Latest blocks" });
    await blocks.getByRole("link", { name: String(latest.height), exact: true }).waitFor();
    const row = blocks.getByRole("row").filter({ has: page.getByRole("link", { name: String(latest.height), exact: true }) });
    assert.equal((await row.getByRole("cell").nth(1).innerText()).trim(), String(latest.transactions.length));
    const txs = page.getByRole("region", { name: "Latest transactions" });
    await txs.getByRole("link", { name: short(deed.id), exact: true }).waitFor();
    await txs.getByRole("link", { name: short(sale.id), exact: true }).waitFor();
    const validators = page.getByRole("region", { name: /^Validators \(1\)$/ });
    await validators.getByText("100.0 %").waitFor();
    await page.getByRole("img", { name: /^Chart of the last 60 seconds/ }).waitFor();
    await page.getByRole("status").filter({ hasText: "Stream: live" }).waitFor();
    // The node's checkpoint: the first this browser sees, then, opened again, consistent with it.
    const checkpoint = page.getByRole("region", { name: "Checkpoint" });
    await checkpoint.getByText(/^The first checkpoint of this log this browser sees/).waitFor();
    await checkpoint.getByText("ledgerd.invalid/ledgerd-solo", { exact: true }).waitFor();
    await shot(page, "home");
    assert.deepEqual(await seriousViolations(page), []);
    await page.reload();
    await page.getByRole("region", { name: "Checkpoint" }).getByText(/^Consistent ✓ with the checkpoint of size \d+ this browser saw before\.$/).waitFor();
    await page.setViewportSize(phone);
    await shot(page, "home-phone");
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("a transaction page draws inputs, outputs and metadata, checks its proof, and leads to the asset's history and holder", { timeout: testTimeoutMs }, async () => {
    const { page, errors } = await open(`${explorerUrl}#/tx/${sale.id}`, desktop, true);
    await page.getByRole("heading", { level: 1, name: `Transaction ${sale.id}` }).waitFor();
    const summary = page.getByRole("region", { name: "Summary" });
    await summary.getByText("TRANSFER", { exact: true }).waitFor();
    const inputs = page.getByRole("region", { name: "Inputs (1)" });
    await inputs.getByRole("link", { name: short(bike.id), exact: true }).waitFor();
    assert.match(await inputs.innerText(), /output 0 of/);
    const outputs = page.getByRole("region", { name: "Outputs (1)" });
    await outputs.getByRole("list", { name: "Condition" }).getByRole("link", { name: short(bob.publicKey), exact: true }).waitFor();
    assert.match(await outputs.innerText(), /\b5\b/);
    await page.getByRole("region", { name: "Metadata", exact: true }).getByText('"price": "100 euro"').waitFor();
    const proof = page.getByRole("region", { name: "Proof of inclusion" });
    await proof.getByRole("button", { name: "Check proof" }).click();
    await proof.getByText(/^Verified ✓/).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await shot(page, "transaction");
    await summary.getByRole("link", { name: `asset ${short(bike.id)}`, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: `Asset ${bike.id}` }).waitFor();
    const history = page.getByRole("region", { name: "History (2 transactions)" });
    const steps = history.getByRole("listitem").filter({ has: page.getByRole("link") });
    await steps.first().getByRole("link", { name: short(bike.id), exact: true }).waitFor();
    assert.match(await history.innerText(), /CREATE[\s\S]*TRANSFER/);
    const holders = page.getByRole("region", { name: "Held now by" });
    await holders.getByRole("link", { name: short(bob.publicKey), exact: true }).waitFor();
    assert.equal(await holders.getByRole("link", { name: short(alice.publicKey), exact: true }).count(), 0, "alice spent hers");
    await page.getByRole("region", { name: "Data", exact: true }).getByText(`"serial": "${word}"`).waitFor();
    await shot(page, "asset");
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("a threshold condition is drawn as a tree of its keys", { timeout: testTimeoutMs }, async () => {
    const { page, errors } = await open(`${explorerUrl}#/tx/${deed.id}`, phone);
    const tree = page.getByRole("list", { name: "Condition" });
    await tree.getByText("2 of 2", { exact: true }).waitFor();
    await tree.getByRole("link", { name: short(alice.publicKey), exact: true }).waitFor();
    await tree.getByRole("link", { name: short(bob.publicKey), exact: true }).waitFor();
    // The two keys hang under the gate, one level down.
    assert.equal(await tree.locator(":scope > li > ul > li").count(), 2);
    await shot(page, "threshold-phone");
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("the search box finds a public key, words, a transaction id and a block height", { timeout: testTimeoutMs }, async () => {
    const { page, errors } = await open(explorerUrl);
    const search = async (text: string): Promise<void> => {
      await page.getByRole("searchbox", { name: "Search" }).fill(text);
      await page.getByRole("searchbox", { name: "Search" }).press("Enter");
    };
    await search(bob.publicKey);
    await page.getByRole("heading", { level: 1, name: `Public key ${bob.publicKey}` }).waitFor();
    const balances = page.getByRole("region", { name: "Balances" });
    await balances.getByRole("link", { name: `asset ${short(bike.id)}`, exact: true }).waitFor();
    assert.match(await balances.innerText(), /\b5\b/);
    await page.getByRole("region", { name: "Unspent outputs" }).getByRole("link", { name: short(sale.id), exact: true }).waitFor();
    await shot(page, "key");
    await search(`red ${word}`);
    await page.getByRole("heading", { level: 1, name: `Search: “red ${word}”` }).waitFor();
    await page.getByRole("region", { name: /^Assets/ }).getByRole("link", { name: `asset ${short(bike.id)}`, exact: true }).waitFor();
    await page.getByRole("region", { name: /^Metadata/ }).getByRole("link", { name: short(bike.id), exact: true }).waitFor();
    await search(sale.id.toUpperCase());
    await page.getByRole("heading", { level: 1, name: `Transaction ${sale.id}` }).waitFor();
    const [height] = (await getJson(`${node().baseUrl}/api/v1/blocks?transaction_id=${sale.id}`)) as number[];
    await search(String(height));
    await page.getByRole("heading", { level: 1, name: `Block ${height}` }).waitFor();
    await page.getByRole("region", { name: /^Transactions/ }).getByRole("link", { name: short(sale.id), exact: true }).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("a transaction posted after the page opened appears without a reload", { timeout: testTimeoutMs }, async () => {
    const { page, errors } = await open(explorerUrl);
    await page.getByRole("status").filter({ hasText: "Stream: live" }).waitFor();
    const fresh = createTx(keypair(), { live: word, nonce: randomBytes(4).toString("hex") }, null);
    await postCommit(node().baseUrl, fresh);
    const [height] = (await getJson(`${node().baseUrl}/api/v1/blocks?transaction_id=${fresh.id}`)) as number[];
    await page.getByRole("region", { name: "Latest transactions" }).getByRole("link", { name: short(fresh.id), exact: true }).waitFor();
    await page.getByRole("region", { name: "Latest blocks" }).getByRole("link", { name: String(height), exact: true }).waitFor();
    await shot(page, "live");
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("from another origin, pointed at the node with ?node=", { timeout: testTimeoutMs }, async () => {
    const { page, errors } = await open(`${bundleUrl}/?node=${encodeURIComponent(node().baseUrl)}#/tx/${sale.id}`);
    await page.getByRole("region", { name: "Summary" }).getByText("TRANSFER", { exact: true }).waitFor();
    await page.getByText(`Reading the node at ${node().baseUrl}`).waitFor();
    await page.goto(`${bundleUrl}/?node=${encodeURIComponent(node().baseUrl)}#/`);
    await page.getByRole("region", { name: "Latest transactions" }).getByRole("link", { name: short(sale.id), exact: true }).waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  it("on a node without ledgerd's additions (as BigchainDB) those parts are left out and nothing throws", { timeout: testTimeoutMs }, async () => {
    const { page, errors } = await open(`${bundleUrl}/?node=${encodeURIComponent(frontUrl)}`);
    await page.getByText("This node does not list its latest blocks").waitFor();
    await page.getByRole("status").filter({ hasText: "Stream: live" }).waitFor();
    const fresh = createTx(keypair(), { bigchaindb: word, nonce: randomBytes(4).toString("hex") }, null);
    await postCommit(node().baseUrl, fresh);
    const [height] = (await getJson(`${node().baseUrl}/api/v1/blocks?transaction_id=${fresh.id}`)) as number[];
    await page.getByRole("region", { name: "Latest transactions" }).getByRole("link", { name: short(fresh.id), exact: true }).waitFor();
    // No valid_blocks stream: the block is told from its transaction's event.
    await page.getByRole("region", { name: "Latest blocks" }).getByRole("link", { name: String(height), exact: true }).waitFor();
    await shot(page, "bigchaindb-home");
    await page.goto(`${bundleUrl}/?node=${encodeURIComponent(frontUrl)}#/tx/${sale.id}`);
    await page.getByRole("region", { name: "Summary" }).getByText("TRANSFER", { exact: true }).waitFor();
    await page.getByRole("region", { name: "Metadata", exact: true }).waitFor();
    assert.equal(await page.getByRole("region", { name: "Proof of inclusion" }).count(), 0);
    await page.goto(`${bundleUrl}/?node=${encodeURIComponent(frontUrl)}#/key/${bob.publicKey}`);
    await page.getByRole("region", { name: "Unspent outputs" }).getByRole("link", { name: short(sale.id), exact: true }).waitFor();
    await page.getByText("This node does not give amounts with outputs").waitFor();
    assert.equal(await page.getByRole("region", { name: "Balances" }).count(), 0);
    await shot(page, "bigchaindb-key");
    // What the browser itself logs for the refused endpoints and stream is expected; nothing else.
    const expected = /Failed to load resource: the server responded with a status of 404|WebSocket connection to '.*valid_blocks' failed/;
    assert.deepEqual(errors.filter((e) => !expected.test(e)), []);
    await page.close();
  });

  it("a transaction committed while the stream was down appears once it is back: the stream resumes", { timeout: testTimeoutMs }, async () => {
    const flaky = cuttableFront(node().baseUrl, node().streamsUrl);
    const flakyUrl = await listen(flaky.server);
    try {
      const { page, errors } = await open(`${bundleUrl}/?node=${encodeURIComponent(flakyUrl)}`);
      const status = page.getByRole("status");
      await status.filter({ hasText: "Stream: live" }).waitFor();
      flaky.down();
      await status.filter({ hasText: "Stream: reconnecting" }).waitFor();
      const missed = createTx(keypair(), { missed: word, nonce: randomBytes(4).toString("hex") }, null);
      await postCommit(node().baseUrl, missed);
      flaky.up();
      await page.getByRole("region", { name: "Latest transactions" }).getByRole("link", { name: short(missed.id), exact: true }).waitFor();
      await status.filter({ hasText: "Stream: live" }).waitFor();
      // What the browser logs for the refused reconnections is expected; nothing else.
      assert.deepEqual(errors.filter((e) => !/WebSocket connection to '.*' failed/.test(e)), []);
      await page.close();
    } finally {
      flaky.sockets.close();
      flaky.server.close();
    }
  });

  // Last: its 51 transactions push the others out of the home page's latest.
  it("a key holding more assets than a page lists its balances a page at a time", { timeout: testTimeoutMs }, async () => {
    const carol = keypair();
    const assets = Array.from({ length: balancesPageSize + 1 }, (_, i) => createTx(carol, { kind: "token", n: i, word }, null));
    await Promise.all(assets.map((tx) => postCommit(node().baseUrl, tx)));
    const { page, errors } = await open(`${explorerUrl}#/key/${carol.publicKey}`);
    const balances = page.getByRole("region", { name: "Balances" });
    await balances.getByRole("button", { name: "Load more" }).waitFor();
    assert.equal(await balances.locator("tbody tr").count(), balancesPageSize);
    await balances.getByRole("button", { name: "Load more" }).click();
    await balances.locator("tbody tr").nth(balancesPageSize).waitFor();
    assert.equal(await balances.locator("tbody tr").count(), assets.length);
    assert.equal(await balances.getByRole("button", { name: "Load more" }).count(), 0);
    const shown = await balances.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
    assert.deepEqual(new Set(shown), new Set(assets.map((tx) => `#/asset/${tx.id}`)));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
