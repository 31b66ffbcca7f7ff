// The PostgreSQL store's text search (textSearch.ts says how a search becomes a tsquery): the
// newest matches, ranked as the SQLite backend ranks them (bm25.ts), whole or paged, and their
// documents read a batch at a time in that order.
import { LedgerError } from "../../errors/ledgerError.js";
import { encodePosition, parsePosition, pageAfterRank, ranksToRead } from "../positions.js";
import type { Batches, FieldHit, PageOptions, SearchHit } from "../store.js";
import { parseTextQuery, searchTooBroad } from "../textQuery.js";
import { bm25Constants, inverseDocumentFrequency, rankByBm25, type TableStats } from "./bm25.js";
import { batchRowsMax, type Reads } from "./reads.js";
import { phraseQuery, placesOfVectorText, searchPlan, type SearchPlan } from "./textSearch.js";

/** The store's search settings (PostgresStoreOptions). */
export interface SearchLimits {
  readonly searchWordsMax: number;
  readonly searchRankedMatchesMax: number;
}

function textTable(kind: "assets" | "metadata"): string {
  return kind === "assets" ? "asset_text" : "metadata_text";
}

/** A search, best match first; `limit` undefined or 0: every ranked match (too many: refused). */
export async function* searchHits(reads: Reads, limits: SearchLimits, kind: "assets" | "metadata", query: string, limit: number | undefined): Batches<SearchHit> {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new LedgerError("BadParameter", "limit must be a whole number, 0 or more");
  }
  const plan = planOf(query, limits);
  if (plan === null) return;
  const max = limits.searchRankedMatchesMax;
  const all = limit === undefined || limit === 0;
  // All matches were asked for, and only the newest `max` are ranked: one more is read to tell
  // whether that is all of them, so that nothing is cut without a word.
  const seqs = await rankedMatches(reads, kind, plan, null, all ? max + 1 : max, { offset: 0, count: all ? max + 1 : limit });
  if (all && seqs.length > max) throw searchTooBroad(max);
  yield* hitsAt(reads, kind, seqs);
}

/** A page of a search, as of the walk's snapshot (docs/http-api.md "Paging"). */
export async function* searchPage(reads: Reads, limits: SearchLimits, kind: "assets" | "metadata", query: string, page: PageOptions & { limit: number }): Batches<FieldHit> {
  const lastSeq = await reads.lastSeq();
  const [snapshot, offset] = page.after === undefined ? [lastSeq, 0] : (parsePosition(page.after, 2, lastSeq, false) as [number, number]);
  const plan = planOf(query, limits);
  const read = plan === null ? [] : await rankedMatches(reads, kind, plan, snapshot, limits.searchRankedMatchesMax, ranksToRead(offset, page.limit));
  const seqs = pageAfterRank(offset, read);
  let index = 0;
  for await (const batch of hitsAt(reads, kind, seqs)) {
    yield batch.map((hit) => ({ ...hit, position: encodePosition([snapshot, offset + ++index]) }));
  }
}

/** How a search runs, or null when it can match nothing; refuses one over the caps. */
function planOf(query: string, limits: SearchLimits): SearchPlan | null {
  return searchPlan(parseTextQuery(query, limits.searchWordsMax));
}

/** Which of the ranked matches are wanted: `count` of them from `offset` (0: the best). */
interface RankSlice {
  readonly offset: number;
  readonly count: number;
}

/**
 * The newest `window` matches (committed up to `upTo`, or all), ranked as the SQLite backend
 * ranks them (bm25.ts), all read in one snapshot of the database: the `slice` of them, best first.
 */
