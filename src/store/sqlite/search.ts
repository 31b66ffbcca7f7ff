// Text search: the query syntax is `../textQuery.ts` (shared by every backend); here a parsed
// query becomes an FTS5 MATCH (`toFtsMatch.ts`) over the text `searchText.ts` indexed.

import Database from "better-sqlite3";
import { LedgerError } from "../../errors/ledgerError.js";
import { parseTextQuery } from "../textQuery.js";
import type { SearchHit } from "../store.js";
import { toFtsMatch } from "./toFtsMatch.js";

/** Runs `statement` (searchAssets or searchMetadata); a search the client got wrong is a 400. */
export function search(
  statement: Database.Statement,
  query: string,
  limit: number,
  searchWordsMax: number,
): SearchHit[] {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new LedgerError("BadParameter", "limit must be a whole number, 0 or more");
  }
  const parsed = parseTextQuery(query);
  // Phrase words are terms too; count each word once.
  const words = new Set([...parsed.terms, ...parsed.phrases.flat(), ...parsed.excluded.flat()]);
  if (words.size > searchWordsMax) {
    const message = `text_search has more than ${searchWordsMax} words`;
    throw new LedgerError("BadParameter", message);
  }
  const match = toFtsMatch(parsed);
  if (match === null) return [];
  try {
    return statement.all(match, limit === 0 ? -1 : limit) as SearchHit[];
  } catch (error) {
    // Every word is quoted, so this is not expected; if FTS5 still objects, it is the query.
    if (error instanceof Database.SqliteError && error.message.startsWith("fts5:")) {
      throw new LedgerError("BadParameter", "text_search cannot be parsed", { cause: error });
    }
    throw error;
  }
}
