import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { ConfigError } from "../../../src/config/configError.js";
import { configDefault } from "../../../src/config/defaults.js";
import { loadConfig, type ConfigDeps, type ConfigSources } from "../../../src/config/loadConfig.js";
import { moduleOptions } from "../../../src/config/moduleOptions.js";
import { settingList } from "../../../src/config/settingList.js";
import { soloEngineOptionsDefault } from "../../../src/engine/solo/options.js";
import { streamOptionsDefault } from "../../../src/events/options.js";
import { httpOptionsDefault } from "../../../src/http/options.js";
import { checkpointOptionsDefault, ledgerOptionsDefault, witnessOptionsDefault } from "../../../src/ledger/options.js";
import { preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { sqliteStoreOptionsDefault } from "../../../src/store/sqlite/options.js";

const cwd = "/srv/work";
const homeDir = "/home/alice";

/** loadConfig over an in-memory file system. */
function load(sources: Partial<ConfigSources>, files: Record<string, string> = {}) {
  const deps: ConfigDeps = { readFile: (path) => files[path] ?? null, cwd, homeDir };
  return loadConfig({ env: sources.env ?? {}, flags: sources.flags ?? {} }, deps);
}

/** The problems of a ConfigError, as `key: reason (source)` lines, to match against. */
function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    assert.ok(error.problems.length > 0);
    return error.problems.map((p) => `${p.key}: ${p.reason} (${p.source})`);
  }
  assert.fail("expected a ConfigError");
}

function assertProblem(run: () => unknown, pattern: RegExp): void {
  const problems = problemsOf(run);
  assert.ok(problems.some((p) => pattern.test(p)), `no problem matches ${pattern}:\n${problems.join("\n")}`);
}

const defaultDataDir = resolve(cwd, configDefault.data_dir);
const defaultFile = `${defaultDataDir}/config.json`;

describe("loadConfig defaults", () => {
  it("are the modules' own defaults, paths made absolute", () => {
    const config = load({});
    assert.deepEqual(config, {
      ...configDefault,
      data_dir: defaultDataDir,
      database: { ...configDefault.database, path: resolve(defaultDataDir, configDefault.database.path) },
    });
    const options = moduleOptions(config);
    assert.deepEqual(options.ledger, ledgerOptionsDefault);
    assert.deepEqual(options.preparePool, preparePoolOptionsDefault);
    assert.deepEqual(options.soloEngine, soloEngineOptionsDefault);
    assert.deepEqual(options.stream, streamOptionsDefault);
    assert.deepEqual(options.checkpoint, checkpointOptionsDefault);
    assert.deepEqual(options.witness, witnessOptionsDefault);
    // The node lets read-only stores in beside it (workers, backup, verify-chain).
    assert.deepEqual(options.sqliteStore, { ...sqliteStoreOptionsDefault, path: resolve(cwd, sqliteStoreOptionsDefault.path), access: "readers" });
    for (const name of ["host", "port", "bodyBytesMax", "searchLimitMax", "requestTimeoutMs", "pipelinedRequestsMax"] as const) {
      assert.equal(options.http[name], httpOptionsDefault[name], name);
    }
  });

  it("open the store as the writer that read-only stores (HTTP workers, backup, verify-chain) read beside", () => {
    assert.equal(moduleOptions(load({})).sqliteStore.access, "readers");
    assert.equal(moduleOptions(load({ flags: { "server.workers": "2" } })).sqliteStore.access, "readers");
  });

  it("keep BigchainDB's addresses and the issue's engine", () => {
    assert.equal(configDefault.server.bind, "localhost:9984");
    assert.equal(configDefault.wsserver.bind, "localhost:9985");
    assert.equal(configDefault.database.backend, "sqlite");
    assert.equal(configDefault.engine.kind, "solo");
    assert.equal(configDefault.log.level, "info");
  });

  it("are frozen, and so is every result", () => {
    const config = load({ flags: { "server.workers": "2" } });
    for (const object of [configDefault, configDefault.server, config, config.server, config.engine, config.database]) {
      assert.ok(Object.isFrozen(object));
    }
    assert.throws(() => {
      (config.server as { workers: number }).workers = 3;
    }, TypeError);
    assert.equal(config.server.workers, 2);
  });
});

