// Text search: the query syntax is `../textQuery.ts` (shared by every backend); here a parsed
// query becomes an FTS5 MATCH (`toFtsMatch.ts`) over the text `searchText.ts` indexed, and is
// ranked on the FTS5 table alone (`rankSql`). The hits' JSON is read afterwards, in batches
// (`batchReaders.ts` searchHits), so ranking never reads stored JSON.

import Database from "better-sqlite3";
import { LedgerError } from "../../errors/ledgerError.js";
import { parseTextQuery } from "../textQuery.js";
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
  const parsed = parseTextQuery(query);
  // Phrase words are terms too; count each word once.
  const words = new Set([...parsed.terms, ...parsed.phrases.flat(), ...parsed.excluded.flat()]);
  if (words.size > limits.wordsMax) {
    const message = `text_search has more than ${limits.wordsMax} words`;
    throw new LedgerError("BadParameter", message);
  }
  const match = toFtsMatch(parsed);
  if (match === null) return [];
  const top = limit === undefined || limit === 0 ? -1 : limit; // LIMIT -1 is no limit
  try {
    return c.rank[kind].all(match, limits.rankedMatchesMax, top) as number[];
  } catch (error) {
    // Every word is quoted, so this is not expected; if FTS5 still objects, it is the query.
    if (error instanceof Database.SqliteError && error.message.startsWith("fts5:")) {
      throw new LedgerError("BadParameter", "text_search cannot be parsed", { cause: error });
    }
    throw error;
  }
}
