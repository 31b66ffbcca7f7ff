// The PostgreSQL side of text search. The syntax of a search is ../textQuery.ts and its words
// are ../searchTokens.ts, as for every backend; here the tokens of an asset or a metadata
// document become a `tsvector` literal, and a parsed search a `tsquery` literal, both written
// lexeme by lexeme, so PostgreSQL's own parser and stemmer never see the text (they would split
// and stem differently from the SQLite backend). A tsvector keeps each token's place, so
// phrases match as `<->` chains. Matches are ranked by bm25.ts, FTS5's own formula, on the
// document lengths and frequencies the block writer keeps (`text_stats`, `text_terms`).

import assert from "node:assert/strict";
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

/** What one asset or metadata document adds to a text table. */
export interface SearchDocument {
  /** The tsvector literal: each lexeme with its places (barriers between values keep theirs). */
  readonly vector: string;
  /** Its tokens, barriers included: the document's length as FTS5's bm25 counts it. */
  readonly tokens: number;
  /** The distinct lexemes in `vector`, for the table's document frequencies. */
  readonly lexemes: readonly string[];
}

function documentOf(tokens: readonly SearchToken[]): SearchDocument {
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
  const lexemes: string[] = [];
  let bytes = 0;
  for (const [key, list] of places) {
    bytes += Buffer.byteLength(key) + 2 * list.length + 8;
    if (bytes > vectorBytesMax) break;
    parts.push(`${quoted(key)}:${list.join(",")}`);
    lexemes.push(key);
  }
  return { vector: parts.join(" "), tokens: tokens.length, lexemes };
}

/** The text-table rows of these documents (compact JSON), indexed with their transaction ids. */
export function searchDocuments(docs: readonly { id: string; json: string }[]): SearchDocument[] {
  if (docs.length === 0) return [];
  return searchTokens(docs.map((doc) => searchText(doc.id, doc.json))).map(documentOf);
}

/** A search as PostgreSQL runs it. */
export interface SearchPlan {
  /** The tsquery literal: any term, every phrase, no excluded word or phrase. */
  readonly tsquery: string;
  /**
   * The lexemes of each term and phrase, in the order FTS5 numbers the phrases of the same
   * search (terms, then phrases): what bm25 sums over. Excluded ones add nothing to a match.
   */
  readonly phrases: readonly (readonly string[])[];
  /** How many of `phrases` are terms (the first ones): a document holds one of them at least. */
  readonly termCount: number;
}

/**
 * How PostgreSQL runs a parsed search, or null when it can match nothing. A word of several
 * tokens (`o'neil`) is a phrase of them, as FTS5 reads a quoted word.
 */
export function searchPlan(query: TextQuery): SearchPlan | null {
  const groups = [...query.terms.map((word) => [word]), ...query.phrases, ...query.excluded];
  const lexemes = searchTokens(groups.map((words) => words.join(" "))).map((list) => list.map((t) => lexeme(t.term)));
  const chain = (list: readonly string[]) => list.map(quoted).join(" <-> ");
  const terms = lexemes.slice(0, query.terms.length).filter((list) => list.length > 0);
  if (terms.length === 0) return null;
  const phrases = lexemes.slice(query.terms.length, query.terms.length + query.phrases.length);
  // A phrase with no token can never match (FTS5 finds nothing for an empty phrase either).
  if (phrases.some((list) => list.length === 0)) return null;
  const excluded = lexemes.slice(query.terms.length + query.phrases.length).filter((list) => list.length > 0);
  let tsquery = `(${terms.map((t) => `(${chain(t)})`).join(" | ")})`;
  for (const phrase of phrases) tsquery += ` & (${chain(phrase)})`;
  if (excluded.length > 0) tsquery += ` & !(${excluded.map((e) => `(${chain(e)})`).join(" | ")})`;
  return { tsquery, phrases: [...terms, ...phrases], termCount: terms.length };
}

/**
 * The places of each lexeme in a tsvector's text form (`'a':1A,4A 'b''c':2A`, as PostgreSQL
 * writes it: quotes doubled, backslashes escaped, each place with its weight letter, if any).
 */
export function placesOfVectorText(text: string): Map<string, number[]> {
  const places = new Map<string, number[]>();
  let at = 0;
  while (at < text.length) {
    if (text[at] === " ") {
      at++;
      continue;
    }
    assert.equal(text[at], "'", `a tsvector's lexeme at ${at}`);
    let lexeme = "";
    for (at++; ; at++) {
      const c = text[at];
      assert.ok(c !== undefined, "a tsvector's lexeme is closed");
      if (c === "\\") lexeme += text[++at];
      else if (c === "'" && text[at + 1] === "'") lexeme += text[at++];
      else if (c === "'") break;
      else lexeme += c;
    }
    at++;
    const list: number[] = [];
    if (text[at] === ":") {
      const end = text.indexOf(" ", at);
      for (const part of text.slice(at + 1, end < 0 ? text.length : end).split(",")) list.push(Number.parseInt(part, 10));
      at = end < 0 ? text.length : end;
    }
    places.set(lexeme, list);
  }
  return places;
}

/** The tsquery of one phrase of lexemes (as searchPlan wrote them). */
export function phraseQuery(lexemes: readonly string[]): string {
  return lexemes.map(quoted).join(" <-> ");
}
