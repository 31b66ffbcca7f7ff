// `ledgerd export` and `ledgerd import` (issue #15): a ledger of v2.0 and legacy transactions and
// a concluded validator election, exported as JSON lines and imported into an empty data folder,
// re-executes to the same app hash at every height and the same validator set; an export edited
// by hand stops the import at its height and leaves no ledger behind.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "../../src/json/jsonValue.js";
import { LedgerApp } from "../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../src/ledger/preparePool.js";
import { exportLineBytesMax } from "../../src/tools/exportFormat.js";
import { SqliteStore } from "../../src/store/sqlite/sqliteStore.js";
import { makeValidatorElection, makeVote } from "../../src/transaction/builders/makeElection.js";
import { signTx } from "../../src/transaction/builders/signTx.js";
import { hexKey, legacyBytes, legacyCreate } from "../helpers/legacyFactory.js";
import { bytesOf, create, keypairOf, transfer } from "../helpers/txFactory.js";
import { cleanEnv, httpCall, repoRoot, runLedgerd, startLedgerd } from "../unit/cli/ledgerdProcess.js";
import { waitFor } from "../helpers/waitFor.js";
import { ledgerdArgs } from "../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-export-"));
const source = join(root, "source");
const file = join(root, "chain.jsonl");
after(() => rmSync(root, { recursive: true, force: true }));
const validators = ["x1", "x2", "x3"].map(keypairOf);

before(async () => {
  const store = SqliteStore.open({ path: join(source, "ledgerd.sqlite") });
  const ledger = await LedgerApp.open({}, { store, pool: new PreparePool({ ...preparePoolOptionsDefault, threads: 0 }) });
  await ledger.initChain("exported", validators.map((v) => ({ publicKey: hexKey(v.publicKey), power: 10 })));
  const alice = keypairOf("export-alice");
  const newcomer = keypairOf("export-newcomer");
  const asset = create(alice, 3n, { exported: true });
  const election = signTx(makeValidatorElection({
    proposer: validators[0]!.publicKey,
    voters: validators.map((v) => ({ publicKey: v.publicKey, power: 10 })),
    validatorKeyBase64: Buffer.from(hexKey(newcomer.publicKey), "hex").toString("base64"),
    power: 2,
    nodeId: "n",
    seed: "export",
  }), [validators[0]!]);
  const vote = (v: (typeof validators)[number]): JsonObject => signTx(makeVote(election, v.publicKey), [v]);
  const signer = { publicKey: newcomer.publicKey, seed: newcomer.seed };
  const blocks = [
    [bytesOf(asset), bytesOf(election)],
    [],
    [bytesOf(transfer([{ tx: asset, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 3n }])), bytesOf(vote(validators[0]!)), bytesOf(vote(validators[1]!))],
    // The newcomer is a validator from here: its legacy CREATE is accepted only now.
    [legacyBytes(legacyCreate("A", signer, [alice.publicKey], { after: "election" }))],
  ];
  for (const txs of blocks) {
    const finalized = await ledger.finalizeBlock(ledger.info().height + 1, txs);
    assert.ok(finalized.results.every((r) => r === null), JSON.stringify(finalized.results));
    await ledger.commit();
  }
  await store.close();
});

async function heads(dir: string): Promise<{ hashes: string[]; validators: unknown }> {
  const store = SqliteStore.open({ path: join(dir, "ledgerd.sqlite"), access: "reader" });
  try {
    const { height } = await store.getChainState();
    const hashes: string[] = [];
    for (let h = 1; h <= height; h++) hashes.push((await store.getBlock(h))!.appHash);
    return { hashes, validators: await store.getValidators() };
  } finally {
    await store.close();
  }
}

