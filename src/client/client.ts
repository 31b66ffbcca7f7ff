// ledgerd/client: a typed client of the HTTP API (docs/client.md). Browser-safe: it takes
// `fetch` from the caller (or globalThis) and does no other IO. The routes it calls are in one
// table, `clientRoutes`, that test/unit/client/openapiSync.test.ts holds to the OpenAPI document.
import { isJsonObject } from "../json/jsonValue.js";
import { readJsonOrNull } from "../json/readJson.js";
import { parseCheckpointBody } from "../proofs/checkpoint.js";
import { appHashV1 } from "../proofs/commitment.js";
import { toBase64 } from "../proofs/encoding.js";
import { openNote, parseVerifierKey } from "../proofs/signedNote.js";
import { verifyTransactionProof, type ConsistencyProof, type LightBlock, type TransactionProof, type VerifyOptions } from "../proofs/verify.js";
import { matchTxId } from "../transaction/matchTxId.js";

export * from "./streamSubscription.js";
export type { ConsistencyProof, LightBlock, TransactionProof, TrustRoot, VerifyOptions, Verdict } from "../proofs/verify.js";
export { trustRootOf } from "../proofs/verify.js";

/** A v2.0 transaction (BigchainDB's model), as the driver makes it and the node answers it. */
export interface Transaction {
  readonly id: string;
  readonly version: string;
  readonly operation: string;
  readonly inputs: readonly unknown[];
  readonly outputs: readonly unknown[];
  readonly asset: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>> | null;
}

export interface Output {
  readonly transaction_id: string;
  readonly output_index: number;
  /** With `include: ["amount"]`: a decimal string. */
  readonly amount?: string;
  /** With `include: ["asset_id"]`. */
  readonly asset_id?: string;
}

export interface Balance {
  readonly asset_id: string;
  /** A decimal string: amounts may pass 2^53. */
  readonly amount: string;
}

