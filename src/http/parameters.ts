// Query parameters, read as BigchainDB's `web/views/parameters.py` and flask-restful's reqparse
// read them (docs/bigchaindb-behaviour.md §1.5, §1.6), with the body of docs/compatibility.md #2:
// reqparse's `{"message": {"<arg>": "<text>"}}` becomes the message `<arg>: <text>`, BigchainDB's
// words kept. Every check throws LedgerError("BadParameter") (400); nothing here touches the store.
import { parse as parseQuery } from "fast-querystring";
import { LedgerError } from "../errors/ledgerError.js";
import type { BroadcastMode } from "../engine/broadcaster.js";
import type { Operation } from "../transaction/committed.js";
import { heightCharsMax } from "./limits.js";

/** What Fastify's query-string parser gives: a repeated parameter is an array. */
export type Query = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The query string (after `?`) as Fastify's router reads it by default, given to Fastify and used
 * by the POST lane (postLane.ts), so that both read a query alike.
 */
export function parseQueryString(text: string): Query {
  return text.length === 0 ? {} : (parseQuery(text) as Query);
}

export const missingText = "Missing required parameter in the JSON body or the post body or the query string";

export function badParameter(name: string, text: string): LedgerError {
  return new LedgerError("BadParameter", `${name}: ${text}`);
}

/**
 * A parameter given more than once is refused, whatever the route and whether or not the route
 * reads it: reqparse silently kept the first (`?spent=true&spent=false` read as true), so a
 * client could not tell which of its values was used. Called for every request (httpApp.ts).
 */
export function rejectRepeated(query: Query): void {
  for (const name of Object.keys(query)) {
    if (Array.isArray(query[name])) throw repeated(name);
  }
}

/** The parameter's value; a repeated one is refused (see `rejectRepeated`). */
export function firstValue(query: Query, name: string): string | undefined {
  const value = Object.hasOwn(query, name) ? query[name] : undefined;
  if (typeof value === "string" || value === undefined) return value;
  throw repeated(name);
}

function repeated(name: string): LedgerError {
  return badParameter(name, "given more than once; give each parameter once");
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
 * `limit` of a search: absent or 0 is all (the spec's default, docs/compatibility.md #12), returned
 * as undefined; 1 to `limitMax` (HttpOptions.searchLimitMax) is itself. Nothing is cut silently:
 * a larger limit is a 400 that names the maximum and says that 0 means all, and a sign is a
 * 400 (BigchainDB passed `-n` on to MongoDB, where it meant n). Text Python's `int()` cannot
 * read keeps Python's message, as reqparse's `type=int` gave it.
 */
export function parseLimit(name: string, value: string | undefined, limitMax: number): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*([+-]?)(\d+)\s*$/.exec(value);
  if (match === null) throw badParameter(name, `invalid literal for int() with base 10: '${value}'`);
  if (match[1] !== "") {
    const range = `a whole number from 0 to ${limitMax}`;
    throw badParameter(name, `must be ${range} without a sign, 0 for all results (got '${value}')`);
  }
  const digits = match[2]!.replace(/^0+(?=\d)/, "");
  // Compared as text first: a 30-digit limit is over any maximum, and no double holds it.
  if (digits.length > String(limitMax).length || Number(digits) > limitMax) {
    throw badParameter(name, `${digits} is over the maximum of ${limitMax}; 0 gives all results`);
  }
  const n = Number(digits);
  return n === 0 ? undefined : n;
}

/** A block height in the path: a non-negative integer, as Werkzeug's `int` converter takes it. */
/** A height parameter: 1 or more, in at most `heightCharsMax` digits; null past 2^53 (no chain's). */
export function parseBlockHeight(name: string, text: string): number | null {
  if (text.length > heightCharsMax) throw badParameter(name, `A block height has at most ${heightCharsMax} digits`);
  const height = parseHeight(name, text);
  if (height !== null && height < 1) throw badParameter(name, "A block height is 1 or more");
  return height;
}

export function parseHeight(name: string, value: string): number | null {
  if (!/^\d+$/.test(value)) throw badParameter(name, "Block height must be a non-negative integer");
  const height = Number(value);
  // Digits past the safe range cannot name a block that exists.
  return Number.isSafeInteger(height) ? height : null;
}
