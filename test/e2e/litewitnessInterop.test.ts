// ledgerd's checkpoints cosigned by someone else's witness (docs/transparency.md "Checking ledgerd
// with other tools"): filippo.io/torchwood's litewitness, a C2SP tlog-witness, built by
// scripts/install-litewitness.sh, its Ed25519 key in a dedicated ssh-agent, its state in its own
// SQLite file, over real sockets. witnessctl registers the node's origin and verifier key; a real
// solo node configured with litewitness in `checkpoint.witnesses` serves its checkpoints with
// litewitness's cosignature, which ledgerd's own verifier and auditor accept, as the log grows,
// and so does test/interop/tlogcheck (transparency-dev/formats' cosignature verifier).
// A second node with the same node key and another history (a split view) gets none.
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createNodeKey } from "../../src/node/nodeKey.js";
import { cosignatureType, cosignatureVerifierKeyOf, verifyCosignature } from "../../src/proofs/cosignature.js";
import { toHex } from "../../src/proofs/encoding.js";
import { noteKeyId, splitNote, type NoteKey } from "../../src/proofs/signedNote.js";
import { auditRound, noteKeysOf } from "../../src/tools/audit.js";
import { commitCreates, startNodeIn, type StartedNode } from "../helpers/startedNode.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { waitFor } from "../helpers/waitFor.js";
import { installGoTools, runBinary } from "../helpers/goTools.js";
import { freeBasePort } from "./cometbft/network.js";

const witnessName = "litewitness.example/w";

function installed(): { litewitness: string; witnessctl: string; tlogcheck: string } {
  const [litewitness, witnessctl] = installGoTools("scripts/install-litewitness.sh", 2);
  return { litewitness: litewitness!, witnessctl: witnessctl!, tlogcheck: installGoTools("scripts/install-tlogcheck.sh")[0]! };
}

/** The raw Ed25519 key of an OpenSSH public key line: the blob is string "ssh-ed25519", string key. */
function ed25519KeyOfSshLine(line: string): Uint8Array {
  const blob = Buffer.from(line.split(" ")[1]!, "base64");
  const typeLength = blob.readUInt32BE(0);
  return new Uint8Array(blob.subarray(4 + typeLength + 4, 4 + typeLength + 4 + 32));
}

/** The checkpoint's cosignatures by `key` (name and cosignature key ID) and whether each verifies. */
function cosignaturesBy(checkpoint: string, key: NoteKey): boolean[] {
  const note = splitNote(checkpoint);
  assert.ok(note !== null, checkpoint);
  const id = toHex(noteKeyId(key, cosignatureType));
  return note.signatures.filter((s) => s.name === key.name && toHex(s.keyId) === id).map((s) => verifyCosignature(key, note.body, s.signature));
}

