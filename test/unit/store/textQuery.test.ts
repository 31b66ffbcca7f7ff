// parseTextQuery: MongoDB `$search` syntax (docs/compatibility.md #12), shared by every store
// backend.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LedgerError } from "../../../src/errors/ledgerError.js";
import { parseTextQuery, searchPhrasesMax, type TextQuery } from "../../../src/store/textQuery.js";

/** A cap no case below reaches. */
const wordsMax = 1_000;

function q(terms: string[], phrases: string[][] = [], excluded: string[][] = []): TextQuery {
  return { terms, phrases, excluded };
}

describe("parseTextQuery", () => {
  const cases: [string, TextQuery][] = [
    // Terms
    ["bike", q(["bike"])],
    ["red  bike\nshop", q(["red", "bike", "shop"])],
    ["Red RED red", q(["red"])],
    ["Café Crème", q(["café", "crème"])],
    ["bike, wheel; (pedal)!", q(["bike", "wheel", "pedal"])],
    ["", q([])],
    ["   ", q([])],
    // Stop words (MongoDB's English list), dropped from terms, compared in lower case
    ["the bike", q(["bike"])],
    ["The A OF", q([])],
    ["don't stop", q(["stop"])],
    ["Don’t stop", q(["stop"])],
    ["rock'n'roll", q(["rock'n'roll"])],
    // Phrases: required, literal (stop words kept), their words are terms too
    ['"red bike"', q(["red", "bike"], [["red", "bike"]])],
    ['"at the shop" bike', q(["shop", "bike"], [["at", "the", "shop"]])],
    ['"the"', q([], [["the"]])],
    ['""', q([])],
    ['"!!"', q([])],
    ['"a b"c"d e"', q(["b", "c", "d", "e"], [["a", "b"], ["d", "e"]])],
    ['"unclosed phrase', q(["unclosed", "phrase"])],
    ['"pre-market deal"', q(["pre", "market", "deal"], [["pre", "market", "deal"]])],
    // Negation: a `-` after whitespace (or at the start), up to the next whitespace
    ["bike -red", q(["bike"], [], [["red"]])],
    ["-red bike", q(["bike"], [], [["red"]])],
    ["bike -red-blue", q(["bike"], [], [["red"], ["blue"]])],
    ["bike - red", q(["bike", "red"])],
    ["bike--red", q(["bike", "red"])],
    ["pre-market", q(["pre", "market"])],
    ["--red", q([], [], [["red"]])],
    ["bike -the", q(["bike"])],
    ['bike -"red car"', q(["bike"], [], [["red", "car"]])],
    ['bike -"the"', q(["bike"], [], [["the"]])],
    ['bike -"red car"-"blue van"', q(["bike"], [], [["red", "car"], ["blue", "van"]])],
    ['bike - "red car"', q(["bike", "red", "car"], [["red", "car"]])],
    ['-"red car" -""', q([], [], [["red", "car"]])],
    ['"-red bike"', q(["red", "bike"], [["red", "bike"]])],
    ['-"unclosed red', q([])],
    ["bike\t-red", q(["bike", "red"])], // a tab is not whitespace to MongoDB's query scanner
    // FTS and SQL syntax is only words
    ['foo" OR bar*', q(["foo", "bar"])],
    ["NEAR(a b, 3)", q(["near", "b", "3"])],
    ["col:value ^start", q(["col", "value", "start"])],
    ["AND OR NOT", q([])],
    ["%' OR 1=1 --", q(["1"])],
    ["\u0000\uE000\uD800😀", q([])],
  ];
  for (const [text, expected] of cases) {
    it(JSON.stringify(text), () => {
      assert.deepEqual(parseTextQuery(text, wordsMax), expected);
    });
  }

  it("is pure: the same text gives the same query", () => {
    const text = 'a "b c" -d';
    assert.deepEqual(parseTextQuery(text, wordsMax), parseTextQuery(text, wordsMax));
  });
});

describe("parseTextQuery: what one search may cost", () => {
  const refused = (pattern: RegExp) => (error: unknown) =>
    error instanceof LedgerError && error.code === "BadParameter" && pattern.test(error.message);

  it("every word counts against the cap, repeats and stop words included", () => {
    assert.deepEqual(parseTextQuery("red red red", 3), q(["red"]));
    assert.throws(() => parseTextQuery("red red red red", 3), refused(/more than 3 words/));
    assert.throws(() => parseTextQuery("the the the the", 3), refused(/more than 3 words/));
    // Phrase words and negated words are words of the text too.
    assert.throws(() => parseTextQuery('red "red car"', 2), refused(/more than 2 words/));
    assert.throws(() => parseTextQuery('bike -"red car"', 2), refused(/more than 2 words/));
  });

  it("a phrase repeated to pass the cap of distinct words is refused", () => {
    const phrase = '"lorem ipsum dolor sit amet"';
    assert.throws(() => parseTextQuery(Array(50).fill(phrase).join(" "), 64), refused(/more than 64 words/));
  });

  it("one phrase of 2,000 copies of a word is refused before it is split", () => {
    const text = `"${Array(2_000).fill("lorem").join(" ")}"`;
    assert.throws(() => parseTextQuery(text, 64), refused(/more than 64 words/));
  });

  it("a repeated phrase or negated phrase is kept once", () => {
    assert.deepEqual(
      parseTextQuery('"red car" "Red  car" -"old van" -"old van"', wordsMax),
      q(["red", "car"], [["red", "car"]], [["old", "van"]]),
    );
  });

  it(`more than ${searchPhrasesMax} distinct phrases are refused`, () => {
    const phrases = (n: number) => Array.from({ length: n }, (_, i) => `"w${i} x${i}"`).join(" ");
    assert.equal(parseTextQuery(phrases(searchPhrasesMax), wordsMax).phrases.length, searchPhrasesMax);
    assert.throws(() => parseTextQuery(phrases(searchPhrasesMax + 1), wordsMax), refused(/phrases/));
  });
});
