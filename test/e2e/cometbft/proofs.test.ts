// Proofs on a real loopback network (issue #15; docs/proofs.md): four CometBFT validators; the
// proofs one node serves verify against the validator set alone (the genesis the client
// trusts): the transaction's paths reach an app hash that a header carries, whose commit more
// than two thirds of the validators signed. A lying node's proofs do not verify: one that claims
// a transaction the ledger never held (a self-consistent proof to its own app hash), one that
// also rewrites the header's app hash, one that signs with keys the client does not trust.
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { chromium } from "playwright-core";
import { blockTree } from "../../../src/proofs/blockTree.js";
import { appHashV1, blockLeaf } from "../../../src/proofs/commitment.js";
import { toHex } from "../../../src/proofs/encoding.js";
import { inclusionRoot, type Hash } from "../../../src/proofs/merkle.js";
import {
  headerHash,
  trustedValidatorsOf,
  validatorSetHash,
  verifyConsistencyProof,
  verifyTransactionProof,
  type ConsistencyProof,
  type TransactionProof,
} from "../../../src/proofs/verify.js";
import { createTestnet, startTestnet, stopTestnet, type TestnetManifest, type TestnetNode } from "../../../src/testnet/testnet.js";
import { assertDescribed } from "../../helpers/openapiConformance.js";
import { create, keypairOf } from "../../helpers/txFactory.js";
import { freeBasePort, httpUrl, post, requireCometBft } from "./network.js";
import { waitFor } from "../../helpers/waitFor.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-proofs-"));
let manifest: TestnetManifest;
const node = (i: number): TestnetNode => manifest.nodes[i]!;
const ids: string[] = [];

before(async () => {
  manifest = createTestnet({ validators: 4, dir: root, basePort: await freeBasePort(4), cometbft: requireCometBft(), timeoutCommitMs: 150, logLevel: "warn" });
  await startTestnet(root);
  for (let i = 0; i < 12; i++) {
    const tx = create(keypairOf(`proof-net-${i}`), 1n, { proof: i });
    const answer = await post(node(i % 2), tx, i % 3 === 0 ? "commit" : "sync");
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    ids.push(tx["id"] as string);
  }
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  if (process.env["LEDGERD_TEST_KEEP"] === "1") return;
  rmSync(root, { recursive: true, force: true });
});

/** The validator set the client trusts: the genesis, not any node's answer. */
const trusted = () => trustedValidatorsOf(JSON.parse(readFileSync(join(root, node(0).home, "config", "genesis.json"), "utf8")));

async function getJson(target: TestnetNode, path: string): Promise<{ status: number; text: string; type: string }> {
  const response = await fetch(`${httpUrl(target)}${path}`);
  return { status: response.status, text: await response.text(), type: String(response.headers.get("content-type")) };
}

/** The proof of `id` from `target`, once a signed header carries an app hash after its block. */
async function proofOf(target: TestnetNode, id: string): Promise<TransactionProof> {
  return waitFor(`a signed proof of ${id}`, async () => {
    const answer = await getJson(target, `/api/v1/proofs/transactions/${id}`);
    if (answer.status === 404 || answer.status === 503) return null;
    assert.equal(answer.status, 200, answer.text);
    assertDescribed("GET /api/v1/proofs/transactions/{transaction_id}", { status: answer.status, contentType: answer.type, body: answer.text });
    return JSON.parse(answer.text) as TransactionProof;
  });
}

