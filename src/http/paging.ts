// Paging of every list answer (docs/http-api.md "Paging"): `limit` and an opaque `cursor` select
// a page, and the next one is announced in `Link: <...>; rel="next"` (RFC 8288), so that the
// body stays the plain array BigchainDB answers. Without them the whole list is streamed, or,
// past `server.list_max`, refused before its first byte (ListTooLong), never cut.
//
// A cursor is opaque to clients: base64url of the answer's scope (a digest of what was asked,
// so a cursor of another query is refused) and the store's position of the last item given.
// It is not signed: a forged position is checked by the store, which refuses what it never gave.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { LedgerError } from "../errors/ledgerError.js";
import type { Batches, PageOptions } from "../store/store.js";
import type { LongReads } from "./longReads.js";
import { badParameter, firstValue, parseLimit, type Query } from "./parameters.js";
import { sendJsonList } from "./streamJson.js";

/** Longest cursor accepted, in characters; a real one is far shorter. */
const cursorCharsMax = 256;

function scopeDigest(scope: string): string {
  return createHash("sha256").update(scope).digest("base64url").slice(0, 16);
}

function badCursor(): LedgerError {
  return new LedgerError("BadParameter", "cursor: not a cursor this node gave for this query");
}

/** The cursor that continues an answer of `scope` after `position`. */
export function encodeCursor(scope: string, position: string): string {
  return Buffer.from(JSON.stringify([scopeDigest(scope), position]), "utf8").toString("base64url");
}

/** The position in a cursor given for `scope`; anything else is a BadParameter. */
export function decodeCursor(scope: string, cursor: string): string {
  if (cursor.length === 0 || cursor.length > cursorCharsMax || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw badCursor();
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || parsed[0] !== scopeDigest(scope)) throw badCursor();
  if (typeof parsed[1] !== "string") throw badCursor();
  return parsed[1];
}

/**
 * The `Link` header value of the next page: the route's path and the request's parameters as
 * the route read them, in their order, each re-encoded, with `cursor` set (added last when it
 * was not there). Nothing of the raw URL is copied, so a client cannot write into the header.
 */
export function nextLink(routePath: string, query: Query, cursor: string): string {
  // A spread keeps a key's place when it replaces its value, and adds a new key last.
  const pairs = Object.entries({ ...query, cursor }).flatMap(([name, value]) =>
    (typeof value === "string" ? [value] : (value ?? [])).map((one) => `${encodeURIComponent(name)}=${encodeURIComponent(one)}`),
  );
  return `<${routePath}?${pairs.join("&")}>; rel="next"`;
}

/** What a list request asked for: a page (limit, cursor, or both), or the whole list. */
export interface PagingAsk {
  readonly limit: number | undefined;
  readonly cursor: string | undefined;
}

/** The paging parameters; `limit` a whole number from 1 to `limitMax` (0 or none: all). */
export function parsePaging(query: Query, limitMax: number): PagingAsk {
  return {
    limit: parseLimit("limit", firstValue(query, "limit"), limitMax),
    cursor: firstValue(query, "cursor"),
  };
}

export interface ListAnswer<T> {
  /** What the answer lists, for cursors: a cursor of another list is refused. */
  readonly scope: string;
  /** The items after a position, at most a limit (PageOptions); `{}` is the unpaged read. */
  readonly read: (page: PageOptions) => Batches<T>;
  readonly write: (item: T) => string;
}

export interface ListDeps {
  readonly reads: LongReads;
  /** server.list_max: most items of an answer without paging; 0: no cap. */
  readonly listMax: number;
}

/**
 * Answers a list request: a page when it gave `limit` or `cursor` (a `Link` names the next
 * page when there is one), else the whole list, streamed, unless it passes `listMax`.
 */
export async function sendList<T extends { readonly position: string }>(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: ListDeps,
  ask: PagingAsk,
  list: ListAnswer<T>,
): Promise<FastifyReply> {
  if (ask.limit === undefined && ask.cursor === undefined) {
    if (deps.listMax === 0) return sendJsonList(reply, deps.reads, list.read({}), list.write);
    // The unpaged read itself, stopped one item past the cap: what it refuses (a search too
    // broad to rank) it refuses as without a cap.
    const { items, more } = await readUpTo(reply, deps.reads, list.read({}), deps.listMax);
    if (more) throw listTooLong(deps.listMax);
    return sendJsonList(reply, deps.reads, once(items), list.write);
  }
  const after = ask.cursor === undefined ? undefined : decodeCursor(list.scope, ask.cursor);
  // A cursor alone continues with pages of listMax items, or, with no cap, with all the rest.
  const limit = ask.limit ?? deps.listMax;
  if (limit === 0) return sendJsonList(reply, deps.reads, list.read(after === undefined ? {} : { after }), list.write);
  const page = { ...(after === undefined ? {} : { after }), limit: limit + 1 };
  const { items, more } = await readUpTo(reply, deps.reads, list.read(page), limit);
  if (more) {
    const cursor = encodeCursor(list.scope, items[items.length - 1]!.position);
    const routePath = request.routeOptions.url;
    // Only a route's handler answers a list.
    assert.ok(routePath !== undefined, "a list answered outside a route");
    reply.header("link", nextLink(routePath, request.query as Query, cursor));
  }
  return sendJsonList(reply, deps.reads, once(items), list.write);
}

function listTooLong(listMax: number): LedgerError {
  return new LedgerError(
    "ListTooLong",
    `the answer has more than ${listMax} items (server.list_max): page it with limit and cursor`,
  );
}

/**
 * Up to `count` items of `batches`, read as a long read (admitted, a batch per turn: a filter
 * that keeps few rows may read many), and whether more followed.
 */
async function readUpTo<T>(
  reply: FastifyReply,
  reads: LongReads,
  batches: Batches<T>,
  count: number,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  const end = reads.admit(reply);
  try {
    while (items.length <= count) {
      const next = await reads.turn(() => batches.next());
      if (next.done === true) break;
      items.push(...next.value);
    }
  } finally {
    end();
    await batches.return?.();
  }
  const more = items.length > count;
  if (more) items.length = count;
  return { items, more };
}

async function* once<T>(items: readonly T[]): Batches<T> {
  if (items.length > 0) yield items;
}

/** A list that has no pages (at most one item): a cursor cannot be one this node gave. */
export function refuseCursor(ask: PagingAsk): void {
  if (ask.cursor !== undefined) throw badParameter("cursor", "not a cursor this node gave for this query");
}