describe("export and import", () => {
  it("an export imported into an empty data folder reaches the same app hash at every height", async () => {
    const exported = runLedgerd(["export", file, "--data_dir", source]);
    assert.equal(exported.status, 0, exported.stderr);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    assert.equal(lines.length, 5, "a header and four blocks, the empty one too");
    assert.equal((JSON.parse(lines[0]!) as { format: string }).format, "ledgerd-export");
    const target = join(root, "target");
    const imported = runLedgerd(["import", file, "--data_dir", target]);
    assert.equal(imported.status, 0, imported.stderr);
    assert.match(imported.stdout, /imported heights 1 to 4/);
    const [a, b] = [await heads(source), await heads(target)];
    assert.deepEqual(b.hashes, a.hashes);
    assert.equal((a.validators as unknown[]).length, 4, "the election concluded");
    assert.deepEqual(b.validators, a.validators);
  });

  it("stops at an edited block and leaves no ledger", () => {
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const block = JSON.parse(lines[3]!) as { app_hash: string };
    lines[3] = JSON.stringify({ ...block, app_hash: "0".repeat(64) });
    const edited = join(root, "edited.jsonl");
    writeFileSync(edited, `${lines.join("\n")}\n`);
    const target = join(root, "target-edited");
    const result = runLedgerd(["import", edited, "--data_dir", target]);
    assert.notEqual(result.status, 0);
    // The refusal is the one line besides the progress lines a slow machine may print first.
    assert.match(result.stderr, /^(import: height \d+ of \d+\n)*ledgerd: line 4: height 3: app hash [0-9a-f]{64} re-executed, 0{64} stored\n$/);
    assert.equal(existsSync(join(target, "ledgerd.sqlite")), false);
    assert.match(runLedgerd(["import", file, "--data_dir", source]).stderr, /exists: import into a data folder without a ledger/);
  });
});

function pidIn(dir: string): string {
  try {
    return readFileSync(join(dir, "ledgerd.pid"), "utf8").trim();
  } catch {
    return "";
  }
}

/** The files a refused import must not leave in `dir`: any ledger, finished or staged. */
function ledgerFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith("ledgerd.sqlite")) : [];
}

