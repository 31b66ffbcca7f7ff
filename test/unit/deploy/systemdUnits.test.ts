// deploy/systemd: the units pass `systemd-analyze verify` (in a scratch root holding stand-ins
// for the programs they run) and keep systemd's own exposure score low; every ledgerd and
// CometBFT command line they run is a real command with real flags (`--help` of the very
// binaries), on the folders the sandbox lets it write; the stop timeout outlasts ledgerd's own
// shutdown limit; and the backup service's commands, run for real on a ledger, make a backup
// and keep the 14 newest.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { shutdownMarginMs } from "../../../src/cli/commands.js";
import { configDefault } from "../../../src/config/defaults.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";
import { requireCometBft } from "../../e2e/cometbft/network.js";
import { repoRoot, runLedgerd, useTempDirs } from "../cli/ledgerdProcess.js";

const unitsDir = join(repoRoot, "deploy/systemd");
const services = ["ledgerd.service", "ledgerd-cometbft.service", "ledgerd-backup.service"];
const units = [...services, "ledgerd-backup.timer"];
/** systemd-analyze security's overall score, 0 (locked down) to 10; "OK" ends at 4.9. */
const exposureMax = 2;
const ledgerdPath = "/usr/local/bin/ledgerd";
const cometBftPath = "/usr/local/bin/cometbft";
const tempDir = useTempDirs("ledgerd-systemd-");

type Unit = Map<string, string[]>;

/** A unit file's `Section.Key` settings, each with every value it is given, in order. */
function readUnit(name: string): Unit {
  const unit: Unit = new Map();
  let section = "";
  for (const line of readFileSync(join(unitsDir, name), "utf8").split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header !== null) {
      section = header[1]!;
      continue;
    }
    const [key, ...value] = line.split("=");
    const name = `${section}.${key}`;
    unit.set(name, [...(unit.get(name) ?? []), value.join("=")]);
  }
  return unit;
}

const one = (unit: Unit, key: string): string => {
  const values = unit.get(key) ?? [];
  assert.equal(values.length, 1, `${key}: ${JSON.stringify(values)}`);
  return values[0]!;
};

/** A command line split as systemd splits it: words, '…' and "…" quoted, %% and $$ unescaped. */
function commandWords(line: string): string[] {
  const words = [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  return words.map((word) => word.replaceAll("%%", "%").replaceAll("$$", "$"));
}

/** Every ledgerd or CometBFT invocation of a unit's Exec lines, also inside `sh -c '…'`. */
function invocations(unit: Unit): string[][] {
  const lines = ["Service.ExecStart", "Service.ExecStartPre", "Service.ExecStartPost"].flatMap((k) => unit.get(k) ?? []);
  const out: string[][] = [];
  for (const line of lines) {
    const words = commandWords(line);
    if (words[0] !== "/bin/sh") {
      out.push(words);
      continue;
    }
    for (const part of words[2]!.split(/&&|;|\|/)) {
      const inner = commandWords(part.trim().replace(/^exec /, ""));
      if (inner[0] === ledgerdPath || inner[0] === cometBftPath) out.push(inner);
    }
  }
  return out;
}

const flagsOf = (words: readonly string[]) => words.filter((w) => w.startsWith("--"));
const flagAfter = (words: readonly string[], flag: string) => words[words.indexOf(flag) + 1]!;
const within = (path: string, dirs: readonly string[]) => dirs.some((dir) => path === dir || path.startsWith(`${dir}/`));
const writable = (unit: Unit) => (unit.get("Service.ReadWritePaths") ?? []).flatMap((v) => v.split(" "));

/** A scratch root: the units, systemd's own, and stand-ins for the programs the units run. */
function scratchRoot(): string {
  const root = tempDir();
  mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
  for (const name of units) cpSync(join(unitsDir, name), join(root, "etc/systemd/system", name));
  cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true });
  for (const program of [ledgerdPath, cometBftPath]) {
    mkdirSync(join(root, dirname(program)), { recursive: true });
    writeFileSync(join(root, program), "#!/bin/sh\n");
    chmodSync(join(root, program), 0o755);
  }
  mkdirSync(join(root, "bin"), { recursive: true });
  cpSync("/bin/sh", join(root, "bin/sh"), { dereference: true });
  return root;
}

