// Shared by the HTTP tests: a real stack (SQLite file, prepare pool, ledger, solo engine) with
// the HTTP app on top, driven with `app.inject()`, and POSTs through the app's server handler, so
// that they meet the POST lane (src/http/postLane.ts) as requests over a socket do.
import assert from "node:assert/strict";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import { inject, type DispatchFunc } from "light-my-request";
import type { SoloEngineOptions } from "../../../src/engine/solo/options.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import type { HttpOptions } from "../../../src/http/options.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { removeDir, startSoloStack, type SoloStack } from "../../helpers/soloNode.js";
import { CheckpointNotary } from "../../../src/ledger/checkpoints.js";
import { checkpointSignerOf } from "../../../src/node/checkpointSigner.js";
import { keypairOf } from "../../helpers/txFactory.js";

/** The checkpoints of the test stacks: signed by a fixed key under a fixed origin. */
export const testOrigin = "ledgerd.test/log";
/** A notary of its own per ledger: it keeps what it signed by size, which is one ledger's. */
const testNotaryOf = () => new CheckpointNotary(checkpointSignerOf(keypairOf("checkpoint-signer"), testOrigin));

export interface HttpStack {
  readonly stack: SoloStack;
  readonly app: FastifyInstance;
  /** The stack's signed checkpoints (the apps' `checkpoints`). */
  readonly checkpoints: CheckpointNotary;
  /** Another app on the same stack, with other options. */
  appWith(options: Partial<HttpOptions>): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export async function startHttpStack(
  engine: Partial<SoloEngineOptions> = {},
  http: Partial<HttpOptions> = {},
): Promise<HttpStack> {
  const stack = await startSoloStack(engine);
  const checkpoints = testNotaryOf();
  const apps: FastifyInstance[] = [];
  const appWith = async (options: Partial<HttpOptions>): Promise<FastifyInstance> => {
    const app = await buildHttpApp(options, { broadcaster: stack.engine, store: stack.store, checkpoints });
    apps.push(app);
    return app;
  };
  const app = await appWith(http);
  return {
    stack,
    app,
    checkpoints,
    appWith,
    async close() {
      for (const each of apps) await each.close();
      await stack.close();
      removeDir(stack.dir);
    },
  };
}

/** The error body of docs/compatibility.md #2, exactly as the node writes it. */
export function errorBody(status: number, message: string): string {
  return JSON.stringify({ message, status });
}

/** Asserts an answer's status, exact JSON type, and (when given) exact body. */
export function expectJson(response: LightMyRequestResponse, status: number, body?: string): void {
  assert.equal(response.statusCode, status, `${status} expected, got ${response.statusCode}: ${response.body}`);
  assert.equal(response.headers["content-type"], "application/json");
  if (body !== undefined) assert.equal(response.body, body);
}

export async function get(app: FastifyInstance, url: string, options: Partial<InjectOptions> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: "GET", url, ...options });
}

export async function post(app: FastifyInstance, body: string | JsonObject, mode?: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const url = mode === undefined ? "/api/v1/transactions" : `/api/v1/transactions?mode=${mode}`;
  const payload = typeof body === "string" ? body : writeJson(body);
  return injectThroughServer(app, { method: "POST", url, payload, headers });
}

/**
 * A request handed to the app's server as a socket's would be (the POST lane first, then
 * Fastify), where `app.inject` hands it to Fastify alone.
 */
export async function injectThroughServer(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  await app.ready();
  const handlers = app.server.listeners("request");
  assert.equal(handlers.length, 1, "the server has one request handler");
  return inject(handlers[0] as DispatchFunc, options);
}

/** POSTs with mode=commit and asserts the 202 echo. */
export async function commit(app: FastifyInstance, tx: JsonObject): Promise<void> {
  const response = await post(app, tx, "commit");
  expectJson(response, 202, writeJson(tx));
}

/** Resolves when a committed block holds the transaction. */
export function committed(stack: SoloStack, id: string): Promise<number> {
  return new Promise((resolve) => {
    stack.ledger.onCommitted((block) => {
      if (block.txs.some((tx) => tx.id === id)) resolve(block.height);
    });
  });
}
