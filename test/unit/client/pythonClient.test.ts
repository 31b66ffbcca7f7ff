// The Python package (clients/python) against a real solo node over real sockets: installed with
// `pip install ./clients/python` (into a folder of its own), it walks a key's outputs page by page and
// reads each transaction the official JS driver made with its proof checked against the node's
// checkpoint (examples/read_with_proof.py).
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import driver from "bigchaindb-driver";
import { LedgerdClient } from "../../../src/client/client.js";
import { createTx, ed, keypair, out } from "../../e2e/driverScenarios.js";
import { useStartedNode } from "../../helpers/startedNode.js";

// The driver is used as plain JavaScript, as its users do (its typings are narrower than its API).
const { Transaction } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
const packageDir = fileURLToPath(new URL("../../../clients/python", import.meta.url));
const env = { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PYTHONDONTWRITEBYTECODE: "1" };

function run(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8", env });
  if (result.error !== undefined) throw result.error;
  assert.equal(result.status, 0, `${command} ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

describe("the Python package against a solo node", () => {
  const node = useStartedNode("python-client");
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-python-client-"));
  const installed = join(dir, "site");
  before(() => {
    // Installed from a copy of the folder: pip builds in the source tree and would leave build/ there.
    const copy = join(dir, "src");
    run("cp", ["-r", packageDir, copy]);
    run("python3", ["-m", "pip", "install", "--quiet", "--target", installed, copy]);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("walks the outputs of the driver's transactions page by page and reads each with its proof", async () => {
    const client = new LedgerdClient(node().baseUrl);
    const alice = keypair();
    const bob = keypair();
    const made = [];
    for (let i = 0; i < 4; i++) made.push(createTx(alice, { python: "client", i }, { i }, "5"));
    for (const tx of made) await client.postTransaction(tx, "commit");
    const transfer = Transaction.signTransaction(
      Transaction.makeTransferTransaction([{ tx: made[0], output_index: 0 }], [out(ed(alice.publicKey), "2"), out(ed(bob.publicKey), "3")], null),
      alice.privateKey,
    );
    await client.postTransaction(transfer, "commit");
    const key = await client.getCheckpointKey();
    const whole = await client.getOutputs(alice.publicKey);
    assert.equal(whole.length, 5);

    // Not spawnSync: the node answering the script runs in this process.
    const script = join(packageDir, "examples", "read_with_proof.py");
    const { stdout } = await promisify(execFile)("python3", [script, node().baseUrl, alice.publicKey, key], { env: { ...env, PYTHONPATH: installed } });
    const read = JSON.parse(stdout);
    assert.deepEqual(read.outputs, whole, "every output, across three pages of two");
    const ids = [...made.map((tx) => tx.id), transfer.id].sort();
    assert.deepEqual(read.verified, ids, "each read with verify=True");
    assert.deepEqual(read.at_checkpoint, ids, "each read against the checkpoint");
    assert.equal(read.consistent, true);
    const kept = await client.verifiedCheckpoint(key);
    assert.deepEqual(read.checkpoint, { size: kept.size, height: kept.height, app_hash: kept.appHash });
  });
});
