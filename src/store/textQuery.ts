// How a text search is read: MongoDB `$text` `$search` syntax, as BigchainDB used it for
// GET /assets and GET /metadata (docs/compatibility.md #12, docs/bigchaindb-behaviour.md §4). PURE:
// every store backend turns the result into its own query language, so they all read a search
// alike.
//
// The rules follow MongoDB's query parser (`db/fts/fts_query_impl.cpp`, `fts_query_parser.cpp`):
// - whitespace (space, LF, VT, FF, CR) separates terms; terms are OR'ed;
// - `"..."` is a phrase, and every phrase must match; its words also count as terms, so a
//   document that matches the phrase always has a term;
// - `-` negates the term or phrase that follows it, but only when whitespace (or the start of the
//   text) comes before the `-` and none comes after it; a negation lasts until the next
//   whitespace, so `-foo-bar` excludes both `foo` and `bar`, while `pre-market` is two terms;
// - a `-` inside a word or a phrase is a separator; an unclosed phrase is no phrase, but its
//   words still count as terms (unless it was negated);
// - English stop words are dropped from terms and excluded terms (not from phrases, which are
//   literal), compared in lower case: a search for `the` alone matches nothing.
// Stemming, case and diacritic folding are left to the backend's tokenizer.
//
// What one search may cost is bounded here, for every backend: every word of the text counts
// against the caller's word cap, repeats included (a phrase is matched once per copy and once per
// word position, so `"a b" "a b" ...` or one phrase of 2,000 copies of a word cost as many
// matches as they have words), repeated phrases are dropped, and phrases are capped.
import { LedgerError } from "../errors/ledgerError.js";

/**
 * Distinct phrases in one search, negated ones included. Each phrase is a separate match over
 * every candidate; eight is more than real searches use (BigchainDB's examples use one).
 */
export const searchPhrasesMax = 8;

/**
 * A search asked for all its matches when there are more than a backend ranks (its
 * `searchRankedMatchesMax`): refused rather than cut without a word (docs/compatibility.md #19).
 */
export function searchTooBroad(rankedMatchesMax: number): LedgerError {
  const message =
    `text_search matches more than ${rankedMatchesMax} transactions, more than one answer ` +
    "may list: give a limit (the best matches among the newest are returned) or more words";
  return new LedgerError("SearchTooBroad", message);
}

/** A parsed text search. Words are lower case; each list keeps first-appearance order. */
export interface TextQuery {
  /** A document matches when it holds any of these (after stemming). Empty: nothing matches. */
  readonly terms: readonly string[];
  /** Each phrase (its words, in order) must appear in one string value of the document. */
  readonly phrases: readonly (readonly string[])[];
  /** A document holding any of these is left out: one word for `-term`, more for `-"phrase"`. */
  readonly excluded: readonly (readonly string[])[];
}

/**
 * Reads a search. Throws LedgerError("BadParameter") when the text has more than `wordsMax`
 * words (every word as written: repeats, stop words, phrase and negated words all count) or
 * more than `searchPhrasesMax` distinct phrases.
 */
export function parseTextQuery(text: string, wordsMax: number): TextQuery {
  // Counted before anything else is built, so an oversized search costs one scan.
  if (hasMoreWordsThan(text, wordsMax)) {
    const message = `text_search has more than ${wordsMax} words (every word counts, repeats included)`;
    throw new LedgerError("BadParameter", message);
  }
  const split = splitSearch(text);
  const terms = uniqueWords(split.positive.flatMap((piece) => words(piece)));
  const excludedTerms = uniqueWords(split.negative.flatMap((piece) => words(piece)));
  const phrases = uniquePhrases(split.phrases.map((phrase) => words(phrase, true)));
  // An empty negated phrase would exclude every document in MongoDB; it is dropped here.
  const negatedPhrases = uniquePhrases(split.negatedPhrases.map((phrase) => words(phrase, true)));
  if (phrases.length + negatedPhrases.length > searchPhrasesMax) {
    throw new LedgerError("BadParameter", `text_search has more than ${searchPhrasesMax} phrases`);
  }
  return { terms, phrases, excluded: [...excludedTerms.map((word) => [word]), ...negatedPhrases] };
}

/** Whether `text` holds more than `max` words; stops reading at the first one past `max`. */
function hasMoreWordsThan(text: string, max: number): boolean {
  let count = 0;
  for (const _match of text.matchAll(wordPattern)) {
    count++;
    if (count > max) return true;
  }
  return false;
}

interface SplitSearch {
  positive: string[];
  negative: string[];
  phrases: string[];
  negatedPhrases: string[];
}

