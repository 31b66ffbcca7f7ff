import type { TextQuery } from "../textQuery.js";

/**
 * The FTS5 MATCH expression for a parsed text search, or null when it can match nothing (no
 * terms). Every word goes in double quotes, so nothing a client types (`OR`, `NEAR(`, `*`, `^`,
 * `col:`) is read as FTS5 syntax; inside quotes FTS5 tokenizes and stems the words itself.
 */
export function toFtsMatch(query: TextQuery): string | null {
  if (query.terms.length === 0) return null;
  let match = `(${query.terms.map((word) => quoted([word])).join(" OR ")})`;
  for (const phrase of query.phrases) match += ` AND ${quoted(phrase)}`;
  if (query.excluded.length > 0) {
    match = `(${match}) NOT (${query.excluded.map(quoted).join(" OR ")})`;
  }
  return match;
}

function quoted(words: readonly string[]): string {
  return `"${words.join(" ").replaceAll('"', '""')}"`;
}
