// The HTTP layer alone: what one POST costs the node's process in Fastify, Node's HTTP and the
// kernel's loopback, with a broadcaster that answers at once (no parse, no verify, no block). It
// is the part of `bench http`'s main thread that no ledger change touches, measured apart so that
// a change to the request path (hooks, headers, logging) shows in one run. Beside it, in the same
// rounds, the same load against two floors: Fastify with one route and nothing else, and a bare
// node:http server answering the same 202. The load comes from another process (postLoad.ts);
// this process's CPU over each measured window is the server's. Each figure is also given as a
// number of the same round's raw Ed25519 verifies.
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import pino from "pino";
import { buildHttpApp } from "../src/http/httpApp.js";
import type { Broadcaster } from "../src/engine/broadcaster.js";
import type { Store } from "../src/store/store.js";
import { fmt, median, rawVerifyRate, signCreates } from "./lib.js";

/** Posts in flight, as in `bench http`'s sustained load. */
const connections = 64;
const rounds = process.env["LEDGERD_BENCH_QUICK"] === "1" ? 1 : 3;
const windowSeconds = 5;
const warmSeconds = 2;

interface Subject {
  readonly name: string;
  readonly server: Server;
  /** Requests the server has taken so far. */
  answered: number;
  readonly close: () => Promise<void>;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-bench-httplayer-"));
  const body = signCreates(1, "httpLayer")[0]!;
  const bodyFile = join(dir, "body.json");
  writeFileSync(bodyFile, body);
  const answer = Buffer.from(body.toString("utf8"), "utf8");
  const subjects = [await ledgerdApp(answer), await minimalFastify(answer), await bareNodeHttp(answer)];
  console.log(`POST /api/v1/transactions?mode=async, a ${body.length}-byte CREATE, ${connections} connections, answered 202 at once`);
  try {
    const perPost = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
    const inVerifies = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
    for (let round = 1; round <= rounds; round++) {
      const before = rawVerifyRate();
      const measured = [];
      for (const subject of subjects) measured.push({ subject, ...(await measure(subject, bodyFile)) });
      const after = rawVerifyRate();
      const verifyRate = (before + after) / 2;
      console.log(`round ${round} of ${rounds}: raw Ed25519 verify, 1 core, before / after: ${fmt(before)} / ${fmt(after)} /s`);
      for (const { subject, posts, user, system } of measured) {
        const micros = (user + system) / posts;
        perPost.get(subject.name)!.push(micros);
        inVerifies.get(subject.name)!.push((micros * verifyRate) / 1e6);
        console.log(
          `  ${subject.name.padEnd(22)} ${fmt(posts / windowSeconds).padStart(6)} POSTs/s; the server's CPU per POST ` +
            `${(micros).toFixed(1)} µs (user ${(user / posts).toFixed(1)}, system ${(system / posts).toFixed(1)}), ` +
            `${((micros * verifyRate) / 1e6).toFixed(2)} raw verifies`,
        );
      }
    }
    const bare = median(perPost.get(subjects[2]!.name)!);
    console.log("medians over the rounds:");
    for (const subject of subjects) {
      const micros = median(perPost.get(subject.name)!);
      console.log(
        `  ${subject.name.padEnd(22)} ${micros.toFixed(1)} µs of CPU per POST, ${median(inVerifies.get(subject.name)!).toFixed(2)} raw verifies, ` +
          `${(micros / bare).toFixed(2)}x the bare server's`,
      );
    }
  } finally {
    for (const subject of subjects) await subject.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The node's HTTP app as the node builds it, with a logger at the default level writing nowhere. */
async function ledgerdApp(answer: Buffer): Promise<Subject> {
  const json = answer.toString("utf8");
  const broadcaster: Broadcaster = { broadcast: async () => ({ id: "0".repeat(64), json }) };
  const logger = pino({ level: "info" }, pino.destination("/dev/null"));
  // The routes a POST reaches never read the store.
  const app = await buildHttpApp({}, { broadcaster, store: {} as Store, logger });
  await app.listen({ host: "127.0.0.1", port: 0 });
  return counted("ledgerd's HTTP app", app.server, () => app.close());
}

/** Fastify with the one route and a body parser, no logger, no hooks. */
async function minimalFastify(answer: Buffer): Promise<Subject> {
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  app.post("/api/v1/transactions", async (_request, reply) => reply.code(202).header("content-type", "application/json").send(answer));
  await app.listen({ host: "127.0.0.1", port: 0 });
  return counted("Fastify, one route", app.server, () => app.close());
}

/** node:http reading the body and answering the same 202 with the same headers. */
async function bareNodeHttp(answer: Buffer): Promise<Subject> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      response.writeHead(202, {
        "content-type": "application/json",
        "content-length": answer.length,
        "access-control-allow-origin": "*",
        "x-request-id": crypto.randomUUID(),
      });
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return counted("bare node:http", server, () => new Promise((resolve) => server.close(() => resolve())));
}

function counted(name: string, server: Server, close: () => Promise<void>): Subject {
  const subject: Subject = { name, server, answered: 0, close };
  server.on("request", () => subject.answered++);
  return subject;
}

async function measure(subject: Subject, bodyFile: string): Promise<{ posts: number; user: number; system: number }> {
  const port = (subject.server.address() as { port: number }).port;
  const load = startLoad(`127.0.0.1:${port}`, bodyFile);
  await sleep(warmSeconds * 1000);
  const cpu0 = process.cpuUsage();
  const answered0 = subject.answered;
  await sleep(windowSeconds * 1000);
  const cpu = process.cpuUsage(cpu0);
  const posts = subject.answered - answered0;
  await stopLoad(load);
  return { posts, user: cpu.user, system: cpu.system };
}

function startLoad(hostPort: string, bodyFile: string): ChildProcess {
  const script = new URL("./postLoad.ts", import.meta.url).pathname;
  return fork(script, [hostPort, bodyFile, String(connections)], { execArgv: ["--import", "tsx"], stdio: "inherit" });
}

async function stopLoad(load: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve, reject) => {
    load.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the load exited with ${code}`))));
  });
  load.send("stop");
  await exited;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
