import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";
import { encodeBase58 } from "../../../src/crypto-conditions/encodeBase58.js";
import { publicKeyFromSeed } from "../../../src/crypto-conditions/publicKeyFromSeed.js";
import { makeCreate } from "../../../src/transaction/builders/makeCreate.js";
import { makeKeypair } from "../../../src/transaction/builders/makeKeypair.js";
import { signTx } from "../../../src/transaction/builders/signTx.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { httpCall, runLedgerd, startLedgerd, useTempDirs } from "./ledgerdProcess.js";

const tempDir = useTempDirs("ledgerd-cli-");

/** Ports the OS picks, on loopback, so tests never collide with a running node. */
const anyPorts = ["--server.bind", "127.0.0.1:0", "--wsserver.bind", "127.0.0.1:0"];

function assertKeypair(publicKey: unknown, privateKey: unknown): void {
  assert.equal(typeof publicKey, "string");
  assert.equal(typeof privateKey, "string");
  const seed = decodeBase58(privateKey as string);
  assert.equal(seed.length, 32);
  assert.equal(decodeBase58(publicKey as string).length, 32);
  assert.equal(makeKeypair(seed).publicKey, publicKey, "the public key belongs to the private key");
}

describe("ledgerd keys", () => {
  it("prints a new valid Ed25519 keypair in base58", () => {
    const first = runLedgerd(["keys"]);
    const second = runLedgerd(["keys"]);
    assert.equal(first.status, 0, first.stderr);
    const a = JSON.parse(first.stdout) as Record<string, unknown>;
    const b = JSON.parse(second.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(a).sort(), ["private_key", "public_key"]);
    assertKeypair(a["public_key"], a["private_key"]);
    assertKeypair(b["public_key"], b["private_key"]);
    assert.notEqual(a["private_key"], b["private_key"]);
  });
});

describe("ledgerd config", () => {
  it("prints the effective settings, env over defaults and flags over env", () => {
    const dataDir = tempDir();
    const result = runLedgerd(
      ["config", "--data_dir", dataDir, "--server.workers", "4", "--engine", "solo", "--engine.block_interval_ms", "7"],
      { LEDGERD_SERVER_BIND: "0.0.0.0:1234", LEDGERD_SERVER_WORKERS: "3", LEDGERD_WSSERVER_BIND: "[::1]:9000", LEDGERD_LOG_LEVEL: "warn" },
    );
    assert.equal(result.status, 0, result.stderr);
    const config = JSON.parse(result.stdout) as Record<string, Record<string, unknown>>;
    assert.equal(config["server"]!["bind"], "0.0.0.0:1234");
    assert.equal(config["server"]!["workers"], 4);
    assert.equal(config["wsserver"]!["bind"], "[::1]:9000");
    assert.equal(config["engine"]!["block_interval_ms"], 7);
    assert.equal(config["engine"]!["kind"], "solo");
    assert.equal(config["log"]!["level"], "warn");
    assert.equal(config["data_dir"] as unknown, dataDir);
    assert.equal(config["database"]!["path"], join(dataDir, "ledgerd.sqlite"));
  });

  it("reads the data dir's config.json, or --config FILE", () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, "config.json"), JSON.stringify({ server: { threads: 0 } }));
    const other = join(tempDir(), "other.json");
    writeFileSync(other, JSON.stringify({ server: { threads: 5 } }));
    const implicit = JSON.parse(runLedgerd(["config", "--data_dir", dataDir]).stdout) as { server: { threads: number } };
    assert.equal(implicit.server.threads, 0);
    const explicit = JSON.parse(runLedgerd(["config", "--data_dir", dataDir, "--config", other]).stdout) as { server: { threads: number } };
    assert.equal(explicit.server.threads, 5);
  });

  it("exits non-zero with a clear message on a bad flag, value or variable", () => {
    const unknown = runLedgerd(["config", "--server.bnd", "x:1"]);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /unknown option '--server\.bnd'/);
    assert.match(unknown.stderr, /Did you mean --server\.bind\?/);
    assert.equal(unknown.stdout, "");

    const badValue = runLedgerd(["config", "--server.bind", "nope"]);
    assert.equal(badValue.status, 1);
    assert.match(badValue.stderr, /^ledgerd: invalid settings:\n {2}server\.bind \(flag --server\.bind\): must be HOST:PORT/);

    const badEnv = runLedgerd(["config"], { LEDGERD_SERVER_WORKERS: "0", LEDGERD_SERVR_BIND: "x" });
    assert.equal(badEnv.status, 1);
    assert.match(badEnv.stderr, /server\.workers \(env LEDGERD_SERVER_WORKERS\): must be >= 1/);
    assert.match(badEnv.stderr, /LEDGERD_SERVR_BIND \(env\): unknown variable \(did you mean LEDGERD_SERVER_BIND\?\)/);

    const badStart = runLedgerd(["start", "--data_dir", tempDir(), "--server.threads", "-1"]);
    assert.equal(badStart.status, 1);
    assert.match(badStart.stderr, /server\.threads \(flag --server\.threads\): must be >= 0/);
  });

  it("shows every setting with its default and env variable in --help", () => {
    const top = runLedgerd(["--help"]);
    assert.equal(top.status, 0);
    assert.match(top.stdout, /start \[options\]/);
    assert.match(top.stdout, /server\.bind +LEDGERD_SERVER_BIND +"localhost:9984"/);
    assert.match(top.stdout, /engine\.block_interval_ms +LEDGERD_ENGINE_BLOCK_INTERVAL_MS +20/);
    const start = runLedgerd(["start", "--help"]);
    assert.equal(start.status, 0);
    assert.match(start.stdout, /--server\.bind <HOST:PORT> .*\(default: "localhost:9984"; env LEDGERD_SERVER_BIND\)/);
    assert.match(start.stdout, /--engine <solo[^>]*> +same as --engine\.kind \(env LEDGERD_ENGINE\)/);
    assert.match(start.stdout, /--config <FILE>/);
  });
});

