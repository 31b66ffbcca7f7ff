// Shared by the HTTP tests: a real stack (SQLite file, prepare pool, ledger, solo engine) with
// the HTTP app on top, driven with `app.inject()`.
import assert from "node:assert/strict";
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from "fastify";
import type { SoloEngineOptions } from "../../../src/engine/solo/options.js";
import { buildHttpApp } from "../../../src/http/httpApp.js";
import type { HttpOptions } from "../../../src/http/options.js";
import type { JsonObject } from "../../../src/json/jsonValue.js";
import { writeJson } from "../../../src/json/writeJson.js";
import { removeDir, startSoloStack, type SoloStack } from "../../helpers/soloNode.js";

export interface HttpStack {
  readonly stack: SoloStack;
  readonly app: FastifyInstance;
  /** Another app on the same stack, with other options. */
  appWith(options: Partial<HttpOptions>): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export async function startHttpStack(
  engine: Partial<SoloEngineOptions> = {},
  http: Partial<HttpOptions> = {},
): Promise<HttpStack> {
  const stack = await startSoloStack(engine);
  const apps: FastifyInstance[] = [];
  const appWith = async (options: Partial<HttpOptions>): Promise<FastifyInstance> => {
    const app = await buildHttpApp(options, { broadcaster: stack.engine, store: stack.store });
    apps.push(app);
    return app;
  };
  const app = await appWith(http);
  return {
    stack,
    app,
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
  return app.inject({ method: "POST", url, payload, headers });
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
