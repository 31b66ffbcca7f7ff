// The PostgreSQL backend's text search pieces that need no server (src/store/postgres/
// textSearch.ts, bm25.ts): reading a tsvector's text form back, and bm25's arithmetic.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inverseDocumentFrequency, occurrences, rankByBm25 } from "../../../src/store/postgres/bm25.js";
import { placesOfVectorText, searchPlan } from "../../../src/store/postgres/textSearch.js";
import { parseTextQuery } from "../../../src/store/textQuery.js";

describe("postgres text search", () => {
  it("reads the places of a tsvector's text form, quotes and backslashes included", () => {
    const places = placesOfVectorText(`'bike':1A,5A 'it''s':2A 'a\\\\b':3 'plain' 'x':16383A`);
    assert.deepEqual([...places], [["bike", [1, 5]], ["it's", [2]], ["a\\b", [3]], ["plain", []], ["x", [16383]]]);
    assert.deepEqual([...placesOfVectorText("")], []);
  });

  it("plans a search as FTS5 numbers its phrases: terms, then phrases; words of several tokens are phrases", () => {
    const plan = searchPlan(parseTextQuery(`Running o'neil "crème brûlée" -sale`, 64));
    assert.ok(plan !== null);
    assert.deepEqual(plan.phrases, [["run"], ["o", "neil"], ["creme"], ["brule"], ["creme", "brule"]]);
    assert.equal(plan.tsquery, `(('run') | ('o' <-> 'neil') | ('creme') | ('brule')) & ('creme' <-> 'brule') & !(('sale'))`);
    assert.equal(searchPlan(parseTextQuery("the of -bike", 64)), null);
  });

  it("counts a phrase's occurrences at consecutive places, overlapping ones too", () => {
    const places = new Map([["bike", [1, 2, 3, 7]], ["red", [6]]]);
    assert.equal(occurrences(places, ["bike"]), 4);
    assert.equal(occurrences(places, ["bike", "bike"]), 2);
    assert.equal(occurrences(places, ["red", "bike"]), 1);
    assert.equal(occurrences(places, ["bike", "red"]), 0);
    assert.equal(occurrences(places, ["car"]), 0);
  });

  it("ranks by bm25 as FTS5 computes it: frequency, length and rarity; ties in commit order", () => {
    const stats = { documents: 100, tokens: 1_000 };
    assert.equal(inverseDocumentFrequency(stats, 99), 1e-6, "a word in nearly every document still counts a little");
    const idf = inverseDocumentFrequency(stats, 2);
    assert.equal(idf, Math.log(98.5 / 2.5));
    const doc = (seq: number, tokens: number, bike: number[]) => ({ seq, tokens, places: new Map([["bike", bike]]) });
    // Twice in a short document beats once in a long one; equal documents keep commit order.
    const ranked = rankByBm25([doc(1, 40, [1]), doc(2, 2, [1, 2]), doc(3, 10, [4]), doc(4, 10, [4])], [["bike"]], [idf], stats);
    assert.deepEqual(ranked, [2, 3, 4, 1]);
  });
});
