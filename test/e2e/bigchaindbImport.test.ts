// `ledgerd import --from-bigchaindb URL` (issue 41, "A way off BigchainDB") against a chain a
// real BigchainDB 2.2.2 made with both official drivers, replayed from its recorded HTTP answers
// (test/vectors/bigchaindb-chain/, README there) by a real HTTP server: every transaction it
// accepts is byte for byte BigchainDB's, at BigchainDB's heights; the CREATE BigchainDB accepted
// signed by another key (docs/compatibility.md #8) and the TRANSFER spending it are reported;
// an import killed mid-way, or cut off by its node, resumes to the same ledger; bad input is
// refused in one line with exit code 1.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { checkImported, recordedAnswers, recordedLatest, serveRecorded, type RecordedNode } from "../helpers/bigchaindbChain.js";
import { runLedgerdAsync, type RunResult } from "../unit/cli/ledgerdProcess.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-bdb-import-"));
const answers = recordedAnswers();
const latest = recordedLatest(answers);
let node: RecordedNode;
before(async () => {
  node = await serveRecorded(answers);
});
after(async () => {
  await node.close();
  rmSync(root, { recursive: true, force: true });
});

const get = async (path: string): Promise<{ status: number; body: string }> => {
  const answer = answers.get(path);
  return answer === undefined ? { status: 404, body: "" } : answer;
};

/** The ids of the two transactions the recording's README names as refused, by their metadata. */
function forgedIds(): { create: string; transfer: string } {
  let create = "";
  let transfer = "";
  for (const answer of answers.values()) {
    if (!answer.path.startsWith("/api/v1/transactions/")) continue;
    const tx = JSON.parse(answer.body) as { id: string; operation: string; asset: { data?: { forged?: string } }; metadata: { step?: string } | null };
    if (tx.asset.data?.forged !== undefined) create = tx.id;
    if (tx.metadata?.step === "spends the forged create") transfer = tx.id;
  }
  assert.ok(create !== "" && transfer !== "", "the recording holds the forged CREATE and its TRANSFER");
  return { create, transfer };
}

function blockOf(height: number): { height: number; transactions: { id: string }[] } {
  return JSON.parse(answers.get(`/api/v1/blocks/${height}`)!.body) as { height: number; transactions: { id: string }[] };
}

function importFrom(url: string, dir: string, extra: readonly string[] = [], env: Record<string, string> = {}): Promise<RunResult> {
  return runLedgerdAsync(["import", "--from-bigchaindb", url, "--data_dir", dir, ...extra], env);
}

interface Report {
  readonly to: number;
  readonly transactions: number;
  readonly accepted: number;
  readonly refused: number;
  readonly app_hash: string;
  readonly refusals: readonly { id: string; height: number; code: string; compatibility: number[]; depends_on: string | null }[];
}

function reportOf(dir: string): Report {
  return JSON.parse(readFileSync(join(dir, "bigchaindb-import-report.json"), "utf8")) as Report;
}

async function chainOf(dir: string): Promise<{ height: number; appHash: string; commitment: string }> {
  const store = SqliteStore.open({ path: join(dir, "ledgerd.sqlite"), access: "reader" });
  try {
    return await store.getChainState();
  } finally {
    await store.close();
  }
}

