// Interoperability with other people's code (docs/transparency.md): a real solo node, over real
// sockets, checked by test/interop/tlogcheck, a Go program built on golang.org/x/mod's signed
// notes and tlog, transparency-dev/formats' checkpoints, transparency-dev/merkle's proofs and
// filippo.io/torchwood's tile client. 300 blocks, so that the tree has a full tile, a full entry
// bundle and a level-1 tile. The program is built once per version of its sources
// (scripts/install-tlogcheck.sh). The same tiles, mirrored (`ledgerd mirror`) and served by a
// plain static file server, are read by the same client.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, normalize } from "node:path";
import { after, before, describe, test } from "node:test";
import { decodeBase58 } from "../../src/crypto-conditions/decodeBase58.js";
import { toBase64, toHex } from "../../src/proofs/encoding.js";
import { noteKeyId, verifierKeyOf } from "../../src/proofs/signedNote.js";
import { mirrorLog, nodeLogSource } from "../../src/tools/mirror.js";
import { writeJson } from "../../src/json/writeJson.js";
import { create, keypairOf } from "../helpers/txFactory.js";
import { useStartedNode } from "../helpers/startedNode.js";
import { installGoTools, runBinary } from "../helpers/goTools.js";

const blocks = 300;

const run = (args: string[]) => runBinary(binary, args);
const tlogcheckBinary = () => installGoTools("scripts/install-tlogcheck.sh")[0]!;

let binary = "";

describe("ledgerd's transparency log read by other people's code", () => {
  const node = useStartedNode("tlog-interop");
  let firstId = "";

  before(async () => {
    binary = tlogcheckBinary();
    const alice = keypairOf("tlog-interop");
    for (let i = 0; i < blocks; i++) {
      const tx = create(alice, 1n, { i });
      if (i === 0) firstId = tx["id"] as string;
      const response = await fetch(`${node().baseUrl}/api/v1/transactions?mode=commit`, { method: "POST", body: writeJson(tx), headers: { "content-type": "application/json" } });
      assert.equal(response.status, 202);
    }
  });


  test("checkpoints, inclusion and consistency proofs, tiles and entry bundles all verify", async () => {
    const vkey = (await (await fetch(`${node().baseUrl}/api/v1/checkpoint/key`)).text()).trim();
    const { status, out } = await run(["-node", node().baseUrl, "-vkey", vkey, "-tx", firstId, "-from", "7"]);
    assert.equal(status, 0, out);
    assert.match(out, /^ok checkpoint ledgerd\.invalid\/.+ size 300 signed by/m);
    assert.match(out, /^ok tiles: 300 entry bundles' entries verified/m);
    assert.match(out, /^ok inclusion: transaction [0-9a-f]{64} in block 1, leaf 0 of the signed tree of 300/m);
    assert.match(out, /^ok consistency: signed tree of 300 extends the signed tree of 7/m);
  });

  test("the tiles mirrored as static files serve the same client", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ledgerd-tlog-mirror-"));
    // A plain static server: files by path, nothing else.
    const server = createServer((request, response) => {
      try {
        const bytes = readFileSync(join(dir, normalize(request.url ?? "/").replace(/^(\.\.[/\\])+/, "")));
        response.writeHead(200).end(bytes);
      } catch {
        response.writeHead(404).end();
      }
    });
    after(() => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const report = await mirrorLog(nodeLogSource(node().baseUrl), dir);
    assert.equal(report.size, blocks);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const prefix = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const vkey = (await (await fetch(`${node().baseUrl}/api/v1/checkpoint/key`)).text()).trim();
    const { status, out } = await run(["-node", node().baseUrl, "-prefix", prefix, "-vkey", vkey, "-tx", firstId, "-from", "100"]);
    assert.equal(status, 0, out);
    assert.match(out, /^ok tiles: 300 entry bundles' entries verified/m);
  });

  test("a checkpoint signed by another key is refused by the Go verifier", async () => {
    // The same name with another key: x/mod finds no signature by the key it was given.
    const vkey = (await (await fetch(`${node().baseUrl}/api/v1/checkpoint/key`)).text()).trim();
    const [name] = vkey.split("+");
    const other = `${name}+00000000+AQ${"A".repeat(42)}`;
    const { status, out } = await run(["-node", node().baseUrl, "-vkey", other, "-tx", firstId]);
    assert.equal(status, 1, out);
    assert.match(out, /^FAIL (the verifier key|x\/mod\/sumdb\/note does not open)/m);
  });
});

describe("ledgerd witnessing a log made with x/mod", () => {
  // The log's key, written in x/mod's signer form: PRIVATE+KEY+<name>+<key ID>+base64(0x01 || seed).
  const keypair = keypairOf("x/mod log");
  const log = { name: "go.example/log", publicKey: decodeBase58(keypair.publicKey) };
  const logVkey = verifierKeyOf(log);
  const logSkey = `PRIVATE+KEY+${log.name}+${toHex(noteKeyId(log))}+${toBase64(Uint8Array.of(0x01, ...keypair.seed))}`;
  const node = useStartedNode("tlog-witness", { "witness.logs": logVkey, "witness.name": "ledgerd.example/witness" });

  before(() => {
    binary = tlogcheckBinary();
  });

  test("cosigns its checkpoints as they grow, answers 409 with the size, refuses a fork with 422", async () => {
    const witnessVkey = (await (await fetch(`${node().baseUrl}/api/v1/witness/key`)).text()).trim();
    const { status, out } = await run(["witness", "-node", node().baseUrl, "-log-skey", logSkey, "-log-vkey", logVkey, "-witness-vkey", witnessVkey]);
    assert.equal(status, 0, out);
    assert.match(out, /^ok witness: cosigned the log's first checkpoint \(size 5\)/m);
    assert.match(out, /^ok witness: refused a fork of the log/m);
  });
});