export interface AssetHit {
  readonly id: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface MetadataHit {
  readonly id: string;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface Block {
  readonly height: number;
  readonly transactions: readonly Transaction[];
}

export interface LatestBlock {
  readonly app_hash: string;
  readonly height: number;
  readonly transactions: readonly string[];
}

/** A validator election (docs/http-api.md); the vote counts are decimal strings. */
export interface Election {
  readonly election_id: string;
  readonly type: string;
  readonly status: "ongoing" | "concluded" | "inconclusive";
  readonly height: number;
  readonly concluded_at: number | null;
  readonly public_key: { readonly type: string; readonly value: string };
  readonly power: number;
  readonly node_id: string;
  readonly votes: string;
  readonly total_power: string;
}

/** Evidence of a validator's misbehavior a block carried (docs/http-api.md, Evidence). */
export interface Evidence {
  readonly height: number;
  readonly index: number;
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The light blocks to follow the validator set with (`verify: { trust }`'s `validatorChanges`). */
export interface ValidatorChanges {
  readonly version: number;
  readonly chain_id: string;
  readonly from_height: number;
  readonly to_height: number;
  readonly light_blocks: readonly LightBlock[];
  readonly next_from_height: number | null;
}

export interface Validator {
  readonly pub_key: { readonly data: string; readonly type: string };
  readonly power: number;
}

/** A signed checkpoint (docs/transparency.md) and the height whose app hash it carries. */
export interface Checkpoint {
  readonly note: string;
  readonly height: number | null;
}

/**
 * Filters of a query by field (docs/http-api.md, Queries by field): a dotted path from the
 * document's root and the scalar it must equal (any element of an array on the path may).
 */
export type FieldFilters = Readonly<Record<string, string | number | boolean | null>>;

/**
 * A checkpoint the client verified (signed by the key it trusts) and keeps: the history's size
 * and root, and the height after which the ledger's app hash (`appHash`) commits to them.
 */
export interface KeptCheckpoint {
  readonly origin: string;
  readonly size: number;
  /** Base64, as in the checkpoint. */
  readonly root: string;
  readonly height: number;
  readonly appHash: string;
}

export type PostMode = "async" | "sync" | "commit";
export type Operation = "CREATE" | "TRANSFER";

/**
 * Every route the client calls: its method, its path (as the OpenAPI document names it) and the
 * query parameters it may send. The methods build their URLs from here only.
 */
export const clientRoutes = {
  transaction: { method: "get", path: "/api/v1/transactions/{transaction_id}", query: [] },
  postTransaction: { method: "post", path: "/api/v1/transactions", query: ["mode"] },
  transactions: { method: "get", path: "/api/v1/transactions", query: ["asset_id", "operation", "limit", "cursor"] },
  outputs: { method: "get", path: "/api/v1/outputs", query: ["public_key", "spent", "include", "limit", "cursor"] },
  balances: { method: "get", path: "/api/v1/balances", query: ["public_key", "asset_id", "limit", "cursor"] },
  assets: { method: "get", path: "/api/v1/assets", query: ["search", "limit", "cursor"] },
  metadata: { method: "get", path: "/api/v1/metadata", query: ["search", "limit", "cursor"] },
  // Queries by field name their filters as parameters `data.<path>` (`metadata.<path>`).
  assetsWhere: { method: "get", path: "/api/v1/assets", query: ["limit", "cursor"], fields: "data" },
  metadataWhere: { method: "get", path: "/api/v1/metadata", query: ["limit", "cursor"], fields: "metadata" },
  block: { method: "get", path: "/api/v1/blocks/{block_height}", query: [] },
  latestBlock: { method: "get", path: "/api/v1/blocks/latest", query: [] },
  election: { method: "get", path: "/api/v1/elections/{election_id}", query: [] },
  evidence: { method: "get", path: "/api/v1/evidence", query: ["height", "limit", "cursor"] },
  validatorChanges: { method: "get", path: "/api/v1/proofs/validator-changes", query: ["from_height", "to_height"] },
  blocksOf: { method: "get", path: "/api/v1/blocks", query: ["transaction_id"] },
  validators: { method: "get", path: "/api/v1/validators", query: [] },
  proof: { method: "get", path: "/api/v1/proofs/transactions/{transaction_id}", query: ["height"] },
  consistency: { method: "get", path: "/api/v1/proofs/consistency", query: ["from", "to"] },
  checkpoint: { method: "get", path: "/api/v1/checkpoint", query: ["size"] },
  checkpointKey: { method: "get", path: "/api/v1/checkpoint/key", query: [] },
} as const satisfies Record<string, { method: "get" | "post"; path: string; query: readonly string[]; fields?: string }>;

type RouteName = keyof typeof clientRoutes;
type QueryOf<R extends RouteName> = Partial<Record<(typeof clientRoutes)[R]["query"][number], string | number | boolean | undefined>>;

/** The node answered with an error: its status and the API's JSON `message`. */
export class LedgerdError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** The answer's body as sent (JSON `{"message", "status"}` for every error of the API). */
    readonly body: string,
  ) {
    super(message);
    this.name = "LedgerdError";
  }
}

/** `getTransaction(id, { verify })` found the proof wrong, or of another transaction. */
export class ProofRefused extends Error {
  constructor(
    readonly transactionId: string,
    readonly reason: string,
  ) {
    super(`the proof of ${transactionId} is refused: ${reason}`);
    this.name = "ProofRefused";
  }
}

/** The node's checkpoint is not signed by the key given, or is no checkpoint. */
export class CheckpointRefused extends Error {
  constructor(readonly reason: string) {
    super(`the checkpoint is refused: ${reason}`);
    this.name = "CheckpointRefused";
  }
}

export type FetchLike = (url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<{
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

export interface ClientOptions {
  /** The fetch to call; default globalThis.fetch. */
  readonly fetch?: FetchLike;
}

export interface GetTransactionOptions {
  /**
   * Fetch the transaction's proof too and check it (ledgerd/verify): that it reaches the app hash
   * it carries, or with `validators` / `trust` one signed by the validators trusted; and that it
   * is the proof of this id. Refused: ProofRefused.
   */
  readonly verify?: boolean | VerifyOptions;
  /**
   * A checkpoint the client keeps (`verifiedCheckpoint`): the proof is asked for its height and
   * must reach its app hash; implies `verify`. A transaction after the checkpoint has no such
   * proof (the node answers 400): verify a newer checkpoint first.
   */
  readonly checkpoint?: KeptCheckpoint;
}

export interface PageOptions {
  /** Items per request (1 to the node's server.search_limit_max; default 100). */
  readonly pageSize?: number;
}

export interface OutputsOptions extends PageOptions {
  /** What each output carries besides its place (docs/http-api.md, `include=`). */
  readonly include?: readonly ("amount" | "asset_id")[];
}

const pageSizeDefault = 100;
/** Most characters of a non-JSON error answer kept as the error's message (a proxy's page). */
const messageCharsMax = 200;

function errorMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed?.message === "string") return parsed.message;
  } catch {
    // Not the API's JSON (a proxy's page): the text itself says what happened.
  }
  return body.length > 0 ? body.slice(0, messageCharsMax) : `HTTP ${status}`;
}

/**
 * Whether a transaction's body, read exactly (numbers as written), hashes to the id it carries in
 * either canonical form (docs/compatibility.md #7): else the node changed what was signed.
 */
function hashesToItsId(body: string): boolean {
  const tx = readJsonOrNull(body);
  return isJsonObject(tx) && matchTxId(tx) !== null;
}

/** The next page's path from a `Link` header, or null (docs/http-api.md, Paging). */
export function nextPageOf(link: string | null): string | null {
  const match = link === null ? null : /<([^>]*)>\s*;\s*rel="?next"?/.exec(link);
  return match === null ? null : match[1]!;
}

export class LedgerdClient {
  private readonly base: string;
  private readonly fetch: FetchLike;

