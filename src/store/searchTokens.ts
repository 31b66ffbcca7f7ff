// The words of text search, for every backend: SQLite's FTS5 tokenizer (`porter unicode61
// remove_diacritics 2`: Unicode letters and digits, case and diacritics folded, Porter's
// stemmer) run on a private in-memory database. The SQLite backend indexes with it directly;
// the PostgreSQL one turns its tokens into tsvectors and tsqueries (postgres/textSearch.ts).
// One tokenizer is why both backends find the same documents for the same search: PostgreSQL's
// own parser and `english` (Snowball) stemmer split and stem some words differently.
//
// FTS5 reports every token it indexed with its offset through an `fts5vocab` table of kind
// `instance`; a batch of texts is tokenized in one SQLite transaction that is rolled back.

import Database from "better-sqlite3";

/** One token of a text: the indexed term and its place among the text's tokens (from 0). */
export interface SearchToken {
  readonly term: string;
  readonly offset: number;
}

/** The tokenizer every backend indexes with; the SQLite schema names the same one. */
export const searchTokenizer = "porter unicode61 remove_diacritics 2";

interface Tokenizer {
  readonly tokenize: (texts: readonly string[]) => SearchToken[][];
}

let shared: Tokenizer | undefined;

function open(): Tokenizer {
  const db = new Database(":memory:");
  db.exec(`
    CREATE VIRTUAL TABLE texts USING fts5(body, tokenize = '${searchTokenizer}');
    CREATE VIRTUAL TABLE tokens USING fts5vocab(texts, instance);`);
  const insert = db.prepare("INSERT INTO texts (rowid, body) VALUES (?, ?)");
  const read = db.prepare("SELECT doc, term, offset FROM tokens ORDER BY doc, offset");
  const tokenize = (texts: readonly string[]): SearchToken[][] => {
    const out: SearchToken[][] = texts.map(() => []);
    db.exec("BEGIN");
    try {
      texts.forEach((text, i) => insert.run(i + 1, text));
      for (const row of read.iterate() as Iterable<{ doc: number; term: string; offset: number }>) {
        out[row.doc - 1]!.push({ term: row.term, offset: row.offset });
      }
    } finally {
      db.exec("ROLLBACK");
    }
    return out;
  };
  return { tokenize };
}

/** The tokens of each text, in order. */
export function searchTokens(texts: readonly string[]): SearchToken[][] {
  shared ??= open();
  return shared.tokenize(texts);
}
