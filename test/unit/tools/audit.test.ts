// `ledgerd audit` (src/tools/audit.ts, docs/transparency.md "Auditor"): real solo nodes on real
// SQLite files over real sockets. Normal growth passes and the state advances; a wrong pinned
// key is a bad signature; two nodes sharing one node key with other transactions are a split
// view (through the command itself: its exit code and log line); a node restored from an older
// copy of its data folder is a rollback; a node cosigned by a ledgerd witness meets the quorum
// of that witness's key, and not a quorum of two. Following, the command serves the alarms as
// Prometheus metrics and exits with the worst code when stopped.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createNodeKey } from "../../../src/node/nodeKey.js";
import type { NodeHandle } from "../../../src/node/startNode.js";
import { cosignatureVerifierKeyOf } from "../../../src/proofs/cosignature.js";
import { verifierKeyOf } from "../../../src/proofs/signedNote.js";
import { auditRound, AuditMetrics, followAudit, noteKeysOf, readAuditState, type AuditOptions, type AuditState } from "../../../src/tools/audit.js";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";
import { keypairOf } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { commitCreates, startNodeIn } from "../../helpers/startedNode.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

const repoRoot = join(import.meta.dirname, "../../..");
const dirs: string[] = [];
const handles = new Set<NodeHandle>();
after(async () => {
  for (const handle of handles) await handle.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function newDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ledgerd-audit-${name}-`));
  dirs.push(dir);
  return dir;
}

interface Node {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

async function start(dir: string, settings: Record<string, string> = {}, port = 0): Promise<Node> {
  const node = await startNodeIn(dir, settings, port);
  handles.add(node.handle);
  return {
    url: node.baseUrl,
    port: node.port,
    close: async () => {
      handles.delete(node.handle);
      await node.handle.close();
    },
  };
}

const addTransactions = (node: Node, owner: string, from: number, count: number) => commitCreates(node.url, owner, from, count);

const empty: AuditState = { version: 1, logs: {}, nodes: {} };
const optionsOf = (nodes: string[], more: Partial<AuditOptions> = {}): AuditOptions => ({ nodes, keys: [], witnesses: [], quorum: 0, samples: 4, ...more });

function runCli(args: string[]): Promise<{ status: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...ledgerdArgs(), "audit", ...args], { cwd: repoRoot }, (error, stdout, stderr) => {
      resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : -1, out: `${stdout}${stderr}` });
    });
  });
}

describe("ledgerd audit", () => {
  test("normal growth passes and the state advances; a wrong pinned key is a bad signature", async () => {
    const node = await start(newDir("growth"));
    await addTransactions(node, "growth", 0, 3);
    const first = await auditRound(optionsOf([node.url]), empty);
    assert.deepEqual(first.report.alarms, []);
    assert.deepEqual(first.report.troubles, []);
    const origin = Object.keys(first.state.logs)[0]!;
    assert.equal(first.state.logs[origin]!.size, 3);
    const vkey = (await (await fetch(`${node.url}/api/v1/checkpoint/key`)).text()).trim();
    assert.equal(first.state.nodes[node.url]!.key, vkey, "the key is pinned on first use");

    await addTransactions(node, "growth", 3, 2);
    const second = await auditRound(optionsOf([node.url], { samples: 10 }), first.state);
    assert.deepEqual(second.report.alarms, []);
    assert.deepEqual(second.report.verified, [{ node: node.url, origin, size: 5, from: 3 }]);
    assert.equal(second.state.logs[origin]!.size, 5);

    // The same name with another key: pinned in the state, or given.
    const other = verifierKeyOf({ name: origin, publicKey: decodeBase58(keypairOf("not-the-node").publicKey) });
    const wrongPin = { ...second.state, nodes: { [node.url]: { ...second.state.nodes[node.url]!, key: other } } };
    for (const [options, state] of [[optionsOf([node.url]), wrongPin], [optionsOf([node.url], { keys: noteKeysOf([other], false) }), second.state]] as const) {
      const { report } = await auditRound(options, state);
      assert.deepEqual(report.alarms.map((a) => a.kind), ["bad_signature"]);
    }
    await node.close();
  });

  test("a split view: two nodes sharing one node key, other transactions, are caught by the command (exit 3, a log line) and counted when following", async () => {
    const dirA = newDir("split-a");
    const dirB = newDir("split-b");
    createNodeKey(dirA);
    cpSync(join(dirA, "node_key.json"), join(dirB, "node_key.json"));
    const a = await start(dirA);
    const b = await start(dirB);
    await addTransactions(a, "split-alice", 0, 3);
    await addTransactions(b, "split-bob", 0, 4);
    const statePath = join(newDir("split-state"), "audit.json");
    const { status, out } = await runCli(["--node", a.url, "--node", b.url, "--state", statePath]);
    assert.equal(status, 3, out);
    assert.match(out, new RegExp(`^ALARM split_view origin=ledgerd\\.invalid/\\S+ node=${b.url}: the checkpoint of size 4 does not extend the one of size 3`, "m"));
    assert.equal(readAuditState(statePath).logs["ledgerd.invalid/ledgerd-solo"]!.node, a.url, "the state keeps the first node's checkpoint");

    // Following, round after round: the alarm is counted each time, the verified size kept.
    const metrics = new AuditMetrics();
    let rounds = 0;
    const lines: string[] = [];
    const code = await followAudit(optionsOf([a.url, b.url]), { statePath, log: (line) => lines.push(line), next: async () => ++rounds < 2, metrics });
    assert.equal(code, 3);
    assert.equal(lines.filter((line) => line.startsWith("ALARM split_view")).length, 2);
    const text = await metrics.registry.metrics();
    assert.match(text, /^ledgerd_audit_alarms_total\{origin="ledgerd\.invalid\/ledgerd-solo",kind="split_view"\} 2$/m);
    assert.match(text, /^ledgerd_audit_verified_size\{origin="ledgerd\.invalid\/ledgerd-solo"\} 3$/m);

    // The smaller node seen after the larger: not a prefix of it either.
    const reversed = await auditRound(optionsOf([b.url, a.url]), empty);
    assert.deepEqual(reversed.report.alarms.map((x) => [x.kind, x.node]), [["split_view", a.url]]);
    assert.match(reversed.report.alarms[0]!.message, /is not a prefix of the one of size 4/);
    await a.close();
    await b.close();
  });

  test("a node restored from an older copy of its data folder is a rollback (exit 3)", async () => {
    const dir = newDir("rollback");
    const backup = newDir("rollback-backup");
    let node = await start(dir);
    await addTransactions(node, "rollback", 0, 2);
    const port = node.port;
    await node.close();
    cpSync(dir, backup, { recursive: true });
    node = await start(dir, {}, port);
    await addTransactions(node, "rollback", 2, 2);
    const statePath = join(newDir("rollback-state"), "audit.json");
    const first = await runCli(["--node", node.url, "--state", statePath]);
    assert.equal(first.status, 0, first.out);
    await node.close();
    rmSync(dir, { recursive: true, force: true });
    cpSync(backup, dir, { recursive: true });
    node = await start(dir, {}, port);
    const { status, out } = await runCli(["--node", node.url, "--state", statePath]);
    assert.equal(status, 3, out);
    assert.match(out, /^ALARM rollback origin=\S+ node=\S+: the node serves a checkpoint of size 2, smaller than the 4 it served before$/m);
    assert.equal(readAuditState(statePath).nodes[node.url]!.size, 4, "the state is not moved back");
    await node.close();
  });

  test("a node cosigned by a ledgerd witness meets the quorum of its key, not a quorum of two", async () => {
    const dir = newDir("witnessed");
    let node = await start(dir);
    const vkey = (await (await fetch(`${node.url}/api/v1/checkpoint/key`)).text()).trim();
    const port = node.port;
    await node.close();
    const witness = await start(newDir("witness"), { "witness.logs": vkey });
    const witnessVkey = (await (await fetch(`${witness.url}/api/v1/witness/key`)).text()).trim();
    node = await start(dir, { "checkpoint.witnesses": `${witnessVkey}@${witness.url}/api/v1/witness`, "checkpoint.witness_quorum": "1" }, port);
    await addTransactions(node, "witnessed", 0, 2);
    const witnesses = noteKeysOf([witnessVkey], true);
    const met = await auditRound(optionsOf([node.url], { witnesses, quorum: 1 }), empty);
    assert.deepEqual(met.report.alarms, []);
    assert.equal(met.report.verified.length, 1);
    const another = cosignatureVerifierKeyOf({ name: "other.example/witness", publicKey: decodeBase58(keypairOf("other-witness").publicKey) });
    const unmet = await auditRound(optionsOf([node.url], { witnesses: [...witnesses, ...noteKeysOf([another], true)], quorum: 2 }), empty);
    assert.deepEqual(unmet.report.alarms.map((a) => a.kind), ["quorum_unmet"]);
    assert.match(unmet.report.alarms[0]!.message, /^1 of the 2 witnesses cosigned the checkpoint of size 2; the quorum is 2$/);
    await node.close();
    await witness.close();
  });
});

describe("ledgerd audit --follow --metrics", () => {
  test("serves the alarms and the verified size over a real socket, and exits with the worst code on SIGTERM", async () => {
    const dirA = newDir("follow-a");
    const dirB = newDir("follow-b");
    createNodeKey(dirA);
    cpSync(join(dirA, "node_key.json"), join(dirB, "node_key.json"));
    const a = await start(dirA);
    const b = await start(dirB);
    await addTransactions(a, "follow-alice", 0, 2);
    await addTransactions(b, "follow-bob", 0, 2);
    const statePath = join(newDir("follow-state"), "audit.json");
    const child = spawn(process.execPath, [...ledgerdArgs(), "audit", "--node", a.url, "--node", b.url, "--state", statePath, "--follow", "--interval", "1", "--metrics", "127.0.0.1:0"], { cwd: repoRoot });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await waitFor("the first round's alarm and the metrics address", () => /ALARM split_view/.test(out) && /metrics at (\S+)/.test(out), {
      abortIf: () => (child.exitCode === null ? null : `the auditor exited ${child.exitCode}: ${out}`),
    });
    const url = /metrics at (\S+)/.exec(out)![1]!;
    const text = await (await fetch(url)).text();
    assert.match(text, /^ledgerd_audit_alarms_total\{origin="ledgerd\.invalid\/ledgerd-solo",kind="split_view"\} [1-9]/m);
    assert.match(text, /^ledgerd_audit_verified_size\{origin="ledgerd\.invalid\/ledgerd-solo"\} 2$/m);
    child.kill("SIGTERM");
    assert.equal(await exited, 3, out);
    await a.close();
    await b.close();
  });
});

describe("ledgerd audit's usage errors", () => {
  test("a quorum over the witnesses given, an interval of 0, a key that is not one: exit 1, said, nothing fetched", async () => {
    const witness = cosignatureVerifierKeyOf({ name: "w.example/w", publicKey: decodeBase58(keypairOf("usage-witness").publicKey) });
    const state = join(newDir("usage"), "audit.json");
    const cases: [string[], RegExp][] = [
      [["--witness", witness, "--quorum", "2"], /--quorum 2 is more than the 1 --witness keys/],
      [["--follow", "--interval", "0"], /--interval 0: at least 1 second between rounds/],
      [["--key", "nonsense"], /nonsense is not an Ed25519 verifier key/],
    ];
    for (const [args, message] of cases) {
      const { status, out } = await runCli(["--node", "http://127.0.0.1:1", "--state", state, ...args]);
      assert.equal(status, 1, out);
      assert.match(out, message);
    }
  });
});