describe("ledgerd init", () => {
  it("writes config.json and node_key.json into the data dir, and never replaces the key", () => {
    const dataDir = tempDir();
    const first = runLedgerd(["init", "--data_dir", dataDir, "--server.bind", "127.0.0.1:7000"]);
    assert.equal(first.status, 0, first.stderr);
    const written = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")) as Record<string, Record<string, unknown>>;
    assert.equal(written["server"]!["bind"], "127.0.0.1:7000");
    assert.equal("data_dir" in written, false);
    assert.equal(written["database"]!["path"], "ledgerd.sqlite");
    const keyPath = join(dataDir, "node_key.json");
    const key = JSON.parse(readFileSync(keyPath, "utf8")) as Record<string, unknown>;
    assert.equal(key["type"], "ed25519");
    assertKeypair(key["public_key"], key["private_key"]);
    assert.equal(statSync(keyPath).mode & 0o777, 0o600);
    assert.match(first.stdout, new RegExp(`wrote ${keyPath} \\(public key ${String(key["public_key"])}\\)`));

    // The written file is what the node reads next.
    const shown = JSON.parse(runLedgerd(["config", "--data_dir", dataDir]).stdout) as Record<string, Record<string, unknown>>;
    assert.equal(shown["server"]!["bind"], "127.0.0.1:7000");

    const again = runLedgerd(["init", "--data_dir", dataDir]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already exists; --force replaces it/);

    const forced = runLedgerd(["init", "--data_dir", dataDir, "--force", "--server.threads", "1"]);
    assert.equal(forced.status, 0, forced.stderr);
    assert.match(forced.stdout, /kept .*node_key\.json/);
    const rewritten = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8")) as Record<string, Record<string, unknown>>;
    assert.equal(rewritten["server"]!["threads"], 1);
    assert.equal(rewritten["server"]!["bind"], "127.0.0.1:7000", "--force keeps what the old file said");
    assert.deepEqual(JSON.parse(readFileSync(keyPath, "utf8")), key);
  });

  it("--validator-key takes the node key from a CometBFT priv_validator_key.json, and never replaces one", () => {
    const dataDir = tempDir();
    const validatorFile = (seed: Buffer): string => {
      const path = join(tempDir(), "priv_validator_key.json");
      const pub = Buffer.from(publicKeyFromSeed(seed));
      const value = Buffer.concat([seed, pub]).toString("base64");
      writeFileSync(path, JSON.stringify({ pub_key: { type: "tendermint/PubKeyEd25519", value: pub.toString("base64") }, priv_key: { type: "tendermint/PrivKeyEd25519", value } }));
      return path;
    };
    const seed = Buffer.alloc(32, 9);
    const first = runLedgerd(["init", "--data_dir", dataDir, "--validator-key", validatorFile(seed)]);
    assert.equal(first.status, 0, first.stderr);
    const key = JSON.parse(readFileSync(join(dataDir, "node_key.json"), "utf8")) as Record<string, unknown>;
    assert.equal(key["public_key"], encodeBase58(publicKeyFromSeed(seed)));
    assert.equal(key["private_key"], encodeBase58(seed));

    const same = runLedgerd(["init", "--data_dir", dataDir, "--force", "--validator-key", validatorFile(seed)]);
    assert.equal(same.status, 0, same.stderr);
    assert.match(same.stdout, /kept .*node_key\.json/);
    const other = runLedgerd(["init", "--data_dir", dataDir, "--force", "--validator-key", validatorFile(Buffer.alloc(32, 8))]);
    assert.equal(other.status, 1);
    assert.match(other.stderr, /holds another key .*never replaced/);
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, "node_key.json"), "utf8")), key);
  });
});

