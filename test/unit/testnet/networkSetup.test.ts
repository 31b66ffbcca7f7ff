// `ledgerd network genesis` on part files (no CometBFT needed): the genesis names every part's
// validator with its power, the peers list every part, and what cannot form a network is refused.
// `network join --state-sync` (CometBFT's `init` writes the config.toml it edits): its [statesync].
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { protocolVersion } from "../../../src/ledger/protocol.js";
import { networkGenesis, networkInit, networkJoin, type NetworkPart } from "../../../src/testnet/networkSetup.js";
import { defaultCometBftBinary } from "../../../src/testnet/testnet.js";

describe("network genesis", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-genesis-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const part = (name: string, id: string, power = 10): string => {
    const value: NetworkPart = { moniker: name, node_id: id, p2p: `10.0.0.${id.length}:26656`, pub_key: Buffer.alloc(32, name).toString("base64"), power };
    const path = join(dir, `${name}.json`);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };

  test("names every validator with its power, and lists every peer", () => {
    const written = networkGenesis("chain-1", [part("a", "aa"), part("b", "bbb", 20)], join(dir, "out"));
    const genesis = JSON.parse(readFileSync(written.genesis, "utf8")) as { chain_id: string; initial_height: string; consensus_params: { version: { app: string } }; validators: { power: string; name: string; pub_key: { type: string } }[] };
    assert.equal(genesis.chain_id, "chain-1");
    assert.equal(genesis.initial_height, "1");
    // The protocol version the chain's block headers start with (docs/upgrades.md).
    assert.equal(genesis.consensus_params.version.app, String(protocolVersion));
    assert.deepEqual(genesis.validators.map((v) => [v.name, v.power, v.pub_key.type]), [["a", "10", "tendermint/PubKeyEd25519"], ["b", "20", "tendermint/PubKeyEd25519"]]);
    assert.deepEqual(JSON.parse(readFileSync(written.peers, "utf8")), ["aa@10.0.0.2:26656", "bbb@10.0.0.3:26656"]);
  });

  test("refuses no parts, a part twice, and a chain id CometBFT would not take", () => {
    assert.throws(() => networkGenesis("chain-1", [], join(dir, "x")), /every validator's part/);
    assert.throws(() => networkGenesis("chain-1", [part("c", "cc"), part("c2", "cc")], join(dir, "x")), /same node id/);
    assert.throws(() => networkGenesis("a chain", [part("d", "dd")], join(dir, "x")), /--chain-id/);
  });
});

describe("network join --state-sync", () => {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-join-statesync-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("writes CometBFT's [statesync]: the RPCs named, the trusted height and hash, CometBFT's trust period", () => {
    const machine = (name: string, last: number) => networkInit({
      dir: join(dir, name), cometbft: defaultCometBftBinary(), moniker: name, p2pExternal: `10.0.0.${last}:26656`, p2pListen: "0.0.0.0:26656",
      rpc: "127.0.0.1:26657", abci: "127.0.0.1:26658", http: "0.0.0.0:9984", ws: "0.0.0.0:9985", power: 10, loopback: false,
    });
    machine("a", 1);
    machine("joiner", 2);
    const written = networkGenesis("chain-ss", [join(dir, "a", "part.json")], join(dir, "out"));
    const joined = networkJoin(join(dir, "joiner"), written.genesis, written.peers, { rpcServers: ["10.0.0.1:26657"], trust: { height: 42, hash: "ab".repeat(32) } });
    assert.equal(joined.validator, false);
    const toml = readFileSync(join(dir, "joiner", "cometbft", "config", "config.toml"), "utf8");
    const statesync = toml.slice(toml.indexOf("[statesync]"), toml.indexOf("[blocksync]"));
    assert.match(statesync, /^enable = true$/m);
    assert.match(statesync, /^rpc_servers = "http:\/\/10\.0\.0\.1:26657,http:\/\/10\.0\.0\.1:26657"$/m);
    assert.match(statesync, /^trust_height = 42$/m);
    assert.match(statesync, new RegExp(`^trust_hash = "${"AB".repeat(32)}"$`, "m"));
    assert.match(statesync, /^trust_period = "168h0m0s"$/m);
    assert.match(statesync, /^discovery_time = "15s"$/m);
  });
});
