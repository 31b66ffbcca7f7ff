// Relevance, as the SQLite backend ranks it: FTS5's `bm25()` (SQLite's fts5_aux.c), computed
// here from what PostgreSQL returns, so that both backends put the same documents first and a
// search with a `limit` gives the same answer on either. For a search of phrases P (each term is
// a phrase of its tokens) and a document D of |D| tokens among N documents averaging avgdl:
//   bm25(D) = - sum over P of IDF(P) * f(P,D) * (k1 + 1) / (f(P,D) + k1 * (1 - b + b * |D| / avgdl))
//   IDF(P) = ln((N - n(P) + 0.5) / (n(P) + 0.5)), at least 1e-6
// with f the occurrences of the phrase in D, n the documents holding it, k1 = 1.2, b = 0.75.
// The sum runs in FTS5's phrase order and the same double arithmetic; lower is better, ties go
// to the earlier commit. PURE.

const k1 = 1.2;
const b = 0.75;

/** One matching document: its length and the places of the search's lexemes in it. */
export interface RankedDocument {
  readonly seq: number;
  readonly tokens: number;
  readonly places: ReadonlyMap<string, readonly number[]>;
}

export interface TableStats {
  /** Documents in the text table (FTS5's row count). */
  readonly documents: number;
  /** Their tokens, summed. */
  readonly tokens: number;
}

/** The IDF of a phrase held by `holders` of the table's documents. */
export function inverseDocumentFrequency(stats: TableStats, holders: number): number {
  const idf = Math.log((stats.documents - holders + 0.5) / (holders + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** How often the phrase (lexemes in order) occurs in the document: places p, p+1, ... */
export function occurrences(places: ReadonlyMap<string, readonly number[]>, phrase: readonly string[]): number {
  const first = places.get(phrase[0]!) ?? [];
  if (phrase.length === 1) return first.length;
  const rest = phrase.slice(1).map((lexeme) => new Set(places.get(lexeme) ?? []));
  let count = 0;
  for (const place of first) if (rest.every((set, i) => set.has(place + i + 1))) count++;
  return count;
}

/** The numbers of the formula, as JavaScript computes them, for a ranking done elsewhere. */
export interface Bm25Constants {
  readonly k1: number;
  readonly k1PlusOne: number;
  readonly b: number;
  readonly oneMinusB: number;
  readonly averageLength: number;
}

export function bm25Constants(stats: TableStats): Bm25Constants {
  return { k1, k1PlusOne: k1 + 1.0, b, oneMinusB: 1 - b, averageLength: stats.tokens / stats.documents };
}

/** The documents' seqs, best first (bm25 ascending, then commit order). */
export function rankByBm25(
  documents: readonly RankedDocument[],
  phrases: readonly (readonly string[])[],
  idfs: readonly number[],
  stats: TableStats,
): number[] {
  // The constants the database's ranking is given too (search.ts), so both round alike.
  const c = bm25Constants(stats);
  const scored = documents.map((doc) => {
    let score = 0;
    phrases.forEach((phrase, i) => {
      const f = occurrences(doc.places, phrase);
      score += idfs[i]! * ((f * c.k1PlusOne) / (f + c.k1 * (c.oneMinusB + (c.b * doc.tokens) / c.averageLength)));
    });
    return { seq: doc.seq, score: -1.0 * score };
  });
  scored.sort((x, y) => x.score - y.score || x.seq - y.seq);
  return scored.map((doc) => doc.seq);
}
