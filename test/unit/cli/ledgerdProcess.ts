// Runs `ledgerd` as a real child process (`node --import tsx src/cli/main.ts ...`), reads its
// JSON log lines, and talks HTTP to it over fresh connections.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { waitFor } from "../../helpers/waitFor.js";
import { ledgerdArgs } from "../../helpers/ledgerdCli.js";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** The environment without any LEDGERD_* variable of the caller's, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("LEDGERD_")) env[name] = value;
  return { ...env, ...extra };
}

export interface RunResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A command that ends by itself: `keys`, `config`, `init`, a bad flag. */
export function runLedgerd(args: readonly string[], env: Record<string, string> = {}): RunResult {
  const result = spawnSync(process.execPath, [...ledgerdArgs(), ...args], { cwd: repoRoot, env: cleanEnv(env), encoding: "utf8", timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `runLedgerd` without blocking this process: for a command that talks to a server the test runs. */
export function runLedgerdAsync(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<RunResult> {
  const child = spawn(process.execPath, [...ledgerdArgs(), ...args], { cwd: repoRoot, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stdout, stderr }));
  });
}

export type LogLine = Record<string, unknown> & { msg?: string; level?: number; pid?: number };

export interface RunningNode {
  readonly child: ChildProcess;
  readonly lines: LogLine[];
  readonly started: LogLine;
  readonly port: number;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitForLine(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

/** Starts `ledgerd start ...` and resolves once it logged "ledgerd started". */
export async function startLedgerd(args: readonly string[], env: Record<string, string> = {}): Promise<RunningNode> {
  const child = spawn(process.execPath, [...ledgerdArgs(), "start", ...args], { cwd: repoRoot, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  const lines: LogLine[] = [];
  let stderr = "";
  let buffered = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const part of parts) if (part.trim() !== "") lines.push(JSON.parse(part) as LogLine);
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });

  const ended = (): string | null => (child.exitCode ?? child.signalCode) === null ? null : `ledgerd exited (${child.exitCode ?? child.signalCode})`;
  const waitForLine = (match: (line: LogLine) => boolean, timeoutMs = 20_000): Promise<LogLine> =>
    waitFor("a log line", () => lines.find(match), { timeoutMs, abortIf: ended }).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}:\n${stderr}\n${JSON.stringify(lines)}`);
    });

  const started = await waitForLine((line) => line.msg === "ledgerd started").catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  const port = Number(String(started["http"]).split(":").pop());
  assert.ok(port > 0);
  return {
    child,
    lines,
    started,
    port,
    waitForLine,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const ended = await exited;
      // Killed by a signal it was not sent (a V8 fatal error ends in SIGTRAP, seen once under the
      // full suite's load): what it wrote on the way out is the only trace, so it is shown.
      if (ended.signal !== null && ended.signal !== signal) {
        process.stderr.write(`ledgerd ended by ${ended.signal} after ${signal}; its stderr:\n${stderr}\nits last log lines:\n${JSON.stringify(lines.slice(-20))}\n`);
      }
      return ended;
    },
  };
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** One request on its own connection (no keep-alive), so node:cluster deals each to a worker. */
export function httpCall(port: number, method: string, path: string, body?: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path, agent: false, headers: body === undefined ? {} : { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A maker of temporary folders named `prefix…`, all removed after the file's tests. */
export function useTempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
}
