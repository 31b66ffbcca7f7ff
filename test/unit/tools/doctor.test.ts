// `ledgerd doctor` against a stand-in CometBFT RPC and ledgerd API on real sockets: every check
// passes on a sound set-up, and each broken part fails its own check with what to do.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../../src/config/loadConfig.js";
import { supportedCometBftVersion } from "../../../src/engine/cometbft/supportedVersion.js";
import { runDoctor, type DoctorCheck } from "../../../src/tools/doctor.js";
import { createNodeKey } from "../../../src/node/nodeKey.js";

interface Fake {
  version: string;
  network: string;
  catchingUp: boolean;
  power: string;
  validatorKeyHex: string;
  peers: string;
  validators: string;
  abci: boolean;
  blockAheadMs: number;
  /** How far our precommit in the latest commit is stamped past the other validators'. */
  voteAheadMs: number;
}

const ourAddress = "AA".repeat(20);

describe("ledgerd doctor", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-doctor-"));
  let server: Server;
  let port = 0;
  let keyHex = "";
  let fake: Fake;

  before(async () => {
    keyHex = createNodeKey(dir)!.publicKeyHex;
    server = createServer((request, response) => {
      const answer = (body: unknown, status = 200) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      const path = request.url ?? "";
      if (path === "/readyz") return answer({ ready: true, checks: {} });
      if (path === "/status") {
        return answer({ result: {
          node_info: { version: fake.version, network: fake.network },
          sync_info: { catching_up: fake.catchingUp, latest_block_height: "7", latest_block_time: new Date(Date.now() + fake.blockAheadMs).toISOString() },
          validator_info: { address: ourAddress, pub_key: { value: Buffer.from(fake.validatorKeyHex, "hex").toString("base64") }, voting_power: fake.power },
        } });
      }
      if (path === "/abci_info") return fake.abci ? answer({ result: { response: { last_block_height: "7" } } }) : answer({}, 500);
      if (path === "/commit") {
        const at = (ms: number) => new Date(Date.now() - 60_000 + ms).toISOString();
        const signatures = [
          { block_id_flag: 2, validator_address: ourAddress, timestamp: at(fake.voteAheadMs) },
          ...["BB", "CC"].map((a, i) => ({ block_id_flag: 2, validator_address: a.repeat(20), timestamp: at(i) })),
          { block_id_flag: 1, validator_address: "DD".repeat(20), timestamp: "0001-01-01T00:00:00Z" },
        ];
        return answer({ result: { signed_header: { commit: { signatures } } } });
      }
      if (path === "/net_info") return answer({ result: { n_peers: fake.peers } });
      if (path === "/validators") return answer({ result: { total: fake.validators } });
      return answer({}, 404);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const sound = (): Fake => ({ version: supportedCometBftVersion, network: "chain-x", catchingUp: false, power: "10", validatorKeyHex: keyHex, peers: "3", validators: "4", abci: true, blockAheadMs: -60_000, voteAheadMs: 0 });
  const doctor = async (changes: Partial<Fake> = {}, engine = "cometbft"): Promise<Map<string, DoctorCheck>> => {
    fake = { ...sound(), ...changes };
    const config = loadConfig({
      flags: { data_dir: dir, "server.bind": `127.0.0.1:${port}`, "engine.kind": engine, "engine.chain_id": "chain-x", "engine.rpc_url": `http://127.0.0.1:${port}` },
      env: {},
    });
    return new Map((await runDoctor(config)).map((check) => [check.name, check]));
  };
  const failed = (checks: Map<string, DoctorCheck>) => [...checks.values()].filter((c) => !c.ok).map((c) => c.name);

  test("a sound validator passes every check", async () => {
    const checks = await doctor();
    assert.deepEqual(failed(checks), []);
    assert.deepEqual([...checks.keys()], ["node key", "ledgerd API", "CometBFT RPC", "CometBFT version", "chain id", "validator key", "sync", "clock", "ABCI", "peers"]);
  });

  test("each broken part fails its own check, with what to do", async () => {
    const cases: [Partial<Fake>, string, RegExp][] = [
      [{ version: "0.37.4" }, "CometBFT version", /install CometBFT/],
      [{ network: "other-chain" }, "chain id", /engine\.chain_id/],
      [{ catchingUp: true }, "sync", /wait/],
      [{ validatorKeyHex: "ab".repeat(32) }, "validator key", /--validator-key/],
      [{ peers: "0" }, "peers", /persistent_peers/],
      [{ abci: false }, "ABCI", /proxy_app/],
      [{ blockAheadMs: 30_000 }, "clock", /behind the network's: synchronise it/],
      [{ voteAheadMs: 180_000 }, "clock", /ahead of the network's: synchronise it/],
    ];
    for (const [change, name, fix] of cases) {
      const checks = await doctor(change);
      assert.deepEqual(failed(checks), [name], JSON.stringify(change));
      assert.match(checks.get(name)!.fix!, fix);
    }
  });

  test("a full node and a lone validator are not failures", async () => {
    assert.deepEqual(failed(await doctor({ power: "0", validatorKeyHex: "ab".repeat(32) })), []);
    assert.deepEqual(failed(await doctor({ peers: "0", validators: "1" })), []);
  });

  test("a CometBFT that does not answer, and the solo engine", async () => {
    fake = sound();
    const config = loadConfig({
      flags: { data_dir: dir, "server.bind": `127.0.0.1:${port}`, "engine.kind": "cometbft", "engine.rpc_url": "http://127.0.0.1:1" },
      env: {},
    });
    const checks = await runDoctor(config);
    assert.equal(checks.at(-1)!.name, "CometBFT RPC");
    assert.equal(checks.at(-1)!.ok, false);
    assert.deepEqual(failed(await doctor({}, "solo")), []);
  });

  test("the version it requires is the one scripts/install-cometbft.sh installs", () => {
    const pinned = readFileSync(new URL("../../../scripts/cometbft-version", import.meta.url), "utf8").trim();
    assert.equal(`v${supportedCometBftVersion}`, pinned);
  });
});
