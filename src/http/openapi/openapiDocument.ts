// The OpenAPI 3.1 document of the HTTP API, served at /api/v1/openapi.json and drawn by the
// reference page at /api/v1/docs/. Written here by hand, route by route, and held to the code
// by test/unit/http/openapi.test.ts: every route and method the app serves is here and nothing
// else; each operation's query parameters are the names its route accepts; every status the
// error catalog can answer appears; real answers validate against the schemas. Each parameter's
// schema is exactly what its route accepts (src/http/parameters.ts), so that a client made from
// the document never sends what the node refuses, and a fuzzer that sends what the document
// forbids finds it refused (test/e2e/fuzz.test.ts). What one parameter's schema cannot say (a
// cursor this node gave; `from` not after `to`) its description says.
import { codes } from "../../errors/codes.js";
import type { HttpOptions } from "../options.js";
import { ref, schemas } from "./schemas.js";

/** What of the node's options the document depends on. */
export type OpenapiOptions = Pick<HttpOptions, "searchLimitMax" | "explorer">;

export interface Parameter {
  readonly name: string;
  readonly in: "query" | "path";
  readonly required?: boolean;
  readonly description: string;
  readonly schema: object;
}

const anyText = { type: "string" };
const query = (name: string, description: string, schema: object, required = false): Parameter =>
  ({ name, in: "query", description, schema, ...(required ? { required } : {}) });
const path = (name: string, description: string, schema: object): Parameter =>
  ({ name, in: "path", required: true, description, schema });

// What parameters.ts accepts, as patterns: `valid_txid` takes either case, `valid_bool` and
// `valid_operation` any case (lowercased, uppercased first: `ſ` uppercases to S, so
// `TRANſFER` is TRANSFER), `valid_ed25519` 43 or 44 base58 characters.
const txId = { type: "string", pattern: "^[0-9a-fA-F]{64}$" };
const publicKeyText = { type: "string", pattern: "^[1-9A-HJ-NP-Za-km-z]{43,44}$" };
const boolText = { type: "string", pattern: "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$" };
const operationText = {
  type: "string",
  pattern: "^([Cc][Rr][Ee][Aa][Tt][Ee]|[Tt][Rr][Aa][Nn][Ssſ][Ff][Ee][Rr])$",
};
/**
 * An id in a path: only 64 lowercase hex digits name a stored transaction (ids are stored so);
 * any other text is answered 404, as an id that names nothing.
 */