// src/cli/progress.ts: a bar only in a terminal (here one `script` gives it), cleared before the
// result line; through a pipe the output is what it was before bars (at most the plain lines).
describe("export's progress, in a terminal and not", () => {
  it("through a pipe: the result line on stdout, no escape codes on stderr", () => {
    const piped = join(root, "piped.jsonl");
    const result = runLedgerd(["export", piped, "--data_dir", source]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `exported heights 1 to 4 to ${piped}\n`);
    assert.match(result.stderr, /^(export: height \d+ of \d+\n)*$/);
  });

  it("in a terminal: a bar drawn in place, then cleared before the result line", () => {
    const shown = join(root, "terminal.jsonl");
    const command = [process.execPath, "--import", "tsx", "src/cli/main.ts", "export", shown, "--data_dir", source]
      .map((word) => `'${word}'`).join(" ");
    const result = spawnSync("script", ["-qec", command, "/dev/null"], { cwd: repoRoot, env: cleanEnv(), encoding: "utf8", timeout: 30_000 });
    assert.equal(result.status, 0, result.stdout);
    assert.match(result.stdout, /\rexport \[[#.]+\] \d\/4 .*\x1b\[K/);
    assert.ok(result.stdout.endsWith(`\r\x1b[Kexported heights 1 to 4 to ${shown}\r\n`), JSON.stringify(result.stdout));
  });
});

describe("import and a node on one data folder", () => {
  const anyPorts = ["--server.bind", "127.0.0.1:0", "--wsserver.bind", "127.0.0.1:0"];

  it("a node started beside a running import is refused, and the import finishes", async (t) => {
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const target = join(root, "target-beside");
    // The import reads its file from a named pipe this test writes: it holds the folder after
    // the header and waits for the blocks for as long as the test needs.
    const fifo = join(root, "chain.fifo");
    const made = spawnSync("mkfifo", [fifo], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const child = spawn(process.execPath, [...ledgerdArgs(), "import", fifo, "--data_dir", target], { cwd: repoRoot, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    t.after(() => child.kill());
    const pipe = createWriteStream(fifo);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const ended = new Promise<number | null>((resolve) => child.on("close", resolve));
    pipe.write(`${lines[0]!}\n`);
    const gone = () => (child.exitCode === null ? null : `the import ended (${child.exitCode})`);
    await waitFor("the import's staging ledger", () => existsSync(join(target, "ledgerd.sqlite.importing")), { abortIf: gone });

    const node = runLedgerd(["start", "--data_dir", target, ...anyPorts]);
    assert.equal(node.status, 1, node.stdout + node.stderr);
    const holds = `the data directory ${target} is in use by ledgerd process ${String(child.pid)} (it holds ${join(target, "ledgerd.lock")})`;
    assert.ok(node.stdout.includes(`ledgerd failed to start: ${holds}`), node.stdout);
    assert.equal(pidIn(target), String(child.pid), "the import holds the folder");
    const second = runLedgerd(["import", file, "--data_dir", target]);
    assert.equal(second.status, 1);
    assert.equal(second.stderr, `ledgerd: ${holds}\n`);

    pipe.end(`${lines.slice(1).join("\n")}\n`);
    assert.equal(await ended, 0, out);
    assert.match(out, /imported heights 1 to 4/);
    assert.deepEqual((await heads(target)).hashes, (await heads(source)).hashes);
  });

  it("an import into a folder a node runs on is refused, naming the node", async () => {
    const dir = join(root, "running");
    const node = await startLedgerd(["--data_dir", dir, ...anyPorts]);
    try {
      const refused = runLedgerd(["import", file, "--data_dir", dir]);
      assert.equal(refused.status, 1);
      const pid = String(node.started["pid"]);
      assert.equal(refused.stderr, `ledgerd: the data directory ${dir} is in use by ledgerd process ${pid} (it holds ${join(dir, "ledgerd.lock")})\n`);
      assert.equal((await httpCall(node.port, "GET", "/")).status, 200, "the node did not notice");
    } finally {
      await node.stop();
    }
  });
});

describe("import refuses a file it cannot use, naming the line, and leaves no ledger", () => {
  const header = (): Record<string, unknown> => JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as Record<string, unknown>;
  let count = 0;

  /** Imports `text` into a new folder: one line on stderr, exit 1, no ledger file of any kind. */
  function refusal(text: string | ((path: string) => void)): string {
    const at = join(root, `refused-${++count}`);
    if (typeof text === "string") writeFileSync(`${at}.jsonl`, text);
    else text(`${at}.jsonl`);
    const result = runLedgerd(["import", `${at}.jsonl`, "--data_dir", at]);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /^ledgerd: [^\n]+\n$/, "one line, no stack");
    assert.deepEqual(ledgerFiles(at), []);
    return result.stderr.slice("ledgerd: ".length, -1);
  }

  it("a line longer than exportLineBytesMax, without buffering it (#10)", () => {
    const over = (path: string): void => {
      // The header, then a line of 150 MB of zero bytes (a sparse file: nothing is written). It
      // is read up to the cap only: test/unit/node/exportLines.test.ts counts the bytes read.
      writeFileSync(path, `${JSON.stringify(header())}\n`);
      truncateSync(path, statSync(path).size + 150_000_000);
    };
    assert.equal(refusal(over), `line 2 is longer than ${exportLineBytesMax} bytes, the most an export's line may be`);
    // An endless first line: refused after the cap's bytes, not read whole.
    const endless = runLedgerd(["import", "/dev/zero", "--data_dir", join(root, "refused-zero")]);
    assert.equal(endless.stderr, `ledgerd: line 1 is longer than ${exportLineBytesMax} bytes, the most an export's line may be\n`);
    assert.equal(existsSync(join(root, "refused-zero")), false, "a header refused touches no folder");
  });

  it("a block's line that is not a block (#11)", () => {
    const start = `${JSON.stringify(header())}\n`;
    assert.equal(refusal(`${start}null\n`), "line 2: a block's line must be object");
    assert.equal(refusal(`${start}{"height":1,"app_hash":"","txs":"x"}\n`), "line 2: txs must be array");
    assert.equal(refusal(`${start}\n{"height":1,"app_hash":"","txs":[1]}\n`), "line 3: txs[0] must be string");
    assert.match(refusal(`${start}{"height":1,"app_hash":"","txs":["x"]}\n`), /^line 2: height 1: transaction 0 is refused: Invalid JSON/);
  });

  it("a header that would give a ledger no node can start on (#11)", () => {
    const validators = header()["validators"] as unknown[];
    const with_ = (change: Record<string, unknown>): string => `${JSON.stringify({ ...header(), ...change })}\n`;
    assert.equal(refusal(with_({ validators: [] })), "line 1: validators must NOT have fewer than 1 items");
    assert.equal(refusal(with_({ validators: [...validators, validators[1]] })), "line 1: validators[3].publicKey repeats validators[1]'s");
  });
});
