// Text search: the query syntax is `../textQuery.ts` (shared by every backend); here a parsed
// query becomes an FTS5 MATCH (`toFtsMatch.ts`) over the text `searchText.ts` indexed, and is
// ranked on the FTS5 table alone (`rankSql`). The hits' JSON is read afterwards, in batches
// (`batchReaders.ts` searchHits), so ranking never reads stored JSON.

import Database from "better-sqlite3";
import { LedgerError } from "../../errors/ledgerError.js";
import { parseTextQuery, searchTooBroad } from "../textQuery.js";
import type { Connection } from "./connection.js";
import { toFtsMatch } from "./toFtsMatch.js";

export interface SearchLimits {
  /** SqliteStoreOptions.searchWordsMax. */
  readonly wordsMax: number;
  /** SqliteStoreOptions.searchRankedMatchesMax. */
  readonly rankedMatchesMax: number;
}

/**
 * The seqs of the best matches, best first, then in commit order; `limit` undefined or 0: all
 * that are ranked. A search the client got wrong is a LedgerError BadParameter (a 400).
 */
export function rankedSeqs(
  c: Connection,
  kind: "assets" | "metadata",
  query: string,
  limit: number | undefined,
  limits: SearchLimits,
): number[] {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) {
    throw new LedgerError("BadParameter", "limit must be a whole number, 0 or more");
  }
  const all = limit === undefined || limit === 0;
  return matching(query, limits, (match) => {
    if (!all) return c.rank[kind].all(match, limits.rankedMatchesMax, limit) as number[];
    // All matches were asked for, and only the newest rankedMatchesMax are ranked: one more
    // is read to tell whether that is all of them, so that nothing is cut without a word
    // (docs/compatibility.md #19).
    const seqs = c.rank[kind].all(match, limits.rankedMatchesMax + 1, -1) as number[];
    if (seqs.length > limits.rankedMatchesMax) throw searchTooBroad(limits.rankedMatchesMax);
    return seqs;
  });
}

/**
 * A page of a paged search: the seqs ranked `offset + 1` to `offset + count`, ranking the
 * newest matches committed up to `snapshot` (docs/http-api.md "Paging").
 */
export function rankedPage(
  c: Connection,
  kind: "assets" | "metadata",
  query: string,
  page: { snapshot: number; offset: number; count: number },
  limits: SearchLimits,
): number[] {
  const statement = kind === "assets" ? c.rank.assetsUpTo : c.rank.metadataUpTo;
  return matching(query, limits, (match) =>
    statement.all(match, page.snapshot, limits.rankedMatchesMax, page.count, page.offset) as number[],
  );
}

/** Runs `rank` on the FTS5 MATCH of `query`; no words to match: no hits. */
function matching(query: string, limits: SearchLimits, rank: (match: string) => number[]): number[] {
  // Refuses a search over the word or phrase caps (every word counted, repeats included).
  const match = toFtsMatch(parseTextQuery(query, limits.wordsMax));
  if (match === null) return [];
  try {
    return rank(match);
  } catch (error) {
    // Every word is quoted, so this is not expected; if FTS5 still objects, it is the query.
    if (error instanceof Database.SqliteError && error.message.startsWith("fts5:")) {
      throw new LedgerError("BadParameter", "text_search cannot be parsed", { cause: error });
    }
    throw error;
  }
}
