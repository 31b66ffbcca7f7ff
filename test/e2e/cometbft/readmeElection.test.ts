// The README's "Changing the validator set" on the testnet the README makes (issue 37): its
// `--power` passes BigchainDB's power rule against the genesis `ledgerd testnet` writes, `testnet
// add-node` prints the election that makes the new node a validator (its key and node id, a
// validator's data_dir, an allowed power), and the README's `show-node-id` with the testnet's
// own CometBFT binary answers that node id. Nothing is started: the files are what is checked
// (elections.test.ts runs elections on a live network of four).
// It needs CometBFT (scripts/install-cometbft.sh) and fails without it.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { readNodeKey } from "../../../src/node/nodeKey.js";
import { readManifest } from "../../../src/testnet/manifest.js";
import { powerChangeAllowed } from "../../../src/transaction/elections.js";
import { repoRoot, runLedgerd } from "../../unit/cli/ledgerdProcess.js";
import { freeBasePort, requireCometBft } from "./network.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-readme-election-"));
after(() => rmSync(root, { recursive: true, force: true }));

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("### Changing the validator set"), readme.indexOf("## A tour of the folders"));

function found(pattern: RegExp, text: string): RegExpExecArray {
  const match = pattern.exec(text);
  assert.ok(match !== null, `${pattern} not found`);
  return match;
}

/** `--flag value` of a printed command line. */
function flagOf(line: string, flag: string): string {
  return found(new RegExp(`${flag} (\\S+)`), line)[1]!;
}

it("the README's election works on the README's testnet, and add-node prints one that does", async () => {
  requireCometBft();
  const validators = found(/^ledgerd testnet --validators (\d+) --dir net\b/m, readme)[1]!;
  const net = join(root, "net");
  const made = runLedgerd(["testnet", "--validators", validators, "--dir", net, "--base-port", String(await freeBasePort(Number(validators) + 1))]);
  assert.equal(made.status, 0, made.stderr);
  const genesis = JSON.parse(readFileSync(join(net, "node0", "cometbft", "config", "genesis.json"), "utf8")) as { validators: { pub_key: { value: string }; power: string }[] };
  const total = genesis.validators.reduce((sum, v) => sum + Number(v.power), 0);
  assert.ok(genesis.validators.every((v) => v.power === "1"), "the README says each testnet validator has power 1");

  const readmePower = Number(flagOf(found(/^ledgerd election new upsert-validator .*$/m, section)[0], "--power"));
  assert.ok(powerChangeAllowed(readmePower, total), `the README's --power ${readmePower} is refused with a total of ${total}`);

  const added = runLedgerd(["testnet", "add-node", "--dir", net]);
  assert.equal(added.status, 0, added.stderr);
  const election = found(/^ {2}ledgerd election new upsert-validator .*$/m, added.stdout)[0];
  const node4 = join(net, "node4", "cometbft");
  const validatorKey = JSON.parse(readFileSync(join(node4, "config", "priv_validator_key.json"), "utf8")) as { pub_key: { value: string } };
  assert.equal(flagOf(election, "--public-key"), validatorKey.pub_key.value);
  assert.ok(powerChangeAllowed(Number(flagOf(election, "--power")), total));
  // The proposer's key is a genesis validator's.
  const proposer = readNodeKey(flagOf(election, "--data_dir"));
  assert.ok(proposer !== null);
  const genesisKeys = genesis.validators.map((v) => Buffer.from(v.pub_key.value, "base64").toString("hex"));
  assert.ok(genesisKeys.includes(proposer.publicKeyHex));

  // The README's show-node-id, with the binary the testnet runs (testnet.json), names the same node.
  const showNodeId = found(/`(\.cache\/bin\/cometbft) (show-node-id --home net\/node4\/cometbft)`/, section);
  const args = showNodeId[2]!.replace("net/", `${net}/`).split(" ");
  const shown = spawnSync(readManifest(net).cometbft, args, { encoding: "utf8" });
  assert.equal(shown.status, 0, shown.stderr);
  assert.equal(shown.stdout.trim(), flagOf(election, "--node-id"));
});