describe("proofs on a 4-validator network", () => {
  it("every transaction's proof from another node verifies against the validator set alone", async () => {
    const validators = trusted();
    assert.equal(validators.length, 4);
    for (const [i, id] of ids.entries()) {
      const proof = await proofOf(node(2 + (i % 2)), id);
      assert.notEqual(proof.signed_header, null);
      assert.equal(Number(proof.signed_header!.header.height), proof.height + 1);
      const verdict = verifyTransactionProof(proof, { validators, chainId: manifest.chainId }, id);
      assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
      assert.equal(verdict.signed, true);
      // The header hash the verifier computes is CometBFT's own: the block id of its commit.
      assert.equal(toHex(headerHash(proof.signed_header!.header)).toUpperCase(), proof.signed_header!.commit.block_id.hash);
      // Another chain id is refused.
      assert.equal(verifyTransactionProof(proof, { validators, chainId: "other-chain" }).ok, false);
    }
  });

  it("the history one node signed later extends the one it signed earlier", async () => {
    const last = await proofOf(node(1), ids.at(-1)!);
    const answer = await getJson(node(3), `/api/v1/proofs/consistency?from=1&to=${last.height}`);
    assert.equal(answer.status, 200, answer.text);
    assertDescribed("GET /api/v1/proofs/consistency", { status: answer.status, contentType: answer.type, body: answer.text });
    const proof = JSON.parse(answer.text) as ConsistencyProof;
    const verdict = verifyConsistencyProof(proof, { validators: trusted() });
    assert.ok(verdict.ok, verdict.ok ? "" : verdict.reason);
    const first = await proofOf(node(0), ids[0]!);
    const middle = JSON.parse((await getJson(node(2), `/api/v1/proofs/consistency?from=${first.height}`)).text) as ConsistencyProof;
    assert.ok(verifyConsistencyProof(middle, { validators: trusted() }).ok);
  });

  it("`ledgerd verify proof` checks a saved proof with the genesis as the validator set", async () => {
    const proof = await proofOf(node(2), ids[3]!);
    const file = join(root, "proof.json");
    writeFileSync(file, JSON.stringify(proof));
    const genesis = join(root, node(0).home, "config", "genesis.json");
    const run = (args: string[]) => spawnSync(process.execPath, [...ledgerdArgs(), "verify", ...args], { encoding: "utf8" });
    const ok = run(["proof", file, "--validators", genesis, "--id", ids[3]!, "--chain-id", manifest.chainId]);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /^ok transaction .* signed by more than two thirds/);
    writeFileSync(file, JSON.stringify({ ...proof, app_hash: "0".repeat(64) }));
    const bad = run(["proof", file, "--validators", genesis]);
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /^FAIL /);
  });

  it("the explorer page checks a proof's signed header in the browser (issue #17)", { timeout: 90_000 }, async () => {
    const id = ids[1]!;
    await proofOf(node(1), id);
    const browser = await chromium.launch({ executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium" });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(message.text());
      });
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`${httpUrl(node(1))}/explorer/#/tx/${id}`);
      const proof = page.getByRole("region", { name: "Proof of inclusion" });
      await proof.getByText(new RegExp(`^height \\d+ of chain ${manifest.chainId}$`)).waitFor();
      await proof.getByRole("button", { name: "Check proof" }).click();
      // The signatures of the header's commit checked against the set the node reports.
      await proof.getByText(/^Verified ✓.*validators holding more than two thirds of the power/).waitFor();
      // Given the genesis, the page follows the set from it (no election here: no change) and
      // says which set it trusts (docs/proofs.md "Across validator changes").
      const genesis = readFileSync(join(root, node(0).home, "config", "genesis.json"), "utf8");
      const genesisHash = toHex(validatorSetHash(trustedValidatorsOf(JSON.parse(genesis)))).toUpperCase();
      await proof.getByText("Trust a genesis, not this node's validator set").click();
      await proof.getByLabel("Genesis (genesis.json), pasted or from a file").fill(genesis);
      await proof.getByRole("button", { name: "Check proof" }).click();
      await proof.getByText(new RegExp(`^Verified ✓.*signed by validator set ${genesisHash} \\(height \\d+\\), which the page followed through 0 set changes from the genesis you gave, whose set ${genesisHash} signs from height 1`)).waitFor();
      await proof.getByLabel("Genesis (genesis.json), pasted or from a file").fill('{"chain_id":"another","validators":[]}');
      await proof.getByRole("button", { name: "Check proof" }).click();
      await proof.getByText(/^Not checked: the genesis: no validator list/).waitFor();
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });

  it("a lying node's proofs do not verify", async () => {
    const validators = trusted();
    const real = await proofOf(node(3), ids[5]!);
    // 1. A transaction the ledger never held, in a block of its own making: paths and app hash
    //    agree with each other, but no signed header carries that app hash.
    const fakeId = "f".repeat(64);
    const fakeRoot = blockTree([fakeId]).root;
    const historyRoot = inclusionRoot(blockLeaf(real.block.height, 1, fakeRoot), real.history.index, real.history.size, real.history.path.map((h) => Buffer.from(h, "hex")) as Hash[])!;
    const lie: TransactionProof = {
      ...real,
      transaction_id: fakeId,
      block: { height: real.block.height, index: 0, size: 1, path: [] },
      app_hash: appHashV1(real.history.size, historyRoot),
    };
    assert.ok(verifyTransactionProof(lie).ok, "the lie is consistent in itself");
    const refused = verifyTransactionProof(lie, { validators });
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? "" : refused.reason, /app hash/);
    // 2. The header's app hash rewritten to match: the validators signed another header.
    const header = { ...real.signed_header!.header, app_hash: lie.app_hash.toUpperCase() };
    const rewritten = verifyTransactionProof({ ...lie, signed_header: { ...real.signed_header!, header } }, { validators });
    assert.equal(rewritten.ok, false);
    assert.match(rewritten.ok ? "" : rewritten.reason, /signs another header/);
    // 3. A real proof checked against validators the client does not trust: their power is missing.
    const strangers = validators.map((v) => ({ publicKey: Uint8Array.from(v.publicKey, (b) => b ^ 0xff), power: v.power }));
    assert.equal(verifyTransactionProof(real, { validators: strangers }).ok, false);
    // 4. Signatures dropped to one validator's: less than two thirds.
    const commit = { ...real.signed_header!.commit, signatures: real.signed_header!.commit.signatures.slice(0, 1) };
    assert.equal(verifyTransactionProof({ ...real, signed_header: { ...real.signed_header!, commit } }, { validators }).ok, false);
    // 5. One signature's bytes changed (the first that votes for the block: one validator may be
    //    absent from a commit, its signature null).
    const counted = real.signed_header!.commit.signatures.findIndex((s) => s.block_id_flag === 2 && s.signature !== null);
    assert.ok(counted >= 0);
    const forged = real.signed_header!.commit.signatures.map((s, i) => (i === counted ? { ...s, signature: Buffer.from(Buffer.from(s.signature!, "base64").map((b, j) => (j === 0 ? b ^ 1 : b))).toString("base64") } : s));
    const forgedProof = { ...real, signed_header: { ...real.signed_header!, commit: { ...real.signed_header!.commit, signatures: forged } } };
    assert.equal(verifyTransactionProof(forgedProof, { validators }).ok, false);
  });
});