const storedId = { type: "string", pattern: "^[0-9a-f]{64}$" };
/** A file of a page the node serves (one of its own names; any other is 404). */
const fileName = { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" };
/** A block height a proof reaches: 1 or more, and a whole number a double holds exactly. */
const proofHeight = { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
/** paging.ts: base64url text of at most 256 characters, and one this node gave for the query. */
const cursorText = { type: "string", pattern: "^[A-Za-z0-9_-]{1,256}$" };

const publicKey = query("public_key", "An Ed25519 public key, base58.", publicKeyText, true);
const cursor = query(
  "cursor",
  "Continues after the page whose Link header named it; opaque: only a cursor this node gave for the same query is accepted.",
  cursorText,
);
/**
 * `search`, which the route requires unless the request is a query by field: those name their
 * filters as parameters (`data.<path>=<value>`), which OpenAPI 3.1 cannot list by a prefix, so
 * the document describes the search and tells of the query by field in words.
 */
const searchOf = (prefix: "data" | "metadata") => query(
  "search",
  `The text to search (MongoDB's $text syntax), not empty. A query by field gives ${prefix}.<path>=<value> ` +
    "parameters instead, and no search (docs/http-api.md, Queries by field).",
  { type: "string", minLength: 1 },
  true,
);
/** `limit`: the largest is the node's server.search_limit_max. */
const limitOf = (limitMax: number) => query(
  "limit",
  `Page size, 1 to ${limitMax} (server.search_limit_max); 0 or absent: all (docs/http-api.md, Paging).`,
  { type: "integer", minimum: 0, maximum: limitMax },
);

const json = (schema: object) => ({ "application/json": { schema } });
const list = (schema: object) => json({ type: "array", items: schema });
const ok = (description: string, schema: object) => ({ description, content: json(schema) });
const failure = (description: string) => ({ description, content: json(ref("Error")) });
const link = { Link: { description: 'The next page: `<url>; rel="next"` (RFC 8288), when more follow.', schema: { type: "string" } } };
const okPage = (description: string, item: object) => ({ description, headers: link, content: list(item) });

/** Statuses any request may get: a request that cannot be read, too slow, too large headers, a bug. */
const anyRequest = {
  "400": failure("Bad input: a parameter missing, unknown, repeated or malformed; or a request that cannot be read."),
  "408": failure("The request was not received in full in time."),
  "417": failure("An Expect header other than 100-continue."),
  "431": failure("The request line and headers are too large."),
  "500": failure("A bug in ledgerd."),
};
const longRead = { "503": failure("As many long reads run as allowed (Retry-After), or the node is shutting down.") };
const notFound = { "404": failure("Not found.") };
const noReadIndexes = { "409": failure("This node writes no read indexes (database.read_indexes false): ReadIndexesOff.") };
const withBody = { "413": failure("The body is larger than server.body_bytes_max.") };
const posting = {
  ...withBody,
  "503": failure("The pending pool is full, the engine cannot be reached, or the node is shutting down."),
  "504": failure("Not committed within engine.commit_timeout_ms, or CometBFT took it and its answer was lost (mode=commit); it may still commit."),
};

const get = (summary: string, parameters: readonly Parameter[], responses: object) =>
  ({ get: { summary, parameters, responses: { ...responses, ...anyRequest } } });

/** The checkpoints and tiles (docs/transparency.md): text and bytes in the transparency logs' formats. */
const text = (description: string) => ({ description, content: { "text/plain": { schema: { type: "string" } } } });
const checkpointAnswer = {
  ...text("A C2SP checkpoint (origin, size, root in base64) signed by the node key as a signed note."),
  headers: { "ledgerd-checkpoint-height": { description: "A height after which the history had this size: its app hash is the checkpoint's (docs/transparency.md).", schema: { type: "string" } } },
};
const noKey = { "404": failure("No checkpoint of that size yet, or this process has no node key (serve-reads).") };
const checkpointRefusals = { ...noKey, "409": failure("The chain keeps BigchainDB's app hash, which proves nothing."), "503": failure("CometBFT cannot be reached, or the node is shutting down.") };
const transparencyPaths = {
  "/api/v1/checkpoint": get("The history tree's signed checkpoint: the latest (under CometBFT the last signed), or of a past size.", [
    query("size", "A past tree size (0 to the latest), for consistency checks.", { type: "string", pattern: "^(0|[1-9][0-9]{0,15})$" }),
  ], { "200": checkpointAnswer, ...checkpointRefusals }),
  "/api/v1/checkpoint/key": get("The checkpoints' verifier key in signed-note form: name+keyID+base64(0x01 || Ed25519 key).", [], {
    "200": text("One line."),
    ...noKey,
  }),
  "/api/v1/tlog/checkpoint": get("The latest checkpoint at the C2SP tlog-tiles prefix /api/v1/tlog/.", [], { "200": checkpointAnswer, ...checkpointRefusals }),
  "/api/v1/witness/key": get("The witness's cosignature verifier key: name+keyID+base64(0x04 || Ed25519 key).", [], {
    "200": text("One line."),
    "404": failure("This node witnesses no log."),
  }),
  "/api/v1/witness/add-checkpoint": {
    post: {
      summary: "C2SP tlog-witness add-checkpoint: cosign a checkpoint of a log in witness.logs that extends the last one cosigned.",
      requestBody: { required: true, content: { "text/plain": { schema: { type: "string" } } } },
      responses: {
        "200": text("The witness's cosignature line(s): timestamped Ed25519 (C2SP tlog-cosignature)."),
        "403": failure("The checkpoint carries no valid signature by the log's key."),
        "404": failure("The origin is not a log this node witnesses, or it witnesses none."),
        "409": { description: "The old size is not the size cosigned last: that size, in decimal.", content: { "text/x.tlog.size": { schema: { type: "string" } } } },
        "413": failure("The body is larger than server.body_bytes_max."),
        "422": failure("Not consistent with the checkpoint cosigned last (the proof fails, another root at the same size)."),
        "503": failure("The node is shutting down."),
        ...anyRequest,
      },
    },
  },
  "/api/v1/tlog/tile/{tile_path}": get("A C2SP tlog-tiles hash tile or entry bundle of the history tree.", [
    path("tile_path", "`<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]`, N in 3-digit elements (`x001/234`); several path segments.", { type: "string" }),
  ], {
    "200": { description: "32-byte hashes, or entries each a big-endian uint16 length then the 45-byte block leaf.", content: { "application/octet-stream": { schema: { type: "string", contentEncoding: "binary" } } } },
    "404": failure("Not a tile path, or a tile the tree does not hold yet."),
    "409": failure("The chain keeps BigchainDB's app hash, which proves nothing."),
  }),
};

/** The explorer page's paths, served unless server.explorer is false. */
const explorerPaths = {
  "/explorer": get("The explorer page (docs/explorer.md); off with server.explorer = false.", [], {
    "200": { description: "HTML, with its scripts and styles served by the node.", content: { "text/html": { schema: { type: "string" } } } },
    "308": { description: "To /explorer/ (the page's files are named relative to it)." },
    "304": { description: "Unchanged since the ETag the browser holds." },
    ...notFound,
  }),
  "/explorer/{asset}": get("A file of the explorer page.", [path("asset", "Its name.", fileName)], {
    "200": { description: "The file.", content: { "*/*": { schema: { type: "string" } } } },
    "304": { description: "Unchanged since the ETag the browser holds." },
    ...notFound,
  }),
};

/** The operations, each parameter as its route reads it; `limitMax` is server.search_limit_max. */
const pathsOf = (options: OpenapiOptions) => {
  const limit = limitOf(options.searchLimitMax);
  const paging = [limit, cursor];
  return {
    "/": get("The root discovery document.", [], { "200": ok("Where the API and its docs are.", ref("Root")) }),
    "/api/v1": get("The v1 index.", [], { "200": ok("Where each resource is.", ref("ApiIndex")) }),
    "/api/v1/transactions/{transaction_id}": get("A committed transaction.", [path("transaction_id", "Its id.", storedId)], {
      "200": ok("The transaction as posted.", ref("Transaction")),
      ...notFound,
      "503": failure("The database cannot be read: unreachable (StoreUnavailable), or damaged (StoreDamaged: the node stops)."),
    }),
    "/api/v1/transactions": {
      ...get("An asset's transactions, in commit order (a spend order).", [
        query("operation", "CREATE or TRANSFER (any case): those only.", operationText),
        query("asset_id", "The asset's id (its CREATE's id).", txId, true),
        query("last_tx", "true: only the last one; then give no limit and no cursor.", boolText),
        ...paging,
      ], { "200": okPage("The transactions, or a page of them.", ref("Transaction")), ...longRead }),
      post: {
        summary: "Posts a transaction (BigchainDB 2.x, v2.0 model).",
        parameters: [query("mode", "async (default), sync or commit.", { enum: ["async", "sync", "commit"] })],
        requestBody: { required: true, content: json(ref("Transaction")) },
        responses: { "202": ok("Accepted (async), checked (sync) or committed (commit): the transaction.", ref("Transaction")), ...posting, ...anyRequest },
      },
    },
    "/api/v1/outputs": get("The outputs a key is named in, in commit order.", [
      publicKey,
      query("spent", "true: only spent; false: only unspent; absent: all.", boolText),
      query("include", "amount, asset_id, or both comma-separated: what each output holds.", {
        enum: ["amount", "asset_id", "amount,asset_id", "asset_id,amount"],
      }),
      ...paging,
    ], { "200": okPage("The outputs, or a page of them.", ref("Output")), ...longRead }),
    "/api/v1/balances": get("What a key alone may spend, per asset, in asset id order.", [
      publicKey,
      query("asset_id", "That asset only.", txId),
      ...paging,
    ], { "200": okPage("Unspent amounts per asset, or a page of them (a page never splits an asset's sum).", ref("Balance")), ...longRead }),
    "/api/v1/assets": get("Text search over asset data, or a query by field (data.<path>=<value>).", [
      searchOf("data"),
      ...paging,
    ], { "200": okPage("Best match first (search) or commit order (fields).", ref("AssetHit")), ...noReadIndexes, ...longRead }),
    "/api/v1/metadata": get("Text search over metadata, or a query by field (metadata.<path>=<value>).", [
      searchOf("metadata"),
      ...paging,
    ], { "200": okPage("Best match first (search) or commit order (fields).", ref("MetadataHit")), ...noReadIndexes, ...longRead }),
    "/api/v1/validators": get("The validator set.", [], { "200": ok("Each validator's key and power.", { type: "array", items: ref("Validator") }) }),
    "/api/v1/elections/{election_id}": get("A validator election: what it proposes, its votes and status.", [
      path("election_id", "The election transaction's id.", storedId),
    ], { "200": ok("The election.", ref("Election")), ...notFound }),
    "/api/v1/blocks/latest": get("The last committed block (Planetmint's shape).", [], {
      "200": ok("Its app hash, height and transaction ids.", ref("LatestBlock")),
      ...notFound,
    }),
    "/api/v1/blocks/{block_height}": get("A block.", [path("block_height", "Its height.", { type: "string", pattern: "^[0-9]+$" })], {
      "200": ok("Its height and transactions.", ref("Block")),
      ...notFound,
      ...longRead,
    }),
    "/api/v1/blocks": get("The height of the block that holds a transaction.", [
      query("transaction_id", "The transaction's id; text that names none is answered [].", anyText, true),
      limit,
      // A list of at most one height has one page: no cursor was ever given for it.
      query("cursor", "Never valid here: the list has one page.", { not: {} }),
    ], { "200": ok("[height], or [] when no block holds it.", { type: "array", items: { type: "integer" }, maxItems: 1 }) }),
    "/api/v1/evidence": get("The evidence of validators' misbehavior CometBFT committed, in commit order (docs/http-api.md, Evidence).", [
      query("height", "That block's evidence only: what the block at this height carried.", proofHeight),
      ...paging,
    ], { "200": okPage("The evidence, or a page of it; [] when there is none.", ref("Evidence")), ...longRead }),
    "/api/v1/proofs/transactions/{transaction_id}": get("Proof that a committed transaction is in the ledger (docs/proofs.md).", [
      path("transaction_id", "The transaction's id.", storedId),
      query("height", "The height whose app hash the proof reaches, not before the transaction's block; default the last (under CometBFT the last signed).", proofHeight),
    ], {
      "200": ok("Its paths in its block's tree and in the history tree, the app hash, and under CometBFT the signed header.", ref("TransactionProof")),
      ...notFound,
      "409": failure("The chain keeps BigchainDB's app hash, which proves nothing."),
      "503": failure("No signed header carries the app hash yet (retry after the next block), or the node is shutting down."),
    }),
    "/api/v1/proofs/consistency": get("Proof that the history at one height extends the one at an earlier height.", [
      query("from", "The earlier height; not after `to`.", proofHeight, true),
      query("to", "The later height; default the last (under CometBFT the last signed).", proofHeight),
    ], {
      "200": ok("Both histories' sizes, roots and app hashes, and the path between them.", ref("ConsistencyProof")),
      ...notFound,
      "409": failure("The chain keeps BigchainDB's app hash, which proves nothing."),
      "503": failure("No signed header carries the app hash yet (retry after the next block), or the node is shutting down."),
    }),
    "/api/v1/proofs/validator-changes": get("The signed headers a light client follows the validator set with, from a height it trusts (docs/proofs.md, Across validator changes).", [
      query("from_height", "The first header height of interest (the one after the height you trust); default 1.", proofHeight),
      query("to_height", "The last header height of interest (a proof's height + 1); default the last signed.", proofHeight),
    ], {
      "200": ok("At each change of the set, the last header of the old set and the first of the new, each with its commit and set.", ref("ValidatorChanges")),
      ...notFound,
      "409": failure("A solo node: it signs no headers (NoSignedHeaders)."),
      "503": failure("No signed header of to_height yet (retry after the next block), CometBFT unreachable, or the node is shutting down."),
    }),
    ...transparencyPaths,
    "/api/v1/openapi.json": get("This document.", [], { "200": ok("OpenAPI 3.1.", ref("OpenApi")) }),
    "/api/v1/docs": get("The reference page of this document.", [], {
      "200": { description: "HTML, with its scripts and styles served by the node.", content: { "text/html": { schema: { type: "string" } } } },
    }),
    "/api/v1/docs/{asset}": get("A file of the reference page.", [path("asset", "Its name.", fileName)], {
      "200": { description: "The file.", content: { "*/*": { schema: { type: "string" } } } },
      ...notFound,
    }),
    ...(options.explorer ? explorerPaths : {}),
    "/healthz": get("Whether the process serves.", [], { "200": ok("It does.", ref("Live")) }),
    "/readyz": get("Whether the node is ready: store open, engine reachable, not catching up.", [], {
      "200": ok("Ready.", ref("Ready")),
      "503": ok("Not ready, with the reason.", ref("Ready")),
    }),
    "/transactions": {
      post: {
        summary: "Posts a transaction of interface variant A or B (told by its shape).",
        requestBody: { required: true, content: json(ref("LegacyTransaction")) },
        responses: { "201": ok("The stored transaction with `assignee`.", ref("LegacyTransaction")), ...posting, ...anyRequest },
      },
    },
    "/transactions/{tx_id}": get("A committed variant A or B transaction.", [path("tx_id", "Its id.", storedId)], {
      "200": ok("The transaction in its own shape.", ref("LegacyTransaction")),
      ...notFound,
    }),
    "/transactions/{tx_id}/status": get("Where a variant A or B transaction is.", [path("tx_id", "Its id.", storedId)], {
      "200": ok("backlog, valid or invalid.", ref("LegacyStatus")),
      ...notFound,
    }),
  };
};

/**
 * Codes no described operation answers: the node never answers UnsupportedMediaType today
 * (docs/errors.md), MethodNotAllowed answers the methods a path has no operation for (the
 * document's description says so), and ReadOnlyNode only `ledgerd serve-reads` answers, to
 * writes (likewise).
 */
export const unansweredCodes = ["UnsupportedMediaType", "MethodNotAllowed", "ReadOnlyNode"] as const;

/** The document of a node with these options. */
export const openapiDocument = (options: OpenapiOptions) => ({
  openapi: "3.1.0",
  info: {
    title: "ledgerd HTTP API",
    version: "1",
    description:
      "A ledger node wire-compatible with BigchainDB 2.x (docs/http-api.md). Every error is " +
      '`{"message", "status"}` (docs/errors.md); a path asked with a method it does not serve is ' +
      "405 with Allow, as is every write to a read-only server (`ledgerd serve-reads`); OPTIONS answers CORS preflights; HEAD is served wherever GET is. Lists page " +
      "with limit and cursor and announce the next page in a Link header. The event streams " +
      "(WebSocket, on the stream port: /api/v1/streams/valid_transactions and " +
      "/api/v1/streams/valid_blocks) are described in x-streams.",
  },
  paths: pathsOf(options),
  components: { schemas },
  "x-streams": {
    "/api/v1/streams/valid_transactions":
      '{"height", "asset_id", "transaction_id"} per committed transaction; resumes with ?from_height=H&after=<id> ' +
      "(docs/http-api.md, Resuming a stream: 400 before the upgrade, close codes 4410 and 4416)",
    "/api/v1/streams/valid_blocks":
      '{"height", "hash", "transaction_ids"} per committed block; resumes with ?from_height=H',
  },
  "x-error-codes": Object.fromEntries(Object.entries(codes).map(([code, spec]) => [code, spec.status])),
});
