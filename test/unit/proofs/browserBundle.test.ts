// `ledgerd/verify` runs in a browser: bundled for the browser platform (esbuild refuses a Node
// built-in there), it runs in a bare JavaScript context that has only what every browser has
// (no `require`, no `process`, no Buffer), and verifies a proof the ledger made. The package
// exports it from the file the build makes of src/proofs/verify.ts.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { describe, it } from "node:test";
import { build } from "esbuild";
import { blockTree } from "../../../src/proofs/blockTree.js";
import { blockLeaf, appHashV1 } from "../../../src/proofs/commitment.js";
import { toHex } from "../../../src/proofs/encoding.js";
import { HistoryEdge } from "../../../src/proofs/history.js";
import { inclusionPath, leafNodes } from "../../../src/proofs/merkle.js";
import { transactionLeaf } from "../../../src/proofs/commitment.js";

const entry = new URL("../../../src/proofs/verify.ts", import.meta.url).pathname;

describe("ledgerd/verify in a browser", () => {
  it("bundles for the browser and verifies a proof in a context with browser globals only", async () => {
    const bundle = await build({ entryPoints: [entry], bundle: true, platform: "browser", format: "iife", globalName: "ledgerdVerify", write: false, logLevel: "silent" });
    const code = bundle.outputFiles[0]!.text;
    assert.doesNotMatch(code, /require\(["']node:/);
    // A proof of the second of three transactions in the only block of a history of one block.
    const ids = ["a", "b", "c"].map((c) => c.repeat(64));
    const root = blockTree(ids).root;
    const edge = HistoryEdge.empty().append(blockLeaf(1, 3, root)).edge;
    const proof = {
      version: 1,
      transaction_id: ids[1],
      block: { height: 1, index: 1, size: 3, path: inclusionPath(leafNodes(ids.map(transactionLeaf)), 1, 3).map(toHex) },
      history: { index: 0, size: 1, path: [] },
      height: 1,
      app_hash: appHashV1(edge.size, edge.root()),
      signed_header: null,
    };
    const browser = { TextEncoder, atob, proof: JSON.stringify(proof), result: "" };
    runInNewContext(`${code}
      const verdict = ledgerdVerify.verifyTransactionProof(JSON.parse(proof));
      const lie = JSON.parse(proof); lie.block.index = 2;
      result = JSON.stringify([verdict.ok, ledgerdVerify.verifyTransactionProof(lie).ok, typeof require, typeof process]);`, browser);
    assert.equal(browser.result, JSON.stringify([true, false, "undefined", "undefined"]));
  });

  it("is what the package exports as ledgerd/verify", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, { default: string; types: string }> };
    assert.equal(pkg.exports["./verify"]?.default, "./dist/src/proofs/verify.js");
    assert.equal(pkg.exports["./verify"]?.types, "./dist/src/proofs/verify.d.ts");
  });
});
