// A BigchainDB 2.x node read through its public HTTP API, for `ledgerd import --from-bigchaindb`
// (docs/migrating-from-bigchaindb.md): the root document (to know it is one), the validator set
// and the blocks by height. Every request has a time limit, an answer-size limit and bounded
// retries with a doubling wait; only a network failure, a timeout or a 5xx is retried (a 4xx is
// BigchainDB's answer).
import { Buffer } from "node:buffer";
import { readJson } from "../json/readJson.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { writeJson } from "../json/writeJson.js";
import type { Validator } from "../store/store.js";
import type { BigchaindbImportOptions } from "./bigchaindbImportOptions.js";

/** One block as BigchainDB serves it: its transactions' JSON texts, compact, keys as served. */
export interface SourceBlock {
  readonly height: number;
  readonly txs: readonly SourceTx[];
}

export interface SourceTx {
  readonly id: string;
  readonly operation: string;
  /** The ids of the transactions its inputs spend (none for a CREATE). */
  readonly spends: readonly string[];
  readonly json: string;
}

/** What the node's root document says it is. */
export interface SourceNode {
  readonly software: string;
  readonly version: string;
}

export interface SourceDeps {
  /** Waits between retries; a test passes one that does not sleep. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Each retry, for the command's stderr. */
  readonly onRetry?: (what: string, attempt: number, reason: string) => void;
}

/** An answer that is not what BigchainDB 2.x gives: the URL is not such a node, or it changed. */
export class NotBigchaindb extends Error {
  override readonly name = "NotBigchaindb";
}

/** A request that still failed after every retry. */
export class SourceUnreachable extends Error {
  override readonly name = "SourceUnreachable";
}

interface Answer {
  readonly status: number;
  readonly body: Buffer;
}

/**
 * The JSON reader's limits for a whole answer: its size is already capped by
 * `responseBytesMax`; a block holds as many transactions as its bytes allow.
 */
function answerLimits(options: BigchaindbImportOptions): { bytesMax: number; itemsMax: number } {
  return { bytesMax: options.responseBytesMax, itemsMax: options.responseBytesMax };
}

export class BigchaindbSource {
  readonly base: string;

  constructor(
    url: string,
    private readonly options: BigchaindbImportOptions,
    private readonly deps: SourceDeps,
    private readonly signal?: AbortSignal,
  ) {
    this.base = baseUrlOf(url);
  }

  /** The root document: refused unless it names BigchainDB 2.x. */
  async node(): Promise<SourceNode> {
    const answer = await this.get("/");
    const root = answer.status === 200 ? this.parse(answer.body, "/") : null;
    const software = isJsonObject(root) ? root["software"] : undefined;
    const version = isJsonObject(root) ? root["version"] : undefined;
    if (typeof software !== "string" || typeof version !== "string") {
      throw new NotBigchaindb(`${this.base}/ is not a BigchainDB node: its root answers ${answer.status} without "software" and "version"`);
    }
    if (software === "ledgerd") throw new NotBigchaindb(`${this.base} is a ledgerd node: move a ledgerd ledger with \`ledgerd export\` and \`ledgerd import FILE\``);
    if (software !== "BigchainDB" || !version.startsWith("2.")) {
      throw new NotBigchaindb(`${this.base} is ${software} ${version}, not BigchainDB 2.x`);
    }
    return { software, version };
  }

  /** The current validator set, from BigchainDB's shape to ledgerd's (docs/compatibility.md #1). */
  async validators(): Promise<Validator[]> {
    const path = "/api/v1/validators";
    const answer = await this.get(path);
    const list = answer.status === 200 ? this.parse(answer.body, path) : null;
    if (!Array.isArray(list) || list.length === 0 || list.length > this.options.validatorsMax) {
      throw new NotBigchaindb(`${path} answers ${answer.status} without a list of 1 to ${this.options.validatorsMax} validators`);
    }
    return list.map((entry, index) => validatorOf(entry, `${path}[${index}]`));
  }

  /**
   * The latest height. BigchainDB 2.x has no route for it: `GET /api/v1/blocks/<h>` answers 200
   * for every height up to the latest (an empty block included) and 404 past it
   * (docs/bigchaindb-behaviour.md §1.5), so it is found by doubling, then halving: about
   * 2·log2(height) requests. 0: no block yet.
   */
  async latestHeight(): Promise<number> {
    if (!(await this.hasBlock(1))) return 0;
    let low = 1;
    let high = 2;
    while (await this.hasBlock(high)) {
      low = high;
      high *= 2;
      if (!Number.isSafeInteger(high)) throw new NotBigchaindb("/api/v1/blocks answers every height: not BigchainDB's blocks");
    }
    while (high - low > 1) {
      const middle = low + Math.floor((high - low) / 2);
      if (await this.hasBlock(middle)) low = middle;
      else high = middle;
    }
    return low;
  }

  private async hasBlock(height: number): Promise<boolean> {
    const answer = await this.get(`/api/v1/blocks/${height}`);
    if (answer.status === 200) return true;
    if (answer.status === 404) return false;
    throw new NotBigchaindb(`/api/v1/blocks/${height} answers ${answer.status}, where BigchainDB answers 200 or 404`);
  }

