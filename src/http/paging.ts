// Cursor paging (RFC 8288 `Link: <...>; rel="next"`), the minimal form the field queries need.
// The paging helper's own src/http/paging.ts replaces this file when the branches merge; what
// the field queries use is only `encodeCursor`, `decodeCursor` and `nextLink`.
//
// A cursor is opaque to clients: base64url of the answer's scope (a digest of what was asked,
// so a cursor of another query is refused) and the store's position of the last item given.
// It is not signed: a forged position is checked by the store, which refuses what it never gave.
import { createHash } from "node:crypto";
import { LedgerError } from "../errors/ledgerError.js";

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
 * The `Link` header value of the next page: the request's own path and parameters, in their
 * order, with `cursor` set (added last when it was not there).
 */
export function nextLink(requestUrl: string, cursor: string): string {
  const at = requestUrl.indexOf("?");
  const path = at < 0 ? requestUrl : requestUrl.slice(0, at);
  const params = new URLSearchParams(at < 0 ? "" : requestUrl.slice(at + 1));
  params.set("cursor", cursor);
  return `<${path}?${params.toString()}>; rel="next"`;
}