describe("ledgerd's checkpoints cosigned by torchwood's litewitness", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-litewitness-"));
  const children: ChildProcess[] = [];
  const nodes: StartedNode[] = [];
  const db = join(dir, "litewitness.db");
  let bin = { litewitness: "", witnessctl: "", tlogcheck: "" };
  let witnessKey: NoteKey = { name: witnessName, publicKey: new Uint8Array() };
  let witnessUrl = "";
  let stopping = false;
  /** The first node's last cosigned head, as litewitness keeps it. */
  let cosignedHead = { size: 0, root_hash: "" };

  function startChild(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => {
      if (!stopping && code !== 0) process.stderr.write(`${command} exited ${code}: ${stderr}\n`);
    });
    children.push(child);
    return child;
  }

  const witnessctl = (...args: string[]) => execFileSync(bin.witnessctl, [args[0]!, "-db", db, ...args.slice(1)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const witnessed = { "checkpoint.witness_quorum": "1" } as Record<string, string>;

  before(async () => {
    bin = installed();
    // A dedicated ssh-agent (in the foreground, so that it is this process's child) holding a fresh key.
    const keyFile = join(dir, "witness_key");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "litewitness", "-f", keyFile]);
    const socket = join(dir, "agent.sock");
    startChild("ssh-agent", ["-D", "-a", socket]);
    await waitFor("the ssh-agent's socket", () => (existsSync(socket) ? true : undefined));
    execFileSync("ssh-add", ["-q", keyFile], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: "ignore" });
    const fingerprint = execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", `${keyFile}.pub`], { encoding: "utf8" }).split(" ")[1]!;
    witnessKey = { name: witnessName, publicKey: ed25519KeyOfSshLine(readFileSync(`${keyFile}.pub`, "utf8")) };

    const port = await freeBasePort(1);
    witnessUrl = `http://127.0.0.1:${port}`;
    startChild(bin.litewitness, ["-db", db, "-name", witnessName, "-key", fingerprint, "-ssh-agent", socket, "-listen", `127.0.0.1:${port}`]);
    // Any HTTP answer says it listens (its database is created by then).
    await waitFor("litewitness listening", async () => {
      try {
        await fetch(witnessUrl);
        return true;
      } catch {
        return undefined;
      }
    });
    witnessed["checkpoint.witnesses"] = `${cosignatureVerifierKeyOf(witnessKey)}@${witnessUrl}`;
  });

  after(async () => {
    for (const node of nodes) await node.handle.close();
    stopping = true;
    for (const child of children) child.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  test("registered with witnessctl, it cosigns the node's checkpoints as they grow; ledgerd and transparency-dev/formats verify the cosignatures", async () => {
    const dirA = join(dir, "node-a");
    createNodeKey(dirA);
    const node = await startNodeIn(dirA, witnessed);
    nodes.push(node);
    const vkey = (await (await fetch(`${node.baseUrl}/api/v1/checkpoint/key`)).text()).trim();
    const origin = vkey.split("+")[0]!;
    witnessctl("add-log", "-origin", origin);
    witnessctl("add-key", "-origin", origin, "-key", vkey);

    for (const [from, count, size] of [[0, 3, 3], [3, 2, 5]] as const) {
      await commitCreates(node.baseUrl, "litewitness-a", from, count);
      const checkpoint = await (await fetch(`${node.baseUrl}/api/v1/checkpoint`)).text();
      assert.match(checkpoint, new RegExp(`^${origin.replace(/[./]/g, "\\$&")}\n${size}\n`));
      assert.deepEqual(cosignaturesBy(checkpoint, witnessKey), [true], checkpoint);
      // litewitness keeps the cosigned head in its database.
      const [logged] = witnessctl("list-logs").trim().split("\n").map((line) => JSON.parse(line) as { origin: string; size: number; root_hash: string });
      assert.deepEqual([logged!.origin, logged!.size, logged!.root_hash], [origin, size, checkpoint.split("\n")[2]]);
      cosignedHead = { size: logged!.size, root_hash: logged!.root_hash };
    }
    const firstId = create(keypairOf("litewitness-a"), 1n, { i: 0 })["id"] as string;
    const checked = await runBinary(bin.tlogcheck, ["-node", node.baseUrl, "-vkey", vkey, "-tx", firstId, "-from", "2", "-witness-vkey", cosignatureVerifierKeyOf(witnessKey)]);
    assert.equal(checked.status, 0, checked.out);
    assert.match(checked.out, /^ok checkpoint cosigned by litewitness\.example\/w, verified by transparency-dev\/formats$/m);
    // ledgerd's auditor counts litewitness's cosignature towards its quorum.
    const round = await auditRound({ nodes: [node.baseUrl], keys: [], witnesses: noteKeysOf([cosignatureVerifierKeyOf(witnessKey)], true), quorum: 1, samples: 2 }, { version: 1, logs: {}, nodes: {} });
    assert.deepEqual(round.report.alarms, []);
    assert.equal(round.report.verified.length, 1);
  });

  test("a second node with the same key and another history gets no cosignature (a split view)", async () => {
    const dirB = join(dir, "node-b");
    cpSync(join(dir, "node-a", "node_key.json"), join(dirB, "node_key.json"));
    const node = await startNodeIn(dirB, witnessed);
    nodes.push(node);
    await commitCreates(node.baseUrl, "litewitness-b", 0, 7);
    const checkpoint = await (await fetch(`${node.baseUrl}/api/v1/checkpoint`)).text();
    assert.match(checkpoint, /\n7\n/);
    assert.deepEqual(cosignaturesBy(checkpoint, witnessKey), [], checkpoint);
    const [logged] = witnessctl("list-logs").trim().split("\n").map((line) => JSON.parse(line) as { size: number; root_hash: string });
    assert.equal(cosignedHead.size, 5);
    assert.deepEqual({ size: logged!.size, root_hash: logged!.root_hash }, cosignedHead, "litewitness still holds the first node's head");
  });
});
