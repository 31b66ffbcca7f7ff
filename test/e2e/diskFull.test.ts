// A full disk under load (issue 11, "Faults of the machine"), on a real disk: a 3 MB tmpfs as
// the data directory, filled by `mode=commit` POSTs from 30 keep-alive clients. Every request
// is answered at once (202 before the disk filled, 503 after; never a 504 after the commit
// timeout), and the process exits with 1 by itself, not after its connections time out.
// Mounting a tmpfs needs root: elsewhere the test is skipped (test/unit/engine/soloEngine.test.ts
// covers the engine's side with an injected failing store).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeJson } from "../../src/json/writeJson.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { startLedgerd } from "../unit/cli/ledgerdProcess.js";

const mountPoint = mkdtempSync(join(tmpdir(), "ledgerd-full-"));
const mounted = process.getuid?.() === 0 && spawnSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mountPoint]).status === 0;
after(() => {
  if (mounted) spawnSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const clients = 30;
const blobChars = 20_000;
const hangBoundMs = 60_000;

describe("a full disk", { skip: mounted ? false : "cannot mount a small tmpfs (needs root)" }, () => {
  it("answers every waiting commit at once with 503 and exits promptly with 1", async () => {
    // A commit timeout far beyond this test's: a waiter left behind would show as a hang.
    const node = await startLedgerd([
      "--data_dir", join(mountPoint, "data"),
      "--server.bind", "127.0.0.1:0",
      "--wsserver.bind", "127.0.0.1:0",
      "--engine.commit_timeout_ms", "600000",
    ]);
    const exited = new Promise<number | null>((resolve) => node.child.once("exit", (code) => resolve(code)));
    // Only a bound on a failure, not a measure: the node exits well within a second of the disk
    // filling. A node that hangs (a waiter left behind, a connection kept open) is killed
    // instead, and its exit code (null) fails the test rather than leaving it hanging.
    const hangBound = setTimeout(() => node.child.kill("SIGKILL"), hangBoundMs);
    const statuses = new Map<number, number>();
    const owner = keypairOf("disk full");
    let serial = 0;
    const client = async (): Promise<void> => {
      for (;;) {
        const tx = create(owner, 1n, { blob: "x".repeat(blobChars), serial: serial++ });
        let status: number;
        try {
          const answer = await fetch(`http://127.0.0.1:${node.port}/api/v1/transactions?mode=commit`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: writeJson(tx),
          });
          await answer.arrayBuffer();
          status = answer.status;
        } catch {
          return; // The node closed: this client is done.
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status !== 202) return;
      }
    };
    try {
      await Promise.all(Array.from({ length: clients }, client));
      assert.equal(await exited, 1, "the node exits with 1 by itself (null: it hung and was killed)");
    } finally {
      clearTimeout(hangBound);
      await node.stop("SIGKILL");
    }
    const answers = Object.fromEntries(statuses);
    assert.ok((statuses.get(202) ?? 0) > 0, `some commits before the disk filled: ${JSON.stringify(answers)}`);
    assert.ok((statuses.get(503) ?? 0) > 0, `503 once it filled: ${JSON.stringify(answers)}`);
    assert.deepEqual([...statuses.keys()].filter((s) => s !== 202 && s !== 503), [], JSON.stringify(answers));
    const fatal = node.lines.find((line) => line.level === 60);
    assert.match(String(fatal?.msg), /the engine stopped after an internal error/);
    assert.match(JSON.stringify(fatal?.["err"]), /disk is full/);
  });
});