describe("ledgerd import --from-bigchaindb, a recorded BigchainDB 2.2.2", () => {
  const whole = join(root, "whole");

  it("imports every block at its height; every accepted transaction is BigchainDB's, byte for byte", async () => {
    const result = await importFrom(node.url, whole);
    const forged = forgedIds();
    assert.equal(result.status, 2, `exit 2: imported, with refusals\n${result.stderr}`);
    assert.match(result.stdout, new RegExp(`imported heights 1 to ${latest} from BigchainDB as a v1 chain: 13 of 15 transactions accepted, 2 refused`));
    const chain = await chainOf(whole);
    assert.equal(chain.height, latest, "BigchainDB's heights, its empty blocks included");
    assert.equal(chain.commitment, "v1");
    const { accepted } = await checkImported(whole, latest, get, new Set([forged.create, forged.transfer]));
    assert.equal(accepted, 13);
    // The node's own answers, not the transactions' routes: one per block and the search's probes.
    assert.ok(!node.asked.some((path) => path.startsWith("/api/v1/transactions")), "blocks carry their transactions");
  });

  it("reports what BigchainDB accepted and ledgerd refuses, with its code and compatibility entry", () => {
    const forged = forgedIds();
    const report = reportOf(whole);
    assert.deepEqual(
      report.refusals.map(({ id, code, compatibility, depends_on }) => ({ id, code, compatibility, depends_on })),
      [
        { id: forged.create, code: "InvalidSignature", compatibility: [8], depends_on: null },
        { id: forged.transfer, code: "InputDoesNotExist", compatibility: [8], depends_on: forged.create },
      ],
    );
    assert.deepEqual([report.to, report.transactions, report.accepted, report.refused], [latest, 15, 13, 2]);
  });

  it("prints each refusal on stderr as it happens", async () => {
    const dir = join(root, "stderr");
    const result = await importFrom(node.url, dir);
    const forged = forgedIds();
    const refused = result.stderr.split("\n").filter((line) => line.startsWith("refused: "));
    assert.deepEqual(refused.map((line) => /refused: height \d+: (CREATE|TRANSFER) ([0-9a-f]{64}) refused, (\w+).*\[docs\/compatibility\.md#8\]$/.exec(line)?.slice(1)), [
      ["CREATE", forged.create, "InvalidSignature"],
      ["TRANSFER", forged.transfer, "InputDoesNotExist"],
    ]);
  });

  it("resumes an import killed after a block, to the same ledger and report", async () => {
    const dir = join(root, "killed");
    const killed = await importFrom(node.url, dir, [], { LEDGERD_TEST_FAILPOINTS: "import.block=12" });
    assert.equal(killed.status, null, "killed by its failpoint");
    assert.match(killed.stderr, /failpoint import\.block: SIGKILL/);
    assert.equal(existsSync(join(dir, "ledgerd.sqlite")), false, "no ledger in place before the import ends");
    const resumed = await importFrom(node.url, dir);
    assert.equal(resumed.status, 2, resumed.stderr);
    assert.match(resumed.stdout, /\(resumed at height 13\)/);
    // The refusals of blocks 11 and 12 were journaled before the kill: reported once, not lost.
    assert.doesNotMatch(resumed.stderr, /refused:/);
    assert.deepEqual(await chainOf(dir), await chainOf(whole));
    const { refusals, ...summary } = reportOf(dir);
    const { refusals: wholeRefusals, ...wholeSummary } = reportOf(whole);
    assert.deepEqual(summary, wholeSummary);
    assert.deepEqual(refusals, wholeRefusals);
  });

  it("stops when the node goes away mid-way, after its retries, and resumes when it is back", async () => {
    const dir = join(root, "cut");
    node.failBlocksFrom = 9;
    node.asked.length = 0;
    let stopped: RunResult;
    try {
      stopped = await importFrom(node.url, dir, ["--retries", "1", "--fetch-concurrency", "2"]);
    } finally {
      node.failBlocksFrom = null;
    }
    assert.equal(stopped.status, 1);
    assert.match(stopped.stderr, /retry 1 of GET \/api\/v1\/blocks\/9: answered 503/);
    assert.match(stopped.stderr, /GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/blocks\/9 failed 2 times \(retries: 1\); last: answered 503\nthe import stopped after height 8: run the same command again to resume from height 9\n$/);
    const resumed = await importFrom(node.url, dir);
    assert.equal(resumed.status, 2, resumed.stderr);
    assert.match(resumed.stdout, /\(resumed at height 9\)/);
    assert.deepEqual(await chainOf(dir), await chainOf(whole));
    assert.deepEqual(reportOf(dir).refusals, reportOf(whole).refusals);
  });

  it("reports a transaction a block serves twice as a refused duplicate, not dropped unsaid", async () => {
    const doubled = new Map(answers);
    const height = [...Array(latest).keys()].map((i) => i + 1).find((h) => blockOf(h).transactions.length > 0)!;
    const block = blockOf(height);
    const first = block.transactions[0]!;
    doubled.set(`/api/v1/blocks/${height}`, { ...answers.get(`/api/v1/blocks/${height}`)!, body: JSON.stringify({ ...block, transactions: [...block.transactions, first] }) });
    const twice = await serveRecorded(doubled);
    try {
      const dir = join(root, "doubled");
      const result = await importFrom(twice.url, dir);
      assert.equal(result.status, 2, result.stderr);
      const report = reportOf(dir);
      assert.deepEqual([report.transactions, report.accepted, report.refused], [16, 13, 3]);
      const repeat = report.refusals.find((refusal) => refusal.height === height && refusal.id === first.id);
      assert.ok(repeat !== undefined, `the repeat of ${first.id} at height ${height} is reported: ${JSON.stringify(report.refusals)}`);
      assert.equal((await chainOf(dir)).appHash, (await chainOf(whole)).appHash, "the repeat changes nothing committed");
    } finally {
      await twice.close();
    }
  });

  it("refuses a finished import, a data folder that is not new, and a node that is not BigchainDB", async () => {
    const again = await importFrom(node.url, whole);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /holds a finished import from http:\/\/127\.0\.0\.1:\d+ \(report: bigchaindb-import-report\.json\); import into a new folder\n$/);
    const used = join(root, "used");
    mkdirSync(used);
    writeFileSync(join(used, "notes.txt"), "mine");
    const notNew = await importFrom(node.url, used);
    assert.equal(notNew.status, 1);
    assert.match(notNew.stderr, /^ledgerd: .*used is not a new data folder \(it holds notes\.txt\): import into a new or empty one\n$/);
    node.root = { path: "/", status: 200, content_type: "application/json", body: '{"software":"ledgerd","version":"1.0.0"}' };
    try {
      const ledgerd = await importFrom(node.url, join(root, "from-ledgerd"));
      assert.equal(ledgerd.status, 1);
      assert.match(ledgerd.stderr, /is a ledgerd node: move a ledgerd ledger with `ledgerd export` and `ledgerd import FILE`/);
      node.root = { path: "/", status: 404, content_type: "text/html", body: "<html>nothing here</html>" };
      const other = await importFrom(node.url, join(root, "from-other"));
      assert.equal(other.status, 1);
      assert.equal(existsSync(join(root, "from-other")), false, "no folder made for a node that is not BigchainDB");
      assert.match(other.stderr, /^ledgerd: http:\/\/127\.0\.0\.1:\d+\/ is not a BigchainDB node: its root answers 404 without "software" and "version"\n$/);
    } finally {
      node.root = null;
    }
  });

  it("refuses an unreachable URL after its retries, and bad flags", async () => {
    const port = await closedPort();
    const unreachable = await importFrom(`http://127.0.0.1:${port}`, join(root, "unreachable"), ["--retries", "0"]);
    assert.equal(unreachable.status, 1);
    assert.match(unreachable.stderr, new RegExp(`^ledgerd: GET http://127\\.0\\.0\\.1:${port}/ failed 1 times \\(retries: 0\\); last: fetch failed: connect ECONNREFUSED`));
    for (const [flags, message] of [
      [["--retries", "many"], /--retries is a whole number from 0 to 100: many/],
      [["--fetch-concurrency", "0"], /--fetch-concurrency is a whole number from 1 to 64: 0/],
      [["chain.jsonl"], /give a FILE or --from-bigchaindb URL, not both/],
      [["--commitment", "bigchaindb"], /--from-bigchaindb always begins a v1 chain/],
    ] as const) {
      const result = await importFrom(node.url, join(root, "flags"), flags);
      assert.equal(result.status, 1);
      assert.match(result.stderr, message);
    }
    const notUrl = await importFrom("localhost:9984", join(root, "not-url"));
    assert.match(notUrl.stderr, /localhost:9984 is not an http\(s\) URL/);
  });
});

/** A port nothing listens on: one the system gave, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