describe("ledgerd start", () => {
  it("comes up in a fresh data dir, answers GET / over HTTP, and exits 0 on SIGTERM", async () => {
    const dataDir = tempDir();
    const node = await startLedgerd(["--data_dir", dataDir, ...anyPorts]);
    try {
      assert.equal(node.started["dataDir"], dataDir);
      assert.equal(node.started["engine"], "solo");
      assert.deepEqual(Object.keys(node.started["versions"] as object).sort(), ["ledgerd", "node"]);
      const root = await httpCall(node.port, "GET", "/");
      assert.equal(root.status, 200);
      const body = JSON.parse(root.body) as { software: string; api: { v1: { streams: string } } };
      assert.equal(body.software, "ledgerd");
      assert.equal(body.api.v1.streams, node.started["streamsUrl"]);
      assert.match(body.api.v1.streams, /^ws:\/\/127\.0\.0\.1:\d+\/api\/v1\/streams\/valid_transactions$/);
      // The key made on first start is the node key, and the validator.
      const key = JSON.parse(readFileSync(join(dataDir, "node_key.json"), "utf8")) as { public_key: string };
      assert.equal(node.started["publicKey"], key.public_key);
      const validators = JSON.parse((await httpCall(node.port, "GET", "/api/v1/validators")).body) as unknown[];
      assert.equal(validators.length, 1);
    } finally {
      const exit = await node.stop("SIGTERM");
      assert.deepEqual(exit, { code: 0, signal: null });
    }
    assert.ok(node.lines.some((line) => line.msg === "ledgerd stopped"));
  });

  it("starts again on the same data dir (before any block), with the key init wrote, and exits 0 on SIGINT", async () => {
    const dataDir = tempDir();
    const init = runLedgerd(["init", "--data_dir", dataDir, ...anyPorts]);
    assert.equal(init.status, 0, init.stderr);
    const key = JSON.parse(readFileSync(join(dataDir, "node_key.json"), "utf8")) as { public_key: string };
    // The ports come from the config.json init wrote.
    const first = await startLedgerd(["--data_dir", dataDir]);
    assert.equal(first.started["publicKey"], key.public_key);
    assert.deepEqual(await first.stop("SIGINT"), { code: 0, signal: null });
    const second = await startLedgerd(["--data_dir", dataDir]);
    try {
      assert.equal(second.started["publicKey"], key.public_key);
      assert.equal((await httpCall(second.port, "GET", "/api/v1/")).status, 200);
    } finally {
      assert.deepEqual(await second.stop("SIGTERM"), { code: 0, signal: null });
    }
  });

  it("on SIGTERM commits the transactions it accepted before exiting 0", async () => {
    const dataDir = tempDir();
    // A long block interval: without the shutdown, nothing would be committed before exit.
    const node = await startLedgerd(["--data_dir", dataDir, ...anyPorts, "--engine.block_interval_ms", "60000"]);
    const owner = makeKeypair(new Uint8Array(32).fill(21));
    const ids: string[] = [];
    try {
      for (const n of [1, 2, 3]) {
        const unsigned = makeCreate({ issuers: [owner.publicKey], outputs: [{ publicKeys: [owner.publicKey], amount: 1n }], assetData: { n }, metadata: null });
        const tx = signTx(unsigned, [owner]);
        const answer = await httpCall(node.port, "POST", "/api/v1/transactions?mode=async", writeJson(tx));
        assert.equal(answer.status, 202, answer.body);
        ids.push(tx["id"] as string);
      }
      assert.equal((await httpCall(node.port, "GET", `/api/v1/transactions/${ids[0]!}`)).status, 404, "not committed yet");
    } finally {
      assert.deepEqual(await node.stop("SIGTERM"), { code: 0, signal: null });
    }
    const again = await startLedgerd(["--data_dir", dataDir, ...anyPorts]);
    try {
      assert.equal(again.started["height"], 1);
      for (const id of ids) assert.equal((await httpCall(again.port, "GET", `/api/v1/transactions/${id}`)).status, 200);
    } finally {
      await again.stop();
    }
  });

  it("refuses to start when the port is taken, in one line, before it writes anything", async () => {
    const dataDir = tempDir();
    const node = await startLedgerd(["--data_dir", dataDir, ...anyPorts]);
    try {
      const fresh = join(tempDir(), "never-made");
      const clash = runLedgerd(["start", "--data_dir", fresh, "--server.bind", `127.0.0.1:${node.port}`, "--wsserver.bind", "127.0.0.1:0"]);
      assert.equal(clash.status, 1);
      const lines = clash.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown });
      const fatal = lines.filter((line) => line.level === 60);
      assert.equal(fatal.length, 1, clash.stdout);
      assert.equal(fatal[0]!.msg, `ledgerd failed to start: server.bind 127.0.0.1:${node.port} is already in use`);
      assert.equal(fatal[0]!.err, undefined, "no stack for a refusal");
      // Neither the data directory, nor a database, nor a node key was created.
      assert.equal(existsSync(fresh), false);
    } finally {
      await node.stop();
    }
  });
});