describe("loadConfig precedence: file < env < flags", () => {
  const file = JSON.stringify({ server: { bind: "file-host:1", workers: 2 }, engine: { block_interval_ms: 5 } });

  it("takes each setting from the highest source that has it", () => {
    const config = load(
      {
        env: { LEDGERD_SERVER_BIND: "env-host:2", LEDGERD_ENGINE_BLOCK_INTERVAL_MS: "6", LEDGERD_SERVER_THREADS: "0" },
        flags: { "server.bind": "flag-host:3" },
      },
      { [defaultFile]: file },
    );
    assert.equal(config.server.bind, "flag-host:3");
    assert.equal(config.engine.block_interval_ms, 6);
    assert.equal(config.server.workers, 2);
    assert.equal(config.server.threads, 0);
    assert.equal(config.engine.txs_per_block_max, configDefault.engine.txs_per_block_max);
  });

  it("uses the file over the defaults when nothing else is given", () => {
    const config = load({}, { [defaultFile]: file });
    assert.equal(config.server.bind, "file-host:1");
    assert.equal(config.engine.block_interval_ms, 5);
    // A section given in part keeps the defaults of the rest.
    assert.equal(config.server.body_bytes_max, configDefault.server.body_bytes_max);
  });

  it("uses env over the file", () => {
    const config = load({ env: { LEDGERD_SERVER_BIND: "env-host:2" } }, { [defaultFile]: file });
    assert.equal(config.server.bind, "env-host:2");
  });

  it("reads the file named by --config, then LEDGERD_CONFIG, else <data_dir>/config.json", () => {
    const files = {
      "/etc/ledgerd.json": JSON.stringify({ log: { level: "warn" } }),
      "/srv/work/other.json": JSON.stringify({ log: { level: "error" } }),
      "/var/node/config.json": JSON.stringify({ log: { level: "debug" } }),
      [defaultFile]: JSON.stringify({ log: { level: "trace" } }),
    };
    assert.equal(load({ flags: { config: "/etc/ledgerd.json" }, env: { LEDGERD_CONFIG: "other.json" } }, files).log.level, "warn");
    assert.equal(load({ env: { LEDGERD_CONFIG: "other.json" } }, files).log.level, "error");
    assert.equal(load({ env: { LEDGERD_DATA_DIR: "/var/node" } }, files).log.level, "debug");
    assert.equal(load({ flags: { data_dir: "/var/node" }, env: { LEDGERD_DATA_DIR: "/nowhere" } }, files).log.level, "debug");
    assert.equal(load({}, files).log.level, "trace");
    assert.equal(load({ flags: { data_dir: "/empty" } }, files).log.level, "info");
  });

  it("lets an explicit config file set data_dir", () => {
    const files = { "/etc/ledgerd.json": JSON.stringify({ data_dir: "/var/lib/ledgerd" }) };
    const config = load({ flags: { config: "/etc/ledgerd.json" } }, files);
    assert.equal(config.data_dir, "/var/lib/ledgerd");
    assert.equal(config.database.path, "/var/lib/ledgerd/ledgerd.sqlite");
    assert.equal(load({ flags: { config: "/etc/ledgerd.json", data_dir: "/x" } }, files).data_dir, "/x");
  });
});