async function rankedMatches(reads: Reads, kind: "assets" | "metadata", plan: SearchPlan, upTo: number | null, window: number, slice: RankSlice): Promise<number[]> {
  const table = textTable(kind);
  const lexemes = [...new Set(plan.phrases.flat())];
  return reads.snapshot(async (client) => {
    const stats = (await client.query<TableStats>("SELECT documents, tokens FROM text_stats WHERE kind = $1", [kind])).rows[0]!;
    // No document yet: nothing to rank (and no average length to rank by).
    if (stats.documents === 0) return [];
    const terms = await client.query<{ lexeme: string; documents: number }>(
      "SELECT lexeme, documents FROM text_terms WHERE kind = $1 AND lexeme = ANY($2::text[])",
      [kind, lexemes],
    );
    const holdersOf = new Map(terms.rows.map((row) => [row.lexeme, row.documents]));
    await client.query(walkSettings(plan, holdersOf, stats, window));
    if (plan.phrases.every((phrase) => phrase.length === 1)) {
      const idfs = plan.phrases.map((phrase) => inverseDocumentFrequency(stats, holdersOf.get(phrase[0]!) ?? 0));
      const c = bm25Constants(stats);
      const values = [plan.tsquery, upTo, window, lexemes, idfs, slice.offset, slice.count, c.k1, c.k1PlusOne, c.oneMinusB, c.b, c.averageLength];
      // Which word each count is of, when there are several (one word: every match holds it).
      if (plan.phrases.length > 1) values.push(plan.phrases.flat());
      const ranked = rankedInDatabase(table, plan.phrases.length);
      const rows = await client.query<{ seq: number }>(ranked, values);
      return rows.rows.map((row) => row.seq);
    }
    // Each match's vector cut down to the search's lexemes (marked with weight A, then kept
    // by weight): a third of the time of unnesting every vector, measured on 10,000 matches.
    const matches = await client.query<{ seq: number; tokens: number; places: string }>(
      `SELECT seq, tokens, ts_filter(setweight(body, 'A', $4::text[]), '{a}')::text AS places FROM ${table}
       WHERE body @@ $1::tsquery AND ($2::bigint IS NULL OR seq <= $2) ORDER BY seq DESC LIMIT $3`,
      [plan.tsquery, upTo, window, lexemes],
    );
    const documents = matches.rows.map((row) => ({ seq: row.seq, tokens: row.tokens, places: placesOfVectorText(row.places) }));
    if (documents.length === 0) return [];
    const idfs: number[] = [];
    for (const phrase of plan.phrases) {
      // A word's documents are counted as they are written; a phrase's are counted now.
      const holders = phrase.length === 1
        ? (holdersOf.get(phrase[0]!) ?? 0)
        : (await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${table} WHERE body @@ $1::tsquery`, [phraseQuery(phrase)])).rows[0]!.n;
      idfs.push(inverseDocumentFrequency(stats, holders));
    }
    return rankByBm25(documents, plan.phrases, idfs, stats).slice(slice.offset, slice.offset + slice.count);
  });
}

/**
 * The ranking of a search whose terms are all single words, done by PostgreSQL: bm25.ts's sum
 * term by term in the same order and the same double arithmetic (each float8 operator rounds
 * as JavaScript does), so the order is the same as rankByBm25's to the last bit, while only the
 * wanted slice of seqs comes back instead of every match's places. A word's count in a
 * document is the number of its places in the match's vector cut down to the search's words
 * (one row each, unnested beside the match; with one word, every match holds it). Measured at
 * 1,000,000 documents and 10,000 matches: 27 ms, against 38 ms with a subquery per word and
 * 21 ms for reading the matches alone. Parameters: $1 tsquery, $2 upTo, $3 window, $4 the
 * lexemes, $5 each term's IDF, $6 offset, $7 count, $8 to $12 bm25Constants (k1, k1 + 1, 1 - b,
 * b, the average length), and with several terms $13 each one's lexeme.
 */
function rankedInDatabase(table: string, terms: number): string {
  const length = "($10::float8 + ($11::float8 * tokens::float8) / $12::float8)";
  const counts: string[] = [];
  for (let i = 1; i <= terms; i++) {
    counts.push(`coalesce(max(array_length(u.positions, 1)) FILTER (WHERE u.lexeme = ($13::text[])[${i}]), 0)::float8 AS f${i}`);
  }
  const countsOfMatch = terms === 1
    ? "CROSS JOIN LATERAL (SELECT array_length(u.positions, 1)::float8 AS f1 FROM unnest(m.places) u) c"
    : `CROSS JOIN LATERAL (SELECT ${counts.join(", ")} FROM unnest(m.places) u) c`;
  let score = "0::float8";
  for (let i = 1; i <= terms; i++) {
    score = `(${score} + ($5::float8[])[${i}] * ((f${i} * $9::float8) / (f${i} + $8::float8 * ${length})))`;
  }
  return `WITH matches AS (
      SELECT seq, tokens, ts_filter(setweight(body, 'A', $4::text[]), '{a}') AS places FROM ${table}
      WHERE body @@ $1::tsquery AND ($2::bigint IS NULL OR seq <= $2) ORDER BY seq DESC LIMIT $3)
    SELECT m.seq FROM matches m ${countsOfMatch} ORDER BY ${score} DESC, m.seq ASC OFFSET $6 LIMIT $7`;
}

/**
 * How PostgreSQL finds the newest `window` matches, chosen from the exact word counts the writer
 * keeps rather than left to the planner's estimates (which took the wrong way at a million
 * documents): with M matches at most among N documents, walking the documents newest first
 * until the window is full reads about window × N / M of them, collecting every match through
 * the GIN index reads M; the walk wins when M² > window × N. SET LOCAL: this transaction only.
 */
function walkSettings(plan: SearchPlan, holdersOf: ReadonlyMap<string, number>, stats: TableStats, window: number): string {
  // A match holds a term: at most the sum, over the terms, of the rarest lexeme of each.
  let most = 0;
  for (const term of plan.phrases.slice(0, plan.termCount)) most += Math.min(...term.map((lexeme) => holdersOf.get(lexeme) ?? 0));
  const walk = most * most > window * stats.documents;
  return walk
    ? "SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off"
    : "SET LOCAL enable_indexscan = off; SET LOCAL enable_seqscan = off";
}

/** The hits at these seqs (ranked), in that order, a batch at a time. */
async function* hitsAt(reads: Reads, kind: "assets" | "metadata", seqs: readonly number[]): Batches<SearchHit> {
  const column = kind === "assets" ? "asset_data" : "metadata";
  for (let at = 0; at < seqs.length; at += batchRowsMax) {
    const slice = seqs.slice(at, at + batchRowsMax);
    const rows = await reads.rows<{ seq: number; id: string; json: string }>(
      `SELECT seq, id, ${column} AS json FROM transactions WHERE seq = ANY($1::bigint[])`,
      [slice],
    );
    const bySeq = new Map(rows.map((row) => [row.seq, row]));
    yield slice.map((seq) => ({ id: bySeq.get(seq)!.id, json: bySeq.get(seq)!.json }));
  }
}
