// The PostgreSQL side of text search. The syntax of a search is ../textQuery.ts and its words
// are ../searchTokens.ts, as for every backend; here the tokens of an asset or a metadata
// document become a `tsvector` literal, and a parsed search a `tsquery` literal, both written
// lexeme by lexeme, so PostgreSQL's own parser and stemmer never see the text (they would split
// and stem differently from the SQLite backend). A tsvector keeps each token's place, so
// phrases match as `<->` chains.

import { createHash } from "node:crypto";
import { searchText, valueBarrier } from "../searchText.js";
import { searchTokens, type SearchToken } from "../searchTokens.js";
import type { TextQuery } from "../textQuery.js";

// PostgreSQL's tsvector limits (`tsvector.h`): what passes them is cut here, on purpose and the
// same way on every node, instead of by PostgreSQL (which refuses a long lexeme outright).
/** Highest place of a token; later tokens are matched as words, but not in phrases. */
export const tokenPlaceMax = 16_383;
/** Places kept per lexeme (PostgreSQL keeps no more). */
export const placesPerLexemeMax = 256;
/** A lexeme longer than this (UTF-8 bytes) is indexed and searched as `#` and its SHA-256. */
export const lexemeBytesMax = 255;
/** A document's tsvector stops growing at about this size (PostgreSQL's cap is 1 MiB). */
export const vectorBytesMax = 768 * 1024;

/** The lexeme stored for a token: itself, or a digest of a long one (no token holds a `#`). */
function lexeme(term: string): string {
  if (Buffer.byteLength(term) <= lexemeBytesMax) return term;
  return `#${createHash("sha256").update(term).digest("hex")}`;
}

/** A lexeme quoted for a tsvector or tsquery literal. */
function quoted(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** The tsvector literal of one document's tokens; the barriers between values keep their places. */
function vectorOf(tokens: readonly SearchToken[]): string {
  const places = new Map<string, number[]>();
  for (const token of tokens) {
    if (token.term === valueBarrier) continue;
    const place = Math.min(token.offset + 1, tokenPlaceMax);
    const key = lexeme(token.term);
    const list = places.get(key);
    if (list === undefined) places.set(key, [place]);
    else if (list.length < placesPerLexemeMax && list[list.length - 1] !== place) list.push(place);
  }
  const parts: string[] = [];
  let bytes = 0;
  for (const [key, list] of places) {
    const part = `${quoted(key)}:${list.join(",")}`;
    bytes += Buffer.byteLength(key) + 2 * list.length + 8;
    if (bytes > vectorBytesMax) break;
    parts.push(part);
  }
  return parts.join(" ");
}

/** The tsvector literals of these documents (compact JSON), indexed with their transaction ids. */
export function searchVectors(docs: readonly { id: string; json: string }[]): string[] {
  if (docs.length === 0) return [];
  return searchTokens(docs.map((doc) => searchText(doc.id, doc.json))).map(vectorOf);
}

/**
 * The tsquery literal of a parsed search, or null when it can match nothing: any term, every
 * phrase, no excluded word or phrase; a word of several tokens (`o'neil`) is a phrase of them,
 * as FTS5 reads a quoted word.
 */
export function searchQuery(query: TextQuery): string | null {
  const groups = [...query.terms.map((word) => [word]), ...query.phrases, ...query.excluded];
  const tokens = searchTokens(groups.map((words) => words.join(" ")));
  const chains = tokens.map((list) => (list.length === 0 ? null : list.map((t) => quoted(lexeme(t.term))).join(" <-> ")));
  const terms = chains.slice(0, query.terms.length).filter((chain) => chain !== null);
  if (terms.length === 0) return null;
  const phrases = chains.slice(query.terms.length, query.terms.length + query.phrases.length);
  const excluded = chains.slice(query.terms.length + query.phrases.length).filter((chain) => chain !== null);
  // A phrase with no token can never match (FTS5 finds nothing for an empty phrase either).
  if (phrases.some((chain) => chain === null)) return null;
  let text = `(${terms.map((t) => `(${t})`).join(" | ")})`;
  for (const phrase of phrases) text += ` & (${phrase})`;
  if (excluded.length > 0) text += ` & !(${excluded.map((e) => `(${e})`).join(" | ")})`;
  return text;
}