describe("loadConfig names", () => {
  it("has one env variable and one flag per setting, with the issue's names", () => {
    const envs = settingList.map((s) => s.env);
    for (const name of ["LEDGERD_SERVER_BIND", "LEDGERD_SERVER_WORKERS", "LEDGERD_SERVER_THREADS", "LEDGERD_WSSERVER_BIND",
      "LEDGERD_WSSERVER_ADVERTISED_URL", "LEDGERD_DATABASE_BACKEND", "LEDGERD_DATABASE_PATH", "LEDGERD_ENGINE_KIND",
      "LEDGERD_ENGINE_BLOCK_INTERVAL_MS", "LEDGERD_DATA_DIR", "LEDGERD_LOG_LEVEL", "LEDGERD_ENGINE_COMMIT_TIMEOUT_MS",
      "LEDGERD_ENGINE_TXS_PER_BLOCK_MAX", "LEDGERD_SERVER_BODY_BYTES_MAX", "LEDGERD_WSSERVER_SUBSCRIBERS_MAX"]) {
      assert.ok(envs.includes(name), name);
    }
    assert.equal(new Set(envs).size, envs.length);
    assert.ok(settingList.every((s) => s.flag === `--${s.key}` && s.description.length > 0));
  });

  it("sets every setting from its env variable and its flag", () => {
    for (const setting of settingList) {
      const value = sampleValue(setting.key);
      // A setting that works only beside another is given with it.
      const needsCometBft = setting.key === "engine.cometbft_home" || setting.key === "engine.retain_blocks";
      const needsPostgres = setting.key === "database.url";
      const env = needsCometBft ? { LEDGERD_ENGINE_KIND: "cometbft" } : needsPostgres ? { LEDGERD_DATABASE_BACKEND: "postgres" } : {};
      const flags = needsCometBft ? { "engine.kind": "cometbft" } : needsPostgres ? { "database.backend": "postgres" } : {};
      const fromEnv = readKey(load({ env: { ...env, [setting.env]: value } }), setting.key);
      const fromFlag = readKey(load({ flags: { ...flags, [setting.key]: value } }), setting.key);
      const expected = setting.type === "integer" ? Number(value) : setting.type === "boolean" ? value === "true" : value;
      if (setting.key === "data_dir" || setting.key === "database.path") continue;
      assert.equal(fromEnv, expected, setting.env);
      assert.equal(fromFlag, expected, setting.flag);
    }
  });

  it("takes metrics.bind empty (the default: no metrics) or HOST:PORT", () => {
    assert.equal(load({}).metrics.bind, "");
    assert.equal(load({ flags: { "metrics.bind": "" } }).metrics.bind, "");
    assert.equal(load({ env: { LEDGERD_METRICS_BIND: "0.0.0.0:9986" } }).metrics.bind, "0.0.0.0:9986");
    assertProblem(() => load({ flags: { "metrics.bind": "9986" } }), /^metrics\.bind: must be empty \(off\) or HOST:PORT.*\(got "9986"\) \(flag --metrics\.bind\)$/);
  });

  it("takes engine as the short name of engine.kind, in a file, env and flags", () => {
    assert.equal(load({}, { [defaultFile]: '{"engine": "solo"}' }).engine.kind, "solo");
    assert.equal(load({ env: { LEDGERD_ENGINE: "solo" } }).engine.kind, "solo");
    assert.equal(load({ flags: { engine: "solo", "engine.block_interval_ms": "7" } }).engine.block_interval_ms, 7);
    assertProblem(() => load({ flags: { engine: "paxos" } }), /^engine\.kind: must be one of solo\b.*\(flag --engine\)$/);
    assertProblem(() => load({ env: { LEDGERD_ENGINE: "x" } }), /^engine\.kind: must be one of solo\b.*\(env LEDGERD_ENGINE\)$/);
    assertProblem(() => load({}, { [defaultFile]: '{"engine": "nope"}' }), /^engine\.kind: must be one of solo/);
    assertProblem(() => load({ flags: { engine: "solo", "engine.kind": "other" } }), /^engine\.kind: conflicts with flag/);
  });

  it("resolves paths: data_dir against the working directory, ~ to home, database.path against data_dir", () => {
    assert.equal(load({ flags: { data_dir: "nodes/a" } }).data_dir, "/srv/work/nodes/a");
    assert.equal(load({ flags: { data_dir: "~/ledgerd" } }).data_dir, "/home/alice/ledgerd");
    assert.equal(load({ flags: { data_dir: "~" } }).data_dir, "/home/alice");
    const relativeDb = load({ flags: { data_dir: "/d", "database.path": "db/x.sqlite" } });
    assert.equal(relativeDb.database.path, "/d/db/x.sqlite");
    assert.equal(load({ flags: { data_dir: "/d", "database.path": "/disk/x.sqlite" } }).database.path, "/disk/x.sqlite");
    assert.equal(load({ flags: { "database.path": "~/x.sqlite" } }).database.path, "/home/alice/x.sqlite");
  });
});

