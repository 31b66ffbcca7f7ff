// Query parameters, read as BigchainDB's `web/views/parameters.py` and flask-restful's reqparse
// read them (docs/bigchaindb-behaviour.md §1.5, §1.6), with the body of docs/compatibility.md #2:
// reqparse's `{"message": {"<arg>": "<text>"}}` becomes the message `<arg>: <text>`, BigchainDB's
// words kept. Every check throws LedgerError("BadParameter") (400); nothing here touches the store.
import { LedgerError } from "../errors/ledgerError.js";
import type { BroadcastMode } from "../engine/broadcaster.js";
import type { Operation } from "../transaction/committed.js";

/** What Fastify's query-string parser gives: a repeated parameter is an array. */
export type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

export const missingText = "Missing required parameter in the JSON body or the post body or the query string";

export function badParameter(name: string, text: string): LedgerError {
  return new LedgerError("BadParameter", `${name}: ${text}`);
}

/** The parameter's value; reqparse keeps the first of repeated values. */
export function firstValue(query: Query, name: string): string | undefined {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (typeof value === "string" || value === undefined) return value;
  return value[0];
}

export function requiredValue(query: Query, name: string): string {
  const value = firstValue(query, name);
  if (value === undefined) throw badParameter(name, missingText);
  return value;
}

/**
 * reqparse `strict=True` (outputs and the blocks list): parameters other than those named are
 * refused, after the named ones are read, in the order they came.
 */
export function rejectUnknown(query: Query, known: readonly string[]): void {
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new LedgerError("BadParameter", `Unknown arguments: ${unknown.join(", ")}`);
}

/** `valid_txid`: 64 hex digits in either case, answered in lowercase (ids are stored so). */
export function parseTxId(name: string, value: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) throw badParameter(name, "Invalid hash");
  return value.toLowerCase();
}

/** `valid_operation`: uppercased first, so any case is accepted. */
export function parseOperation(name: string, value: string): Operation {
  const upper = value.toUpperCase();
  if (upper === "CREATE" || upper === "TRANSFER") return upper;
  throw badParameter(name, 'Operation must be "CREATE" or "TRANSFER"');
}

/** `valid_bool`: lowercased first, so `TRUE` is accepted despite its own message. */
export function parseBool(name: string, value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  throw badParameter(name, 'Boolean value must be "true" or "false" (lowercase)');
}

/** `valid_ed25519`: 43 or 44 base58 characters (base58 has no 0, O, I or l). */
export function parsePublicKey(name: string, value: string): string {
  if (!/^[1-9A-HJ-NP-Za-km-z]{43,44}$/.test(value)) throw badParameter(name, "Invalid base58 ed25519 key");
  return value;
}

/** `valid_mode`: exactly one of the three, case-sensitive; `?mode=` is refused too. */
export function parseMode(name: string, value: string | undefined): BroadcastMode {
  if (value === undefined) return "async";
  if (value === "async" || value === "sync" || value === "commit") return value;
  throw badParameter(name, 'Mode must be "async", "sync" or "commit"');
}

/**
 * `limit` (reqparse `type=int`): what Python's `int()` reads, with Python's message otherwise.
 * 0 or absent means "all" in BigchainDB, and a negative n meant |n| (Mongo's `limit`); here
 * every answer is also capped at `limitMax` (HttpOptions.searchLimitMax).
 */
export function parseLimit(name: string, value: string | undefined, limitMax: number): number {
  if (value === undefined) return limitMax;
  const match = /^\s*[+-]?(\d+)\s*$/.exec(value);
  if (match === null) throw badParameter(name, `invalid literal for int() with base 10: '${value}'`);
  const digits = match[1]!.replace(/^0+(?=\d)/, "");
  // Compare as text first: a 30-digit limit is valid Python and simply over the cap.
  const n = digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits);
  return n === 0 || n > limitMax ? limitMax : n;
}

/** A block height in the path: a non-negative integer, as Werkzeug's `int` converter takes it. */
export function parseHeight(name: string, value: string): number | null {
  if (!/^\d+$/.test(value)) throw badParameter(name, "Block height must be a non-negative integer");
  const height = Number(value);
  // Digits past the safe range cannot name a block that exists.
  return Number.isSafeInteger(height) ? height : null;
}
