// Issue 38: a node's CometBFT killed just as its ledgerd has answered a FinalizeBlock, then
// started again alone (as `ledgerd testnet start --node I` does). ledgerd must keep running:
// the block it finalized belongs to the connection that closed, and the restarted CometBFT's
// handshake replays that height. The moment is made exact by a pass-through on the ABCI
// connections (CometBFT's proxy_app points at it) that SIGKILLs CometBFT on ledgerd's first
// FinalizeBlock answer once armed, and never forwards that answer. A 1-validator testnet of real
// processes; needs CometBFT (scripts/install-cometbft.sh).
import assert from "node:assert/strict";
import { existsSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FrameReader, decodeRequest, decodeResponse, encodeUvarint } from "../../../src/engine/cometbft/abciCodec.js";
import { createTestnet, runningPid, startTestnet, stopTestnet, type TestnetManifest } from "../../../src/testnet/testnet.js";
import { makeRandomKeypair } from "../../../src/transaction/builders/makeRandomKeypair.js";
import { create } from "../../helpers/txFactory.js";
import { waitFor } from "../../helpers/waitFor.js";
import { runLedgerd } from "../../unit/cli/ledgerdProcess.js";
import { freeBasePort, getText, logTail, nodeOf, post, requireCometBft } from "./network.js";

const root = mkdtempSync(join(tmpdir(), "ledgerd-finalize-crash-"));
let manifest: TestnetManifest;
let relay: AbciRelay;

/**
 * Passes ABCI bytes between CometBFT and ledgerd, reading ledgerd's answers frame by frame.
 * Armed, it kills `victim()` at the first answer to a FinalizeBlock of a block with transactions
 * (not CometBFT's empty block after an app hash change), before forwarding it.
 */
class AbciRelay {
  armed = false;
  /** The height of the FinalizeBlock whose answer CometBFT never got, once killed. */
  killedAt: number | null = null;
  /** The CometBFT killed. */
  killedPid: number | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(listenPort: number, upstreamPort: number, victim: () => number | null): Promise<AbciRelay> {
    let relay: AbciRelay | null = null;
    const server = createServer((client) => relay!.pair(client, upstreamPort, victim));
    relay = new AbciRelay(server);
    await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
    return relay;
  }

  private pair(client: Socket, upstreamPort: number, victim: () => number | null): void {
    const upstream = connect(upstreamPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    const answers = new FrameReader(1 << 26);
    const requests = new FrameReader(1 << 26);
    const blocks: { height: number; txs: number }[] = [];
    client.on("data", (chunk: Buffer) => {
      // Only to know what each FinalizeBlock asks for; the bytes go through the pipe.
      for (const message of requests.push(chunk)) {
        const block = decodeRequest(message).finalizeBlock;
        if (block !== undefined) blocks.push({ height: Number(block.height), txs: block.txs.length });
      }
    });
    upstream.on("data", (chunk: Buffer) => {
      for (const message of answers.push(chunk)) {
        if (decodeResponse(message).finalizeBlock !== undefined) {
          const { height, txs } = blocks.shift()!;
          if (this.armed && txs > 0) {
            this.armed = false;
            const pid = victim();
            assert.ok(pid !== null, "CometBFT runs");
            process.kill(pid, "SIGKILL");
            this.killedPid = pid;
            this.killedAt = height;
            client.destroy();
            return;
          }
        }
        if (client.writable) client.write(Buffer.concat([encodeUvarint(message.length), message]));
      }
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

before(async () => {
  const cometbft = requireCometBft();
  const base = await freeBasePort(1);
  manifest = createTestnet({ validators: 1, dir: root, basePort: base, cometbft, timeoutCommitMs: 150, logLevel: "warn" });
  const node = nodeOf(manifest, 0);
  // CometBFT's proxy_app to the relay, a free port of the node's block (testnet.ts uses 0 to 4).
  const relayPort = base + 5;
  const config = join(root, node.home, "config", "config.toml");
  const text = readFileSync(config, "utf8");
  assert.ok(text.includes(`proxy_app = "tcp://${node.abci}"`));
  writeFileSync(config, text.replace(`proxy_app = "tcp://${node.abci}"`, `proxy_app = "tcp://127.0.0.1:${relayPort}"`));
  relay = await AbciRelay.start(relayPort, Number(node.abci.split(":")[1]), () => runningPid(root, node, "cometbft"));
  await startTestnet(root);
});

after(async () => {
  await stopTestnet(root).catch(() => undefined);
  await relay?.close();
  if (process.env["LEDGERD_TEST_KEEP"] !== "1") rmSync(root, { recursive: true, force: true });
});

describe("CometBFT killed between FinalizeBlock and Commit, restarted alone", () => {
  it("ledgerd keeps running; the replayed block commits; verify-chain passes", async () => {
    const node = nodeOf(manifest, 0);
    const owner = makeRandomKeypair();
    const first = create(owner, 1n, { crash: "before" });
    assert.equal((await post(node, first, "commit")).status, 202);
    const ledgerdPid = runningPid(root, node, "ledgerd");
    assert.ok(ledgerdPid !== null);

    relay.armed = true;
    const caught = create(owner, 1n, { crash: "in the block CometBFT died on" });
    assert.equal((await post(node, caught, "async")).status, 202);
    await waitFor("CometBFT killed at a FinalizeBlock answer", () => relay.killedAt, { timeoutMs: 30_000 });
    // Gone from /proc (reaped: this process started it): its sockets are closed by then, which
    // they may not be yet while its pid shows as a zombie or an exiting process.
    await waitFor("CometBFT gone", () => !existsSync(`/proc/${relay.killedPid}`));

    await startTestnet(root, { nodes: [0] });
    const id = caught["id"] as string;
    await waitFor("the replayed block's transaction", async () => getText(node, `/api/v1/transactions/${id}`), { timeoutMs: 30_000 });
    assert.equal(await getText(node, `/api/v1/blocks?transaction_id=${id}`), JSON.stringify([relay.killedAt]), "committed at the replayed height");
    const after = create(owner, 1n, { crash: "after" });
    const next = await post(node, after, "commit");
    assert.equal(next.status, 202, `${JSON.stringify(next.body)}\n${logTail(root, node, "ledgerd")}`);
    assert.equal(runningPid(root, node, "ledgerd"), ledgerdPid, `ledgerd kept running:\n${logTail(root, node, "ledgerd")}`);

    await stopTestnet(root);
    const verified = runLedgerd(["verify-chain", "--data_dir", join(root, node.dataDir)]);
    assert.equal(verified.status, 0, `${verified.stdout}${verified.stderr}`);
  });
});