  /** `baseUrl`: the node's root, e.g. `http://127.0.0.1:9984`. */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.base = baseUrl.replace(/\/+$/, "");
    const given = options.fetch ?? (globalThis.fetch as unknown as FetchLike | undefined);
    if (given === undefined) throw new Error("no fetch: give one in the options");
    // Called unbound: a browser's fetch refuses another `this` than the window ("Illegal invocation").
    this.fetch = (url, init) => given(url, init);
  }

  /** The URL of a route with its path values and query (undefined values left out). */
  private url<R extends RouteName>(route: R, pathValues: Record<string, string>, query: QueryOf<R> = {}, filters: FieldFilters = {}): string {
    const { path: template, ...rest } = clientRoutes[route];
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name]!));
    // A string is sent quoted: `42` unquoted would be the number, `"42"` is the text.
    const fields = Object.entries(filters).map(([name, value]) => [`${"fields" in rest ? rest.fields : ""}.${name}`, typeof value === "string" ? JSON.stringify(value) : String(value)]);
    const pairs = [...Object.entries(query), ...fields]
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${encodeURIComponent(name!)}=${encodeURIComponent(String(value))}`);
    return `${this.base}${path}${pairs.length === 0 ? "" : `?${pairs.join("&")}`}`;
  }

  private async request(url: string, init?: Parameters<FetchLike>[1]) {
    const response = await this.fetch(url, init);
    const body = await response.text();
    if (!response.ok) throw new LedgerdError(errorMessage(response.status, body), response.status, body);
    return { body, headers: response.headers };
  }

  private async json<T>(url: string): Promise<T> {
    return JSON.parse((await this.request(url)).body) as T;
  }

  /** Every item of a paged list, a page at a time, following the `Link` of each page. */
  private async *pages<T, R extends RouteName>(route: R, query: QueryOf<R>, options: PageOptions, filters: FieldFilters = {}): AsyncGenerator<T> {
    let url: string | null = this.url(route, {}, { ...query, limit: options.pageSize ?? pageSizeDefault }, filters);
    while (url !== null) {
      const { body, headers } = await this.request(url);
      yield* JSON.parse(body) as T[];
      const next = nextPageOf(headers.get("link"));
      url = next === null ? null : new URL(next, `${this.base}/`).href;
    }
  }

  /** A committed transaction; with `verify`, only once its proof checks (else ProofRefused). */
  async getTransaction(id: string, options: GetTransactionOptions = {}): Promise<Transaction> {
    const { body } = await this.request(this.url("transaction", { transaction_id: id }));
    const tx = JSON.parse(body) as Transaction;
    const { verify = false, checkpoint } = options;
    if (verify === false && checkpoint === undefined) return tx;
    // A JSON answer that is no object (`null`, a list) is refused as another transaction would be.
    const answered: unknown = typeof tx === "object" && tx !== null && !Array.isArray(tx) ? tx.id : tx;
    if (answered !== id) throw new ProofRefused(id, `the node answered transaction ${typeof answered === "string" ? answered : String(JSON.stringify(answered))}`);
    if (!hashesToItsId(body)) throw new ProofRefused(id, "the transaction's body does not hash to its id");
    const proof = await this.getProof(id, checkpoint?.height);
    const verdict = verifyTransactionProof(proof, typeof verify === "boolean" ? {} : verify, id);
    if (!verdict.ok) throw new ProofRefused(id, verdict.reason);
    if (checkpoint !== undefined && (verdict.height !== checkpoint.height || verdict.appHash !== checkpoint.appHash)) {
      throw new ProofRefused(id, `the proof reaches app hash ${verdict.appHash} after height ${verdict.height}, not the checkpoint's ${checkpoint.appHash} after ${checkpoint.height}`);
    }
    return tx;
  }

  /** Posts a transaction (one the official driver made and signed); the node's echo. */
  async postTransaction(tx: Transaction | object, mode: PostMode = "async"): Promise<Transaction> {
    const { body } = await this.request(this.url("postTransaction", {}, { mode }), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(tx),
    });
    return JSON.parse(body) as Transaction;
  }

  /** An asset's transactions, in commit order, the whole list in one answer. */
  listTransactions(assetId: string, operation?: Operation): Promise<Transaction[]> {
    return this.json(this.url("transactions", {}, { asset_id: assetId, operation }));
  }

  /** An asset's transactions, a page at a time. */
  transactions(assetId: string, operation?: Operation, options: PageOptions = {}): AsyncGenerator<Transaction> {
    return this.pages("transactions", { asset_id: assetId, operation }, options);
  }

  /** The outputs a key is named in (only spent or unspent ones with `spent`), in one answer. */
  getOutputs(publicKey: string, spent?: boolean): Promise<Output[]> {
    return this.json(this.url("outputs", {}, { public_key: publicKey, spent }));
  }

  /** The outputs a key is named in, a page at a time (with their amount and asset with `include`). */
  outputs(publicKey: string, spent?: boolean, options: OutputsOptions = {}): AsyncGenerator<Output> {
    return this.pages("outputs", { public_key: publicKey, spent, include: options.include?.join(",") }, options);
  }

  /** What a key alone may spend, per asset (docs/http-api.md, Balances), a page at a time. */
  balances(publicKey: string, assetId?: string, options: PageOptions = {}): AsyncGenerator<Balance> {
    return this.pages("balances", { public_key: publicKey, asset_id: assetId }, options);
  }

  /** The best `limit` assets matching `text` (all with no limit). */
  searchAssets(text: string, limit?: number): Promise<AssetHit[]> {
    return this.json(this.url("assets", {}, { search: text, limit }));
  }

  /** The best `limit` metadata matching `text` (all with no limit). */
  searchMetadata(text: string, limit?: number): Promise<MetadataHit[]> {
    return this.json(this.url("metadata", {}, { search: text, limit }));
  }

  /** Every asset matching `text`, best first, a page at a time. */
  assets(text: string, options: PageOptions = {}): AsyncGenerator<AssetHit> {
    return this.pages("assets", { search: text }, options);
  }

  /** Every metadata matching `text`, best first, a page at a time. */
  metadata(text: string, options: PageOptions = {}): AsyncGenerator<MetadataHit> {
    return this.pages("metadata", { search: text }, options);
  }

  /** The assets whose data holds every field given (`{ "owner.name": "alice" }`), in commit order, a page at a time. */
  assetsWhere(filters: FieldFilters, options: PageOptions = {}): AsyncGenerator<AssetHit> {
    return this.pages("assetsWhere", {}, options, filters);
  }

  /** The metadata holding every field given, in commit order, a page at a time. */
  metadataWhere(filters: FieldFilters, options: PageOptions = {}): AsyncGenerator<MetadataHit> {
    return this.pages("metadataWhere", {}, options, filters);
  }

  getBlock(height: number): Promise<Block> {
    return this.json(this.url("block", { block_height: String(height) }));
  }

  getLatestBlock(): Promise<LatestBlock> {
    return this.json(this.url("latestBlock", {}));
  }

  getElection(electionId: string): Promise<Election> {
    return this.json(this.url("election", { election_id: electionId }));
  }

  /** The evidence CometBFT committed (of the block at `height` only, when given), a page at a time. */
  evidence(height?: number, options: PageOptions = {}): AsyncGenerator<Evidence> {
    return this.pages("evidence", { height }, options);
  }

  /** The signed headers at the validator set's changes between two heights (docs/proofs.md). */
  getValidatorChanges(fromHeight?: number, toHeight?: number): Promise<ValidatorChanges> {
    return this.json(this.url("validatorChanges", {}, { from_height: fromHeight, to_height: toHeight }));
  }

  /** The heights of the blocks holding a transaction: [height], or []. */
  blocksOf(transactionId: string): Promise<number[]> {
    return this.json(this.url("blocksOf", {}, { transaction_id: transactionId }));
  }

  getValidators(): Promise<Validator[]> {
    return this.json(this.url("validators", {}));
  }

  /** The proof that a transaction is in the ledger, reaching the app hash after `height` (default the last). */
  getProof(transactionId: string, height?: number): Promise<TransactionProof> {
    return this.json(this.url("proof", { transaction_id: transactionId }, { height }));
  }

  /** The proof that the history at `to` (default the last) extends the one at `from`. */
  getConsistency(from: number, to?: number): Promise<ConsistencyProof> {
    return this.json(this.url("consistency", {}, { from, to }));
  }

  /** The checkpoints' verifier key (signed-note form); pin it rather than trust each answer. */
  async getCheckpointKey(): Promise<string> {
    return (await this.request(this.url("checkpointKey", {}))).body.trim();
  }

  /** The latest checkpoint, once its signature by `verifierKey` checks; else CheckpointRefused. */
  async verifiedCheckpoint(verifierKey: string): Promise<KeptCheckpoint> {
    const key = parseVerifierKey(verifierKey);
    if (key === null) throw new CheckpointRefused(`${verifierKey} is not an Ed25519 verifier key`);
    const { note, height } = await this.getCheckpoint();
    const body = openNote(note, key);
    if (body === null) throw new CheckpointRefused(`it carries no valid signature by ${key.name}`);
    const checkpoint = parseCheckpointBody(body);
    if (checkpoint === null || checkpoint.origin !== key.name) throw new CheckpointRefused(`the note signed by ${key.name} is not a checkpoint of that origin`);
    if (height === null || !Number.isSafeInteger(height)) throw new CheckpointRefused("the node gave no height for it");
    const { origin, size, root } = checkpoint;
    return { origin, size, root: toBase64(root), height, appHash: appHashV1(size, root) };
  }

  /** The signed checkpoint: the latest, or of a past tree size. */
  async getCheckpoint(size?: number): Promise<Checkpoint> {
    const { body, headers } = await this.request(this.url("checkpoint", {}, { size }));
    const height = headers.get("ledgerd-checkpoint-height");
    return { note: body, height: height === null ? null : Number(height) };
  }
}