describe("systemd units (deploy/systemd)", () => {
  it("systemd-analyze verify finds nothing to say", () => {
    const root = scratchRoot();
    const verified = spawnSync("systemd-analyze", ["verify", "--man=no", `--root=${root}`, ...units], { encoding: "utf8" });
    assert.equal(verified.error, undefined, "systemd-analyze is missing: scripts/prerequisites.mjs installs it (package systemd)");
    assert.equal(verified.status, 0, verified.stderr);
    assert.equal(`${verified.stdout}${verified.stderr}`, "", "no warning either (an unknown key is only a warning)");
  });

  it(`each service's exposure (systemd-analyze security) is at most ${exposureMax}`, () => {
    const root = scratchRoot();
    for (const service of services) {
      const scored = spawnSync("systemd-analyze", ["security", "--offline=yes", `--root=${root}`, service], { encoding: "utf8" });
      const score = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(scored.stdout)?.[1]);
      assert.ok(score <= exposureMax, `${service}: ${scored.stdout.split("\n").filter((l) => l.startsWith("✗")).join("\n")}`);
    }
  });

  it("every ledgerd command they run is a real command with real flags, on a folder it may write", () => {
    const helps = new Map<string, string>();
    const seen: string[] = [];
    for (const name of services) {
      const unit = readUnit(name);
      for (const words of invocations(unit).filter((w) => w[0] === ledgerdPath)) {
        const command = words[1]!;
        seen.push(command);
        if (!helps.has(command)) {
          const help = runLedgerd([command, "--help"]);
          assert.equal(help.status, 0, `ledgerd ${command}: ${help.stderr}`);
          helps.set(command, help.stdout);
        }
        for (const flag of flagsOf(words)) assert.ok(helps.get(command)!.includes(`${flag} `), `ledgerd ${command} has no ${flag}`);
        const dataDir = flagAfter(words, "--data_dir");
        assert.ok(within(dataDir, writable(unit)), `${name}: ${dataDir} is not in ReadWritePaths`);
      }
    }
    assert.deepEqual(seen.sort(), ["backup", "start"]);
  });

  it("CometBFT's command is real: the pinned binary's start takes --home, a folder it may write", () => {
    const cometbft = requireCometBft();
    const unit = readUnit("ledgerd-cometbft.service");
    const [words] = invocations(unit);
    assert.equal(words![0], cometBftPath);
    const help = spawnSync(cometbft, [words![1]!, "--help"], { encoding: "utf8" });
    assert.equal(help.status, 0, help.stderr);
    for (const flag of flagsOf(words!)) assert.ok(help.stdout.includes(`${flag} `), `cometbft ${words![1]} has no ${flag}`);
    assert.ok(within(flagAfter(words!, "--home"), writable(unit)));
  });

  it("the node folder is the StateDirectory the services run in, and the data folder is in it", () => {
    const ledgerd = readUnit("ledgerd.service");
    const state = `/var/lib/${one(ledgerd, "Service.StateDirectory")}`;
    assert.equal(one(ledgerd, "Service.WorkingDirectory"), state);
    assert.deepEqual(writable(ledgerd), [state]);
    const [start] = invocations(ledgerd);
    assert.ok(within(flagAfter(start!, "--data_dir"), [state]));
    assert.ok(within(flagAfter(invocations(readUnit("ledgerd-cometbft.service"))[0]!, "--home"), [state]));
    for (const name of services) assert.equal(one(readUnit(name), "Service.User"), "ledgerd", name);
    assert.match(readFileSync(join(unitsDir, "ledgerd.sysusers.conf"), "utf8"), new RegExp(`^u ledgerd - ".*" ${state}$`, "m"));
  });

  it("ledgerd.env's variables, set or commented out, are settings ledgerd takes", () => {
    const text = readFileSync(join(unitsDir, "ledgerd.env"), "utf8");
    const variables = Object.fromEntries([...text.matchAll(/^#?(LEDGERD_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    assert.ok(Object.keys(variables).length >= 4, text);
    const config = runLedgerd(["config"], variables);
    assert.equal(config.status, 0, config.stderr);
    assert.equal((JSON.parse(config.stdout) as { metrics: { bind: string } }).metrics.bind, variables["LEDGERD_METRICS_BIND"]);
  });

  it("ledgerd's stop: SIGTERM to ledgerd alone, and a timeout past ledgerd's own shutdown limit", () => {
    const unit = readUnit("ledgerd.service");
    assert.equal(one(unit, "Service.KillSignal"), "SIGTERM");
    assert.equal(one(unit, "Service.KillMode"), "mixed", "ledgerd stops its CometBFT first, itself");
    const stopSeconds = Number(/^(\d+)s$/.exec(one(unit, "Service.TimeoutStopSec"))?.[1]);
    assert.ok(stopSeconds * 1000 > configDefault.engine.commit_timeout_ms + shutdownMarginMs, `${stopSeconds} s`);
    assert.equal(one(unit, "Service.Restart"), "on-failure");
  });

  it("W+X memory is denied to CometBFT (Go), not to ledgerd (V8 compiles code at run time)", () => {
    assert.equal(readUnit("ledgerd.service").get("Service.MemoryDenyWriteExecute"), undefined);
    assert.equal(readUnit("ledgerd-backup.service").get("Service.MemoryDenyWriteExecute"), undefined);
    assert.equal(one(readUnit("ledgerd-cometbft.service"), "Service.MemoryDenyWriteExecute"), "yes");
  });

  it("the backup service's commands make a backup of a real ledger and keep the 14 newest", async () => {
    const root = tempDir();
    const [dataDir, backups, bin] = ["var/lib/ledgerd/ledgerd", "var/backups/ledgerd", "bin"].map((d) => join(root, d));
    for (const dir of [dataDir, backups, bin]) mkdirSync(dir!, { recursive: true });
    await SqliteStore.open({ path: join(dataDir!, "ledgerd.sqlite") }).close();
    // Fifteen earlier backups, older by their names (the time they were made).
    const older = Array.from({ length: 15 }, (_, i) => `2020-01-${String(i + 1).padStart(2, "0")}T031500Z`);
    for (const name of older) mkdirSync(join(backups!, name));
    writeFileSync(join(bin!, "ledgerd"), `#!/bin/sh\nexec '${process.execPath}' --import tsx '${join(repoRoot, "src/cli/main.ts")}' "$@"\n`);
    chmodSync(join(bin!, "ledgerd"), 0o755);
    const unit = readUnit("ledgerd-backup.service");
    for (const key of ["Service.ExecStart", "Service.ExecStartPost"]) {
      const script = commandWords(one(unit, key))[2]!
        .replaceAll(ledgerdPath, join(bin!, "ledgerd"))
        .replaceAll("/var/", `${root}/var/`);
      const ran = spawnSync("/bin/sh", ["-c", script], { cwd: repoRoot, encoding: "utf8", timeout: 30_000 });
      assert.equal(ran.status, 0, `${key}: ${ran.stderr}`);
    }
    const kept = readdirSync(backups!).sort();
    assert.equal(kept.length, 14);
    const made = kept.at(-1)!;
    assert.match(made, /^\d{4}-\d\d-\d\dT\d{6}Z$/);
    assert.ok(existsSync(join(backups!, made, "backup.json")), "the new backup is whole");
    assert.deepEqual(kept.slice(0, -1), older.slice(-13), "the oldest two went");
  });
});
