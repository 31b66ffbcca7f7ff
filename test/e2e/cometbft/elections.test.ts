// Validator elections on a real loopback network (issue #14; docs/compatibility.md #11): four
// CometBFT validators with 1,000 committed transactions; a fifth node joins, catches up to the
// same app hash, is elected with `ledgerd election new` and `approve` (CometBFT then has five
// validators and blocks carry five signatures); an election below 2/3 changes nothing, and a
// ledgerd killed with SIGKILL while it is open replays to the same state; an original validator is
// voted out and the network keeps committing; every node agrees on the set throughout. Refusals:
// a vote by a key that holds no tokens, a double vote, a vote after conclusion, a power of 1/3.
// After the two changes of the set, a proof of a transaction committed since verifies against the
// genesis alone, the verifier following the set through GET /api/v1/proofs/validator-changes
// (library and `ledgerd verify proof --genesis --node`), and refuses the changes altered: a header
// signed by a set that is not the trusted successor, a forged signature, a tampered set, a trust
// period passed (docs/proofs.md "Across validator changes").
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { addTestnetNode } from "../../../src/testnet/addNode.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { toHex } from "../../../src/proofs/encoding.js";
import { trustRootOf, trustedValidatorsOf, validatorSetHash, verifyTransactionProof, type LightBlock, type TransactionProof } from "../../../src/proofs/verify.js";
import { makeVote } from "../../../src/transaction/builders/makeElection.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { assertDescribed } from "../../helpers/openapiConformance.js";
import { create } from "../../helpers/txFactory.js";
import { freeBasePort, getText, killLedgerd, post, requireCometBft, rpc, waitForAgreement } from "./network.js";
import { waitFor } from "../../helpers/waitFor.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-elections-"));
const withoutLedgerdEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LEDGERD_")));
let manifest: TestnetManifest;
/** Each genesis validator's power (the testnet gives all the same). */
let power = 0;
const node = (i: number): TestnetNode => manifest.nodes[i]!;
const committedTxs = 1_000;

