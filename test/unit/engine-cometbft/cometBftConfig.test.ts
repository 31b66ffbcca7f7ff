import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { publicKeyFromSeed } from "../../../src/crypto-conditions/publicKeyFromSeed.js";
import { goDuration, nodeConfigEdits, nodeIdOf, setTomlValues, stateSyncEdits, tomlLiteral, validatorSeedOf } from "../../../src/engine/cometbft/cometBftConfig.js";

// The shape of CometBFT v0.38's config.toml: top-level keys, then tables, comments between.
const sample = [
  "# This is a TOML config file.",
  'proxy_app = "tcp://127.0.0.1:26658"',
  'moniker = "old"',
  "",
  "[rpc]",
  "# TCP or UNIX socket address for the RPC server to listen on",
  'laddr = "tcp://127.0.0.1:26657"',
  "max_body_bytes = 1000000",
  "",
  "[p2p]",
  'laddr = "tcp://0.0.0.0:26656"',
  "addr_book_strict = true",
  "",
].join("\n");

describe("config.toml edits", () => {
  it("replaces a key's value in its own table only", () => {
    const out = setTomlValues(sample, [
      { section: "p2p", key: "laddr", value: "tcp://127.0.0.1:1" },
      { section: "", key: "moniker", value: "node0" },
      { section: "rpc", key: "max_body_bytes", value: 42 },
      { section: "p2p", key: "addr_book_strict", value: false },
    ]);
    assert.match(out, /\[rpc\]\n# TCP or UNIX[^\n]*\nladdr = "tcp:\/\/127\.0\.0\.1:26657"/);
    assert.match(out, /\[p2p\]\nladdr = "tcp:\/\/127\.0\.0\.1:1"\naddr_book_strict = false/);
    assert.match(out, /^moniker = "node0"$/m);
    assert.match(out, /^max_body_bytes = 42$/m);
    assert.equal(out.split("\n").length, sample.split("\n").length);
  });

  it("fails on a key the file does not have, rather than leaving a default in force", () => {
    assert.throws(() => setTomlValues(sample, [{ section: "rpc", key: "no_such_key", value: 1 }]), /no key no_such_key in \[rpc\]/);
    assert.throws(() => setTomlValues(sample, [{ section: "", key: "laddr", value: "x" }]), /no key laddr in \[\]/);
  });

  it("writes TOML literals and Go durations", () => {
    assert.equal(tomlLiteral('a "quoted" \\ path'), '"a \\"quoted\\" \\\\ path"');
    assert.equal(tomlLiteral(true), "true");
    assert.equal(tomlLiteral(7), "7");
    assert.throws(() => tomlLiteral(1.5), RangeError);
    assert.equal(goDuration(150), "150ms");
    assert.equal(goDuration(35_000), "35s");
  });

  it("computes a node id as CometBFT does: SHA-256 of the public key, first 20 bytes", () => {
    const seed = Buffer.alloc(32, 1);
    const pub = Buffer.alloc(32, 2);
    const json = JSON.stringify({ priv_key: { type: "tendermint/PrivKeyEd25519", value: Buffer.concat([seed, pub]).toString("base64") } });
    assert.equal(nodeIdOf(json), createHash("sha256").update(pub).digest("hex").slice(0, 40));
    assert.throws(() => nodeIdOf(JSON.stringify({ priv_key: { type: "other", value: "" } })), /Ed25519/);
  });

  it("reads a validator's seed from priv_validator_key.json (the first half of the private key)", () => {
    const seed = Buffer.alloc(32, 3);
    const pub = Buffer.from(publicKeyFromSeed(seed));
    const file = (priv: Buffer) =>
      JSON.stringify({
        address: "00",
        pub_key: { type: "tendermint/PubKeyEd25519", value: pub.toString("base64") },
        priv_key: { type: "tendermint/PrivKeyEd25519", value: priv.toString("base64") },
      });
    assert.deepEqual(Buffer.from(validatorSeedOf(file(Buffer.concat([seed, pub])))), seed);
    assert.throws(() => validatorSeedOf(file(seed)), /priv_validator_key\.json's key is not 64 bytes/);
    assert.throws(() => validatorSeedOf(file(Buffer.concat([seed, Buffer.alloc(32, 4)]))), /not its seed's/);
  });

  it("names only keys a v0.38 config.toml has, with loopback settings for a loopback network", () => {
    const edits = nodeConfigEdits({
      moniker: "node1",
      addresses: { abci: "127.0.0.1:2", rpc: "127.0.0.1:3", p2p: "127.0.0.1:4", externalP2p: "127.0.0.1:4" },
      persistentPeers: ["aa@127.0.0.1:14", "bb@127.0.0.1:24"],
      timeoutCommitMs: 200,
      timeoutProposeMs: 1_000,
      broadcastCommitTimeoutMs: 35_000,
      txBytesMax: 1_048_576,
      loopback: true,
    });
    const byKey = new Map(edits.map((e) => [`${e.section}.${e.key}`, e.value]));
    assert.equal(byKey.get(".proxy_app"), "tcp://127.0.0.1:2");
    assert.equal(byKey.get("rpc.laddr"), "tcp://127.0.0.1:3");
    assert.equal(byKey.get("p2p.persistent_peers"), "aa@127.0.0.1:14,bb@127.0.0.1:24");
    assert.equal(byKey.get("p2p.allow_duplicate_ip"), true);
    assert.equal(byKey.get("p2p.addr_book_strict"), false);
    assert.equal(byKey.get("consensus.create_empty_blocks"), false);
    assert.equal(byKey.get("consensus.timeout_commit"), "200ms");
    assert.equal(byKey.get("rpc.timeout_broadcast_tx_commit"), "35s");
    assert.ok((byKey.get("rpc.max_body_bytes") as number) > (1_048_576 * 4) / 3, "room for a largest transaction in base64");
  });

  it("sets [statesync] for a joining node: one RPC named twice (CometBFT wants two), the trust point upper-cased", () => {
    const trust = { trustHeight: 12, trustHash: "ab".repeat(32), trustPeriod: "168h0m0s", discoveryTime: "5s" };
    const byKey = new Map(stateSyncEdits({ rpcServers: ["127.0.0.1:3"], ...trust }).map((e) => [`${e.section}.${e.key}`, e.value]));
    assert.equal(byKey.get("statesync.enable"), true);
    assert.equal(byKey.get("statesync.rpc_servers"), "http://127.0.0.1:3,http://127.0.0.1:3");
    assert.equal(byKey.get("statesync.trust_height"), 12);
    assert.equal(byKey.get("statesync.trust_hash"), "AB".repeat(32));
    assert.equal(byKey.get("statesync.trust_period"), "168h0m0s");
    assert.equal(byKey.get("statesync.discovery_time"), "5s");
    const two = new Map(stateSyncEdits({ rpcServers: ["10.0.0.1:26657", "http://10.0.0.2:26657"], ...trust }).map((e) => [e.key, e.value]));
    assert.equal(two.get("rpc_servers"), "http://10.0.0.1:26657,http://10.0.0.2:26657");
    assert.throws(() => stateSyncEdits({ rpcServers: [], ...trust }), /needs a CometBFT RPC server/);
    assert.throws(() => stateSyncEdits({ rpcServers: ["a:1"], ...trust, trustHeight: 0 }), /trust height 0/);
    assert.throws(() => stateSyncEdits({ rpcServers: ["a:1"], ...trust, trustHash: "xyz" }), /not 64 hex digits/);
  });
});