describe("loadConfig refuses", () => {
  it("unknown keys in the file, at any depth, with a suggestion", () => {
    assertProblem(() => load({}, { [defaultFile]: '{"server": {"bnd": "x:1"}}' }), /^server\.bnd: unknown setting \(did you mean server\.bind\?\) \(file .*config\.json\)$/);
    assertProblem(() => load({}, { [defaultFile]: '{"sever": {}}' }), /^sever: unknown setting/);
    assertProblem(() => load({}, { [defaultFile]: '{"__proto__": {"polluted": 1}}' }), /^__proto__: unknown setting/);
    assertProblem(() => load({}, { [defaultFile]: '{"server": {"__proto__": {"polluted": 1}}}' }), /^server\.__proto__: unknown/);
    assert.equal((Object.prototype as Record<string, unknown>)["polluted"], undefined, "Object.prototype untouched");
    assertProblem(() => load({}, { [defaultFile]: '{"log": {"level": "info", "format": "json"}}' }), /^log\.format: unknown setting/);
  });

  it("unknown LEDGERD_* env variables, but not other variables or the test tooling's", () => {
    assertProblem(() => load({ env: { LEDGERD_SERVER_BND: "x:1" } }), /^LEDGERD_SERVER_BND: unknown variable \(did you mean LEDGERD_SERVER_BIND\?\) \(env\)$/);
    assert.equal(load({ env: { PATH: "/bin", LEDGERD_TEST_CONCURRENCY: "1", SERVER_BIND: "x" } }).server.bind, "localhost:9984");
  });

  it("unknown flags", () => {
    assertProblem(() => load({ flags: { "server.bnd": "x:1" } }), /^server\.bnd: unknown setting \(did you mean server\.bind\?\) \(flags\)$/);
  });

  it("a bind that is not HOST:PORT", () => {
    for (const bad of ["localhost", "localhost:", ":9984", "localhost:65536", "localhost:-1", "localhost:09984", "local host:1",
      "localhost:99a", "::1:9984", "[::1]", "[nothex]:1", "-bad-:1", "a..b:1", "http://localhost:9984"]) {
      assertProblem(() => load({ flags: { "server.bind": bad } }), /^server\.bind: must be HOST:PORT/);
      assertProblem(() => load({ env: { LEDGERD_WSSERVER_BIND: bad } }), /^wsserver\.bind: must be HOST:PORT.*\(env LEDGERD_WSSERVER_BIND\)$/);
    }
    for (const good of ["localhost:0", "0.0.0.0:9984", "[::]:9984", "[::1]:65535", "node-1.example.com:80"]) {
      assert.equal(load({ flags: { "server.bind": good } }).server.bind, good);
    }
  });

  it("negative numbers and numbers out of range", () => {
    assertProblem(() => load({ flags: { "server.workers": "0" } }), /^server\.workers: must be >= 1 \(got 0\) \(flag --server\.workers\)$/);
    assertProblem(() => load({ env: { LEDGERD_SERVER_THREADS: "-1" } }), /^server\.threads: must be >= 0 \(got -1\)/);
    assertProblem(() => load({ flags: { "engine.block_interval_ms": "-5" } }), /^engine\.block_interval_ms: must be >= 0/);
    assertProblem(() => load({ flags: { "engine.commit_timeout_ms": "0" } }), /^engine\.commit_timeout_ms: must be >= 1/);
    assertProblem(() => load({ flags: { "engine.commit_timeout_ms": "2147483648" } }), /^engine\.commit_timeout_ms: must be <= 2147483647/);
    assertProblem(() => load({ flags: { "server.workers": "100000" } }), /^server\.workers: must be <= 256/);
    assertProblem(() => load({}, { [defaultFile]: '{"ledger": {"pending_txs_max": -3}}' }), /^ledger\.pending_txs_max: must be >= 1 \(got -3\) \(file /);
  });

  it("wrong types", () => {
    assertProblem(() => load({ env: { LEDGERD_SERVER_WORKERS: "two" } }), /^server\.workers: must be an integer, got "two" \(env LEDGERD_SERVER_WORKERS\)$/);
    assertProblem(() => load({ flags: { "server.workers": "1.5" } }), /^server\.workers: must be an integer/);
    assertProblem(() => load({ flags: { "server.workers": "" } }), /^server\.workers: must be an integer/);
    assertProblem(() => load({}, { [defaultFile]: '{"server": {"workers": "2"}}' }), /^server\.workers: must be integer \(got "2"\)/);
    assertProblem(() => load({}, { [defaultFile]: '{"server": {"workers": 1.5}}' }), /^server\.workers: must be integer/);
    assertProblem(() => load({}, { [defaultFile]: '{"server": {"bind": 9984}}' }), /^server\.bind: must be string/);
    assertProblem(() => load({}, { [defaultFile]: '{"server": "localhost:9984"}' }), /^server: must be object/);
    assertProblem(() => load({}, { [defaultFile]: '{"log": {"level": "loud"}}' }), /^log\.level: must be one of fatal, error, warn, info, debug, trace, silent/);
    assertProblem(() => load({ flags: { "wsserver.advertised_url": "http://x" } }), /^wsserver\.advertised_url: must be empty or a ws:\/\/ or wss:\/\/ URL/);
    assertProblem(() => load({ flags: { "database.backend": "mysql" } }), /^database\.backend: must be one of sqlite, postgres/);
    assertProblem(() => load({ flags: { "database.index_slices": "3" } }), /^database\.index_slices: must be one of 1, 2, 4, .*, 4096 \(got 3\)/);
    assertProblem(() => load({ flags: { data_dir: "" } }), /^data_dir: must NOT have fewer than 1 characters/);
  });

  it("a config file that is missing (when named), not JSON, or not an object", () => {
    assertProblem(() => load({ flags: { config: "/nope.json" } }), /^config file: does not exist \(file \/nope\.json\)$/);
    assertProblem(() => load({ env: { LEDGERD_CONFIG: "/nope.json" } }), /^config file: does not exist/);
    assertProblem(() => load({}, { [defaultFile]: "{server:" }), /^config file: is not valid JSON/);
    assertProblem(() => load({}, { [defaultFile]: "[1]" }), /^config file: must hold a JSON object/);
    assertProblem(() => load({}, { [defaultFile]: '{"data_dir": "/elsewhere"}' }), /^data_dir: cannot be set in the config file inside data_dir/);
  });

  it("with every problem listed in one error, each naming key, reason and source", () => {
    const problems = problemsOf(() =>
      load(
        { env: { LEDGERD_SERVER_WORKERS: "-2", LEDGERD_NOPE: "1" }, flags: { "server.bind": "nope" } },
        { [defaultFile]: '{"engine": {"block_interval_ms": "fast"}}' },
      ),
    );
    assert.equal(problems.length, 4, problems.join("\n"));
    const error = (() => {
      try {
        load({ flags: { "server.bind": "nope" } });
      } catch (e) {
        return e as ConfigError;
      }
      return null;
    })();
    assert.ok(error !== null);
    assert.match(error.message, /^server\.bind \(flag --server\.bind\): must be HOST:PORT, e\.g\. localhost:9984/);
  });
});

describe("settings that cannot work (issue 11)", () => {
  it("refuses database.url without the postgres backend", () => {
    assertProblem(() => load({ flags: { "database.url": "postgres://db/ledger" } }), /^database\.url: is set, but database\.backend is sqlite/);
    assert.equal(load({ flags: { "database.url": "postgres://db/ledger", "database.backend": "postgres" } }).database.url, "postgres://db/ledger");
  });

  it("refuses engine.cometbft_home without the cometbft engine", () => {
    assertProblem(() => load({ flags: { "engine.cometbft_home": "/somewhere" } }), /^engine\.cometbft_home: is set, but engine\.kind is solo/);
    assert.equal(readKey(load({ flags: { "engine.cometbft_home": "/somewhere", "engine.kind": "cometbft" } }), "engine.cometbft_home"), "/somewhere");
  });

  it("refuses engine.retain_blocks without the cometbft engine", () => {
    assertProblem(() => load({ flags: { "engine.retain_blocks": "3" } }), /^engine\.retain_blocks: is 3, but engine\.kind is solo/);
    assert.equal(readKey(load({ flags: { "engine.retain_blocks": "3", "engine.kind": "cometbft" } }), "engine.retain_blocks"), 3);
  });

  it("refuses 0 where a count must be at least 1, naming the key and the source", () => {
    assertProblem(() => load({ flags: { "wsserver.subscribers_max": "0" } }), /^wsserver\.subscribers_max: must be >= 1 \(got 0\) \(flag --wsserver\.subscribers_max\)$/);
    assertProblem(() => load({}, { [defaultFile]: '{"wsserver": {"subscribers_max": 0}}' }), /^wsserver\.subscribers_max: must be >= 1 \(got 0\) \(file /);
    // 0 would turn checkpoints off: the write-ahead log would grow until the disk is full.
    assertProblem(() => load({ env: { LEDGERD_DATABASE_WAL_AUTOCHECKPOINT_PAGES: "0" } }), /^database\.wal_autocheckpoint_pages: must be >= 1/);
  });

  it("every count, size and duration refuses what it cannot run with (an audit of the schema)", () => {
    // Each numeric setting with the least value it works with; one less is refused.
    const least: Record<string, number> = {
      "server.workers": 1, "server.threads": 0, "server.body_bytes_max": 1, "server.search_limit_max": 1,
      "server.request_timeout_ms": 1, "wsserver.subscribers_max": 1, "wsserver.send_queue_bytes_max": 1,
      "wsserver.ping_interval_ms": 1, "wsserver.client_message_bytes_max": 1, "wsserver.close_grace_ms": 0,
      "database.cache_size_bytes": 0, "database.mmap_size_bytes": 0, "database.wal_autocheckpoint_pages": 1,
      "database.checkpoint_interval_ms": 0,
      "database.journal_size_limit_bytes": 0, "database.search_words_max": 1, "database.index_slices": 1,
      "database.index_rows_waiting_max": 1, "database.index_merge_rows_max": 1, "engine.block_interval_ms": 0, "engine.txs_per_block_max": 1,
      "engine.commit_timeout_ms": 1, "engine.retain_blocks": 0, "engine.snapshot_interval": 0, "engine.snapshot_keep": 1, "ledger.pending_txs_max": 1, "ledger.prepared_cache_entries_max": 1,
      "ledger.replay_batch_blocks_max": 0,
      "ledger.prepare_batch_txs_max": 1, "ledger.prepare_shared_txs_min": 1, "server.expensive_reads_max": 1, "server.pipelined_requests_max": 1,
      "database.search_ranked_matches_max": 1, "server.list_max": 0, "database.pool_size": 1,
      "database.statement_timeout_ms": 0, "database.connect_timeout_ms": 1, "checkpoint.witness_quorum": 0,
    };
    const integers = settingList.filter((s) => s.type === "integer").map((s) => s.key);
    assert.deepEqual(integers.sort(), Object.keys(least).sort(), "every integer setting is audited here");
    for (const [key, value] of Object.entries(least)) {
      assert.equal(readKey(load({ flags: { [key]: String(value) } }), key), value, key);
      assertProblem(() => load({ flags: { [key]: String(value - 1) } }), new RegExp(`^${key.replaceAll(".", "\\.")}: must be`));
    }
  });

  it("refuses a body limit above what the JSON reader reads (the two would disagree)", () => {
    assert.equal(load({ flags: { "server.body_bytes_max": "1048576" } }).server.body_bytes_max, 1048576);
    assertProblem(() => load({ flags: { "server.body_bytes_max": "1048577" } }), /^server\.body_bytes_max: must be <= 1048576/);
  });

  it("refuses two listeners on one address", () => {
    assertProblem(
      () => load({ flags: { "server.bind": "127.0.0.1:9000", "wsserver.bind": "127.0.0.1:9000" } }),
      /^wsserver\.bind: is server\.bind's address too \(127\.0\.0\.1:9000\) \(flag --wsserver\.bind\)$/,
    );
    assert.equal(load({ flags: { "server.bind": "127.0.0.1:0", "wsserver.bind": "127.0.0.1:0" } }).server.bind, "127.0.0.1:0");
    assertProblem(
      () => load({ flags: { "server.bind": "127.0.0.1:9000", "metrics.bind": "127.0.0.1:9000" } }),
      /^metrics\.bind: is server\.bind's address too/,
    );
  });

  it('refuses database.synchronous "off" unless acknowledged', () => {
    assertProblem(() => load({ flags: { "database.synchronous": "off" } }), /^database\.synchronous: is "off": committed blocks can be lost.*set database\.synchronous_off_acknowledged to true/);
    assertProblem(() => load({}, { [defaultFile]: '{"database": {"synchronous": "off"}}' }), /^database\.synchronous: is "off".*\(file /);
    const acknowledged = load({ flags: { "database.synchronous": "off", "database.synchronous_off_acknowledged": "true" } });
    assert.equal(acknowledged.database.synchronous, "off");
    assert.equal(load({}, { [defaultFile]: '{"database": {"synchronous": "off", "synchronous_off_acknowledged": true}}' }).database.synchronous, "off");
    assertProblem(() => load({ flags: { "database.synchronous_off_acknowledged": "yes" } }), /must be true or false, got "yes"/);
    assertProblem(() => load({}, { [defaultFile]: '{"database": {"synchronous_off_acknowledged": "true"}}' }), /synchronous_off_acknowledged: must be boolean/);
  });
});

function readKey(config: object, key: string): unknown {
  let node: unknown = config;
  for (const name of key.split(".")) node = (node as Record<string, unknown>)[name];
  return node;
}

/** A valid value for a setting that differs from its default. */
function sampleValue(key: string): string {
  const samples: Record<string, string> = {
    "log.level": "debug",
    "server.bind": "127.0.0.1:0",
    "wsserver.bind": "127.0.0.1:0",
    "wsserver.advertised_url": "wss://example.com/ledger",
    "database.backend": "sqlite",
    "database.synchronous": "normal",
    "engine.kind": "solo",
    "engine.chain_id": "test-chain",
    "engine.abci_bind": "127.0.0.1:0",
    "engine.rpc_url": "http://127.0.0.1:1",
    "metrics.bind": "127.0.0.1:9986",
    "server.threads": "3",
    "database.index_slices": "8",
    "database.synchronous_off_acknowledged": "true",
    "database.read_indexes": "false",
    "server.explorer": "false",
    "database.writer_thread": "off",
  };
  return samples[key] ?? (settingList.find((s) => s.key === key)?.type === "integer" ? "7" : "x");
}