  /** The block at `height` (at most the latest height), its transactions in BigchainDB's order. */
  async block(height: number): Promise<SourceBlock> {
    const path = `/api/v1/blocks/${height}`;
    const answer = await this.get(path);
    if (answer.status !== 200) throw new NotBigchaindb(`${path} answers ${answer.status}: the block is gone from BigchainDB`);
    const block = this.parse(answer.body, path);
    if (!isJsonObject(block) || block["height"] !== height || !Array.isArray(block["transactions"])) {
      throw new NotBigchaindb(`${path} is not {"height": ${height}, "transactions": [...]}`);
    }
    return { height, txs: block["transactions"].map((tx, index) => sourceTxOf(tx, `${path} transactions[${index}]`)) };
  }

  private parse(body: Buffer, path: string): JsonValue {
    try {
      return readJson(body, answerLimits(this.options));
    } catch (error) {
      throw new NotBigchaindb(`${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** GET `path`, retried as the options say. */
  private async get(path: string): Promise<Answer> {
    let delayMs = this.options.retryDelayMs;
    for (let attempt = 0; ; attempt++) {
      let reason: string;
      try {
        const answer = await this.getOnce(path);
        if (answer.status < 500) return answer;
        reason = `answered ${answer.status}`;
      } catch (error) {
        if (error instanceof NotBigchaindb || this.signal?.aborted === true) throw error;
        reason = reasonOf(error);
      }
      if (attempt >= this.options.retriesMax) {
        throw new SourceUnreachable(`GET ${this.base}${path} failed ${attempt + 1} times (retries: ${this.options.retriesMax}); last: ${reason}`);
      }
      this.deps.onRetry?.(path, attempt + 1, reason);
      await this.deps.sleep(delayMs);
      delayMs = Math.min(delayMs * 2, this.options.retryDelayMsMax);
    }
  }

  private async getOnce(path: string): Promise<Answer> {
    const timeout = AbortSignal.timeout(this.options.requestTimeoutMs);
    const signal = this.signal === undefined ? timeout : AbortSignal.any([timeout, this.signal]);
    const response = await fetch(this.base + path, { signal, headers: { accept: "application/json" }, redirect: "error" });
    return { status: response.status, body: await readCapped(response, this.options.responseBytesMax, path) };
  }
}

/** `http://host:9984/`, `.../api/v1` and the like, as the node's base URL. */
export function baseUrlOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NotBigchaindb(`${url} is not a URL (e.g. http://127.0.0.1:9984)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new NotBigchaindb(`${url} is not an http(s) URL`);
  if (parsed.search !== "" || parsed.hash !== "") throw new NotBigchaindb(`${url}: give the node's URL without a query or fragment`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "").replace(/\/api\/v1$/, "")}`;
}

/** The body, refused past `bytesMax` without reading the rest. */
async function readCapped(response: Response, bytesMax: number, path: string): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > bytesMax) {
    await response.body?.cancel();
    throw new NotBigchaindb(`${path} answers ${declared} bytes, more than ${bytesMax} (responseBytesMax)`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body === null) return Buffer.alloc(0);
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > bytesMax) throw new NotBigchaindb(`${path} answers more than ${bytesMax} bytes (responseBytesMax)`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, size);
}

function validatorOf(entry: JsonValue, where: string): Validator {
  // BigchainDB 2.2.2's shape (docs/bigchaindb-behaviour.md §1.7); the documented one is not served.
  const key = isJsonObject(entry) ? entry["public_key"] : undefined;
  const power = isJsonObject(entry) ? entry["voting_power"] : undefined;
  const value = isJsonObject(key) && key["type"] === "ed25519-base64" ? key["value"] : undefined;
  const bytes = typeof value === "string" && /^[A-Za-z0-9+/]{43}=$/.test(value) ? Buffer.from(value, "base64") : null;
  if (bytes?.length !== 32 || typeof power !== "number" || !Number.isSafeInteger(power) || power < 1) {
    throw new NotBigchaindb(`${where} is not {"public_key": {"type": "ed25519-base64", "value": <32 bytes>}, "voting_power": <1 or more>}`);
  }
  return { publicKey: bytes.toString("hex"), power };
}

function sourceTxOf(tx: JsonValue, where: string): SourceTx {
  const id = isJsonObject(tx) ? tx["id"] : undefined;
  const operation = isJsonObject(tx) ? tx["operation"] : undefined;
  if (!isJsonObject(tx) || typeof id !== "string" || typeof operation !== "string") {
    throw new NotBigchaindb(`${where} is not a transaction with an id and an operation`);
  }
  return { id, operation, spends: spendsOf(tx), json: writeJson(tx) };
}

/** The transaction ids a transaction's inputs name (a CREATE's `fulfills` are null). */
function spendsOf(tx: JsonObject): string[] {
  const inputs = tx["inputs"];
  if (!Array.isArray(inputs)) return [];
  const ids: string[] = [];
  for (const input of inputs) {
    const fulfills = isJsonObject(input) ? input["fulfills"] : null;
    const id = isJsonObject(fulfills) ? fulfills["transaction_id"] : undefined;
    if (typeof id === "string") ids.push(id);
  }
  return ids;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.name === "TimeoutError" ? "timed out" : error.message}${cause}`;
  }
  return String(error);
}