before(async () => {
  const cometbft = requireCometBft();
  manifest = createTestnet({ validators: 4, dir: root, basePort: await freeBasePort(5), cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

/** CometBFT's light client as an oracle (test/oracles/cometLight), built with Go into .cache/oracles. */
function cometLightOracle(): string {
  const repo = fileURLToPath(new URL("../../../", import.meta.url));
  const binary = join(repo, ".cache", "oracles", "comet-light-oracle");
  mkdirSync(dirname(binary), { recursive: true });
  const built = spawnSync("go", ["build", "-o", binary, "."], { cwd: join(repo, "test", "oracles", "cometLight"), encoding: "utf8" });
  assert.equal(built.status, 0, `go build of the light-client oracle: ${built.stderr}`);
  return binary;
}

/** `ledgerd <args> --data_dir <node's>`: exit code and output. */
function cli(target: TestnetNode, args: readonly string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [...ledgerdArgs(), ...args, "--data_dir", join(root, target.dataDir)], {
    encoding: "utf8",
    env: withoutLedgerdEnv(),
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

function electionNew(by: TestnetNode, publicKey: string, power: number, nodeId: string): string {
  const result = cli(by, ["election", "new", "upsert-validator", "--public-key", publicKey, "--power", String(power), "--node-id", nodeId]);
  assert.equal(result.status, 0, result.out);
  const id = /Submitted proposal with id: ([0-9a-f]{64})/.exec(result.out)?.[1];
  assert.ok(id !== undefined, result.out);
  return id;
}

function approve(by: TestnetNode, electionId: string): void {
  const result = cli(by, ["election", "approve", electionId]);
  assert.equal(result.status, 0, `${by.name}: ${result.out}`);
}

function show(by: TestnetNode, electionId: string): Record<string, string> {
  const result = cli(by, ["election", "show", electionId]);
  assert.equal(result.status, 0, result.out);
  return Object.fromEntries(result.out.trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
}

/** The CometBFT validator key of a node, base64, as `election new --public-key` takes it. */
function validatorKeyOf(target: TestnetNode): string {
  const file = JSON.parse(readFileSync(join(root, target.home, "config", "priv_validator_key.json"), "utf8")) as { pub_key: { value: string } };
  return file.pub_key.value;
}

/** CometBFT's own validator set as `node` sees it: base64 key -> power. */
async function cometValidators(target: TestnetNode): Promise<Map<string, string>> {
  const result = await rpc(target, "validators?per_page=100");
  return new Map((result.validators as { pub_key: { value: string }; voting_power: string }[]).map((v) => [v.pub_key.value, v.voting_power]));
}

/** Every node's GET /api/v1/validators is the same; the set's size. */
async function agreedLedgerSet(): Promise<number> {
  const sets = await Promise.all(manifest.nodes.map((n) => getText(n, "/api/v1/validators")));
  assert.ok(sets.every((set) => set !== null && set === sets[0]), `the nodes disagree on the set: ${sets.join(" | ")}`);
  return (JSON.parse(sets[0]!) as unknown[]).length;
}

/** Commits one transaction and returns the number of signatures on the block after it. */
async function signaturesAfterACommit(): Promise<number> {
  const tx = create(makeRandomKeypair(), 1n, { signed: randomBytes(4).toString("hex") });
  assert.equal((await post(node(0), tx, "commit")).status, 202);
  const height = Number((await rpc(node(0), "status")).sync_info.latest_block_height);
  // The block at height h + 1 carries the commit (the signatures) of block h.
  await waitFor("the next block", async () => (Number((await rpc(node(0), "status")).sync_info.latest_block_height) > height ? true : null));
  const commit = await rpc(node(0), `commit?height=${height}`);
  return (commit.signed_header.commit.signatures as { block_id_flag: number }[]).filter((s) => s.block_id_flag === 2).length;
}

describe("validator elections on a 4-validator network", () => {
  it(`commits ${committedTxs} transactions; a fifth node joins and reaches the same app hash`, async () => {
    const owner = makeRandomKeypair();
    const ids: string[] = [];
    const inFlight = 20;
    for (let i = 0; i < committedTxs; i += inFlight) {
      const batch = Array.from({ length: Math.min(inFlight, committedTxs - i) }, (_, j) => create(owner, 1n, { n: i + j }));
      const answers = await Promise.all(batch.map((tx, j) => post(node((i + j) % 4), tx, "sync")));
      answers.forEach((answer) => assert.equal(answer.status, 202, JSON.stringify(answer.body)));
      ids.push(...batch.map((tx) => tx["id"] as string));
    }
    const lastId = ids[ids.length - 1]!;
    await waitFor(`all ${committedTxs} committed`, async () => {
      const outputs = JSON.parse((await getText(node(0), `/api/v1/outputs?public_key=${owner.publicKey}`)) ?? "[]") as unknown[];
      return outputs.length === committedTxs ? true : null;
    }, { timeoutMs: 120_000 });
    const before = await waitForAgreement(manifest.nodes, 1, 60_000);
    const { index } = addTestnetNode(root, { logLevel: "warn" });
    manifest = JSON.parse(readFileSync(join(root, "testnet.json"), "utf8")) as TestnetManifest;
    await startTestnet(root, { nodes: [index] });
    await waitForAgreement(manifest.nodes, before.height, 120_000);
    assert.equal(await getText(node(4), `/api/v1/transactions/${lastId}`), await getText(node(0), `/api/v1/transactions/${lastId}`));
    const powers = [...(await cometValidators(node(4))).values()];
    assert.equal(powers.length, 4);
    power = Number(powers[0]);
    assert.ok(powers.every((p) => Number(p) === power));
  });

  let elected = "";
  it("elects the fifth node: CometBFT signs with five, every node's set agrees", async () => {
    const newcomer = node(4);
    // Less than a third of the total (4 x power).
    elected = electionNew(node(0), validatorKeyOf(newcomer), power, newcomer.nodeId);
    assert.equal(show(node(2), elected)["status"], "ongoing");
    approve(node(0), elected);
    approve(node(1), elected);
    assert.deepEqual(await cometValidators(node(4)), await cometValidators(node(0)));
    assert.equal((await cometValidators(node(0))).size, 4, "2 of 4 votes do not conclude");
    approve(node(2), elected);
    await waitFor("CometBFT's set to have five", async () => ((await cometValidators(node(4))).size === 5 ? true : null));
    assert.equal((await cometValidators(node(0))).get(validatorKeyOf(newcomer)), String(power));
    await waitFor("a block signed by five", async () => ((await signaturesAfterACommit()) === 5 ? true : null), { timeoutMs: 60_000 });
    await waitForAgreement(manifest.nodes, 1, 60_000);
    assert.equal(await agreedLedgerSet(), 5);
    const shown = show(node(4), elected);
    assert.equal(shown["status"], "concluded");
    const answer = await fetch(`http://${node(4).http}/api/v1/elections/${elected}`);
    assertDescribed("GET /api/v1/elections/{election_id}", { status: answer.status, contentType: answer.headers.get("content-type") ?? "", body: await answer.text() });
    assert.equal(shown["votes"], String(3 * power));
  });

  it("refuses a double vote, a vote after the conclusion, a vote by a key without tokens, a power of 1/3", async () => {
    const double = cli(node(0), ["election", "approve", elected]);
    assert.notEqual(double.status, 0);
    assert.match(double.out, /DoubleSpend/);
    const late = cli(node(3), ["election", "approve", elected]);
    assert.notEqual(late.status, 0);
    assert.match(late.out, /ElectionConcluded/);
    // node3's tokens, claimed by a key that is not node3's.
    const election = JSON.parse((await getText(node(0), `/api/v1/transactions/${elected}`))!) as JsonObject;
    const node3Key = (JSON.parse(readFileSync(join(root, node(3).dataDir, "node_key.json"), "utf8")) as { public_key: string }).public_key;
    const outsider = makeRandomKeypair();
    const unsigned = makeVote(election, node3Key);
    const claimed = (unsigned["inputs"] as JsonObject[]).map((input) => ({
      ...input,
      owners_before: [outsider.publicKey],
      fulfillment: { type: "ed25519-sha-256", public_key: outsider.publicKey },
    }));
    const stolen = await post(node(1), signTx({ ...unsigned, inputs: claimed }, [outsider]), "sync");
    assert.equal(stolen.status, 400);
    assert.match(stolen.body.message, /InvalidSignature/);
    const large = cli(node(1), ["election", "new", "upsert-validator", "--public-key", randomBytes(32).toString("base64"), "--power", String(2 * power), "--node-id", "x"]);
    assert.notEqual(large.status, 0);
    assert.match(large.out, /InvalidPowerChange/);
  });

  let open = "";
  it("an election below 2/3 changes nothing; a ledgerd killed with SIGKILL meanwhile replays to the same state", async () => {
    open = electionNew(node(4), randomBytes(32).toString("base64"), 1, "pending-node");
    // 2 of 5 votes: below 2/3.
    approve(node(4), open);
    try {
      await killLedgerd(root, node(1));
      approve(node(0), open);
    } finally {
      // Also when a step above failed, so that the tests after this one find five nodes.
      await startTestnet(root, { nodes: [1] });
    }
    await waitForAgreement(manifest.nodes, 1, 60_000);
    const shown = manifest.nodes.map((n) => show(n, open));
    assert.ok(shown.every((s) => JSON.stringify(s) === JSON.stringify(shown[0])), JSON.stringify(shown));
    assert.equal(shown[0]!["status"], "ongoing");
    assert.equal(shown[0]!["votes"], String(2 * power));
    assert.equal(await agreedLedgerSet(), 5);
  });

  it("votes an original validator out (power 0); the network keeps committing with the new set", async () => {
    const leaving = node(3);
    const removal = electionNew(node(4), validatorKeyOf(leaving), 0, leaving.nodeId);
    for (const voter of [0, 1, 2, 4]) approve(node(voter), removal);
    await waitFor("CometBFT's set to lose node3", async () => ((await cometValidators(node(0))).size === 4 ? true : null));
    assert.equal((await cometValidators(node(0))).has(validatorKeyOf(leaving)), false);
    const tx = create(makeRandomKeypair(), 1n, { after: "removal" });
    assert.equal((await post(node(2), tx, "commit")).status, 202);
    await waitFor("four signatures", async () => ((await signaturesAfterACommit()) === 4 ? true : null), { timeoutMs: 60_000 });
    await waitForAgreement(manifest.nodes, 1, 60_000);
    assert.equal(await agreedLedgerSet(), 4);
    assert.equal(show(node(3), removal)["status"], "concluded");
    // The election still open was made for the set before this change.
    assert.equal(show(node(0), open)["status"], "inconclusive");
  });

  it("proves a transaction committed after both changes against the genesis, following the set; refuses the changes altered", async () => {
    const tx = create(makeRandomKeypair(), 1n, { after: "two changes" });
    assert.equal((await post(node(0), tx, "commit")).status, 202);
    const id = tx["id"] as string;
    const proof = await waitFor("a signed proof", async () => {
      const response = await fetch(`http://${node(1).http}/api/v1/proofs/transactions/${id}`);
      return response.status === 200 ? ((await response.json()) as TransactionProof) : null;
    });
    const genesisFile = join(root, node(0).home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(genesisFile, "utf8")) as unknown;
    const answer = await fetch(`http://${node(2).http}/api/v1/proofs/validator-changes?from_height=1&to_height=${proof.height + 1}`);
    const text = await answer.text();
    assertDescribed("GET /api/v1/proofs/validator-changes", { status: answer.status, contentType: answer.headers.get("content-type") ?? "", body: text });
    const changes = JSON.parse(text) as { light_blocks: LightBlock[] };
    // Two changes: the old set's last header and the new set's first, at each.
    assert.equal(changes.light_blocks.length, 4);
    for (const block of changes.light_blocks) {
      // Each set as CometBFT itself has it at that height.
      const height = Number(block.signed_header.header.height);
      const comet = trustedValidatorsOf(await rpc(node(0), `validators?height=${height}&per_page=100`));
      assert.equal(toHex(validatorSetHash(comet)).toUpperCase(), block.signed_header.header.validators_hash, `height ${height}`);
    }
    const trustRoot = trustRootOf(genesis);
    const trust = (validatorChanges: readonly LightBlock[], more = {}) => ({ trust: { root: trustRoot, validatorChanges, ...more } });
    const verdict = verifyTransactionProof(proof, trust(changes.light_blocks), id);
    assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
    assert.equal(verdict.trusted?.changes, 2);
    assert.equal(verdict.trusted?.validatorsHash, proof.signed_header!.header.validators_hash);
    // Not the genesis's set that signed: node3 left, node4 came (three of the four genesis
    // validators still sign, so a check that counts only the genesis's power would pass).
    assert.notEqual(toHex(validatorSetHash(trustedValidatorsOf(genesis))).toUpperCase(), proof.signed_header!.header.validators_hash);

    const refused = (blocks: readonly LightBlock[], more = {}, r = trustRoot): string => {
      const v = verifyTransactionProof(proof, { trust: { root: r, validatorChanges: blocks, ...more } }, id);
      assert.equal(v.ok, false);
      return v.ok ? "" : v.reason;
    };
    // The new set's first header, claimed by the old set as if it were the trusted successor.
    const [lastOfOld, firstOfNew] = changes.light_blocks;
    const changeHeight = Number(firstOfNew!.signed_header.header.height);
    const oldSetRoot = { ...trustRoot, height: changeHeight, validators: trustedValidatorsOf(lastOfOld!.validator_set) };
    assert.match(refused(changes.light_blocks.slice(1), {}, oldSetRoot), new RegExp(`height ${changeHeight} is signed by set [0-9A-F]{64}, not the successor`));
    const forged = structuredClone(changes.light_blocks);
    const sig = forged[1]!.signed_header.commit.signatures.find((s) => s.signature !== null)! as { signature: string };
    sig.signature = Buffer.from(Buffer.from(sig.signature, "base64").map((b, i) => (i === 0 ? b ^ 1 : b))).toString("base64");
    assert.match(refused(forged), /does not verify/);
    const tampered = structuredClone(changes.light_blocks);
    (tampered[1]!.validator_set.validators as { voting_power: string }[])[0]!.voting_power = "1000";
    assert.match(refused(tampered), /hashes to [0-9A-F]{64}, not the/);
    // The genesis is older than a trust period of 1 ms.
    assert.match(refused(changes.light_blocks, { trustPeriodMs: 1, nowMs: Date.now() }), /older than the trust period/);

    const saved = join(root, "proof-after-elections.json");
    writeFileSync(saved, JSON.stringify(proof));
    const run = spawnSync(process.execPath, [...ledgerdArgs(), "verify", "proof", saved, "--id", id, "--genesis", genesisFile, "--node", `http://${node(3).http}`], { encoding: "utf8", env: withoutLedgerdEnv() });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /followed through 2 set change\(s\)/);
    // CometBFT's own light client, an oracle: it follows the same light blocks to the same header,
    // and refuses the forged signature too.
    const oracle = (lightBlocks: readonly LightBlock[]) =>
      spawnSync(cometLightOracle(), [], { input: JSON.stringify({ genesis, validator_changes: { light_blocks: lightBlocks }, proof }), encoding: "utf8" });
    const agreed = oracle(changes.light_blocks);
    assert.equal(agreed.status, 0, agreed.stdout + agreed.stderr);
    assert.match(agreed.stdout, new RegExp(`^ok 4 light blocks followed; the proof's header ${proof.height + 1} is signed by set ${proof.signed_header!.header.validators_hash}`));
    const forgedByOracle = oracle(forged);
    assert.equal(forgedByOracle.status, 1, forgedByOracle.stdout + forgedByOracle.stderr);
    if (process.env["LEDGERD_RECORD_VECTORS"] === "1") {
      const vector = { genesis, validator_changes: JSON.parse(text) as unknown, proof };
      writeFileSync(new URL("../../vectors/cometbft/validatorChanges.json", import.meta.url), `${JSON.stringify(vector, null, 2)}\n`);
    }
  });
});