/** MongoDB's `$search` scanner: text runs, `-` and `"` delimiters, whitespace between them. */
function splitSearch(text: string): SplitSearch {
  const out: SplitSearch = { positive: [], negative: [], phrases: [], negatedPhrases: [] };
  let inNegation = false;
  let phraseStart = -1; // index after the opening quote, -1 outside a phrase
  let pos = skipWhitespace(text, 0);
  let previousWhitespace = true; // the start of the text counts as whitespace
  while (pos < text.length) {
    const start = pos;
    const c = text[pos] as string;
    pos = c === "-" || c === '"' ? pos + 1 : endOfTextRun(text, pos);
    const afterToken = pos;
    pos = skipWhitespace(text, pos);
    const followedByWhitespace = pos > afterToken;
    if (c === "-") {
      // A `-` negates only outside a phrase and only after whitespace.
      if (phraseStart < 0 && previousWhitespace) inNegation = true;
    } else if (c === '"') {
      if (phraseStart >= 0) {
        const phrase = text.slice(phraseStart, start);
        (inNegation ? out.negatedPhrases : out.phrases).push(phrase);
        phraseStart = -1; // the negation goes on until whitespace: `-"a b"-"c d"`
      } else {
        if (inNegation && previousWhitespace) inNegation = false; // `- "a b"` is not negated
        phraseStart = afterToken;
      }
    } else if (!(phraseStart >= 0 && inNegation)) {
      // The words of a negated phrase are not terms; a negation ends at whitespace.
      if (inNegation && previousWhitespace) inNegation = false;
      (inNegation ? out.negative : out.positive).push(text.slice(start, afterToken));
    }
    previousWhitespace = followedByWhitespace;
  }
  return out;
}

function isSearchWhitespace(c: string): boolean {
  return c === " " || c === "\n" || c === "\v" || c === "\f" || c === "\r";
}

function skipWhitespace(text: string, pos: number): number {
  while (pos < text.length && isSearchWhitespace(text[pos] as string)) pos++;
  return pos;
}

function endOfTextRun(text: string, pos: number): number {
  while (pos < text.length) {
    const c = text[pos] as string;
    if (c === "-" || c === '"' || isSearchWhitespace(c)) break;
    pos++;
  }
  return pos;
}

// A word: letters and digits (with their combining marks), apostrophes allowed inside, as in
// MongoDB's English tokenizer, so `don't` is one word and a stop word. Everything else separates
// words, private-use characters included (stores may use one as an internal marker).
const wordPattern = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:['\u2019][\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*/gu;

/** The lower-case words of a piece of text; stop words dropped unless `keepStopWords`. */
function words(piece: string, keepStopWords = false): string[] {
  const out: string[] = [];
  for (const match of piece.matchAll(wordPattern)) {
    const word = match[0].toLowerCase().replaceAll("\u2019", "'");
    if (keepStopWords || !englishStopWords.has(word)) out.push(word);
  }
  return out;
}

function uniqueWords(list: readonly string[]): string[] {
  return [...new Set(list)];
}

/** Non-empty phrases, each once, in first-appearance order. */
function uniquePhrases(list: readonly string[][]): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const phrase of list) {
    // Words hold no whitespace, so a space joins them without ambiguity.
    const key = phrase.join(" ");
    if (phrase.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(phrase);
  }
  return out;
}

// MongoDB's English stop words (`db/fts/stop_words_english.txt`), the list `$text` drops.
const englishStopWords: ReadonlySet<string> = new Set([
  "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
  "aren't", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
  "but", "by", "can't", "cannot", "could", "couldn't", "did", "didn't", "do", "does", "doesn't",
  "doing", "don't", "down", "during", "each", "few", "for", "from", "further", "had", "hadn't",
  "has", "hasn't", "have", "haven't", "having", "he", "he'd", "he'll", "he's", "her", "here",
  "here's", "hers", "herself", "him", "himself", "his", "how", "how's", "i", "i'd", "i'll",
  "i'm", "i've", "if", "in", "into", "is", "isn't", "it", "it's", "its", "itself", "let's", "me",
  "more", "most", "mustn't", "my", "myself", "no", "nor", "not", "of", "off", "on", "once",
  "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "same",
  "shan't", "she", "she'd", "she'll", "she's", "should", "shouldn't", "so", "some", "such",
  "than", "that", "that's", "the", "their", "theirs", "them", "themselves", "then", "there",
  "there's", "these", "they", "they'd", "they'll", "they're", "they've", "this", "those",
  "through", "to", "too", "under", "until", "up", "very", "was", "wasn't", "we", "we'd", "we'll",
  "we're", "we've", "were", "weren't", "what", "what's", "when", "when's", "where", "where's",
  "which", "while", "who", "who's", "whom", "why", "why's", "with", "won't", "would", "wouldn't",
  "you", "you'd", "you'll", "you're", "you've", "your", "yours", "yourself", "yourselves",
]);
