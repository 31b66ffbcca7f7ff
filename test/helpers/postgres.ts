// A real PostgreSQL server for tests (issue #16): `initdb` into a temporary folder, `pg_ctl`
// start on a free loopback port, a fresh database per caller, stopped and removed at the end.
// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user that
// Debian's package creates (`npm test` installs it where it is missing).
import { execFile, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface PostgresServer {
  readonly port: number;
  /**
   * A new, empty database: its connection URL, over TCP on loopback, or with `socket` over the
   * server's Unix-domain socket (docs/postgres.md, "A server on the same machine").
   */
  newDatabase(options?: { readonly socket?: boolean }): Promise<string>;
  /** Stops the server as a crash would (`pg_ctl stop -m immediate`); the folder stays. */
  halt(): void;
  /** The server's log file. */
  readonly log: string;
  /** Starts a halted server again, on the same port; it recovers from its write-ahead log. */
  resume(): void;
  /** `halt` and `resume` without blocking the event loop (a chaos run's clients go on meanwhile). */
  haltAsync(): Promise<void>;
  resumeAsync(): Promise<void>;
  /** Stops the server (`pg_ctl stop -m fast`) and removes its folder. */
  stop(): void;
}

/** The path of one of PostgreSQL's programs (`pg_dump`, `initdb`, ...). */
export function postgresBinary(name: string): string {
  const found = spawnSync("bash", ["-c", `command -v ${name} || ls /usr/lib/postgresql/*/bin/${name} 2>/dev/null | tail -1`], { encoding: "utf8" });
  const path = found.stdout.trim().split("\n").pop() ?? "";
  if (path === "") throw new Error(`PostgreSQL's ${name} is not installed (Debian: apt-get install postgresql)`);
  return path;
}

/**
 * How long `pg_ctl` may wait for the server to start or stop. A start after `stop -m immediate`
 * replays the write-ahead log first, which on a busy machine took longer than pg_ctl's default
 * 60 s; the bound is there only so that a server that never comes up still ends the test.
 */
export const pgCtlWaitSecondsMax = 600;

/** A PostgreSQL program's command line, as `postgres` when this process is root. */
function commandOf(name: string, args: readonly string[]): [string, string[]] {
  const asRoot = process.getuid?.() === 0;
  return asRoot ? ["runuser", ["-u", "postgres", "--", postgresBinary(name), ...args]] : [postgresBinary(name), [...args]];
}

function failure(name: string, args: readonly string[], output: string): Error {
  const bound = /did not start in time|does not shut down/.test(output) ? ` (gave up after pgCtlWaitSecondsMax = ${pgCtlWaitSecondsMax} s)` : "";
  return new Error(`${name} ${args.join(" ")} failed${bound}: ${output}`);
}

/** Runs a PostgreSQL program. */
function run(name: string, args: readonly string[]): void {
  const result = spawnSync(...commandOf(name, args), { encoding: "utf8" });
  if (result.status !== 0) throw failure(name, args, `${result.stderr}${result.stdout}`);
}

async function runAsync(name: string, args: readonly string[]): Promise<void> {
  const [command, full] = commandOf(name, args);
  await new Promise<void>((resolve, reject) => {
    execFile(command, full, { encoding: "utf8" }, (error, stdout, stderr) =>
      error === null ? resolve() : reject(failure(name, args, `${stderr}${stdout}`)));
  });
}

/** `pg_ctl` waiting (`-w`) up to `pgCtlWaitSecondsMax` for `action` to finish. */
function pgCtlArgs(data: string, args: readonly string[], action: "start" | "stop"): string[] {
  return ["-D", data, ...args, "-w", "-t", String(pgCtlWaitSecondsMax), action];
}

function pgCtl(data: string, args: readonly string[], action: "start" | "stop"): void {
  run("pg_ctl", pgCtlArgs(data, args, action));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * What a test's server runs with unless `settings` says otherwise: no fsync, no full-page writes.
 * A test's faults are processes that die (the node SIGKILLed, `pg_ctl stop -m immediate`), never
 * the machine, and what PostgreSQL has written survives its processes' death without them; the
 * fsync of every commit (4 to 12 ms on this disk) was most of the PostgreSQL tests' time.
 */
export const testServerSettings = { fsync: "off", full_page_writes: "off" } as const;
/** A server as operators run one: what benchmarks and the chaos suite start, to measure it. */
export const durableServerSettings = { fsync: "on", full_page_writes: "on" } as const;

/** `settings`: server settings for the command line (`log_min_duration_statement`, ...), over `testServerSettings`. */
export async function startPostgres(settings: Readonly<Record<string, string>> = {}): Promise<PostgresServer> {
  const effective = { ...testServerSettings, ...settings };
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-pg-"));
  if (process.getuid?.() === 0) {
    const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  const data = join(dir, "data");
  const port = await freePort();
  run("initdb", ["-D", data, "-U", "ledgerd", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${Object.entries(effective).map(([k, v]) => ` -c ${k}=${v}`).join("")}`;
  const startArgs = ["-l", join(dir, "server.log"), "-o", options];
  const start = () => pgCtl(data, startArgs, "start");
  start();
  let running = true;
  let databases = 0;
  const admin = `postgres://ledgerd@127.0.0.1:${port}/postgres`;
  return {
    port,
    log: join(dir, "server.log"),
    async newDatabase(options = {}) {
      const name = `ledgerd_test_${++databases}`;
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      if (options.socket === true) return `postgres:///${name}?host=${encodeURIComponent(dir)}&port=${port}&user=ledgerd`;
      return `postgres://ledgerd@127.0.0.1:${port}/${name}`;
    },
    halt() {
      pgCtl(data, ["-m", "immediate"], "stop");
      running = false;
    },
    resume() {
      start();
      running = true;
    },
    async haltAsync() {
      await runAsync("pg_ctl", pgCtlArgs(data, ["-m", "immediate"], "stop"));
      running = false;
    },
    async resumeAsync() {
      await runAsync("pg_ctl", pgCtlArgs(data, startArgs, "start"));
      running = true;
    },
    stop() {
      try {
        if (running) pgCtl(data, ["-m", "fast"], "stop");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
