// The pure parts of docs/transparency.md against the C2SP specs' own examples: signed-note's
// example verifier key opens its example note (and refuses it altered), checkpoints read back,
// and tlog-tiles' path encoding and its example tree of 70,000 leaves.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { checkpointBody, parseCheckpointBody } from "../../../src/proofs/checkpoint.js";
import { toHex } from "../../../src/proofs/encoding.js";
import { isKeyName, noteKeyId, noteSignaturesMax, openNote, parseVerifierKey, splitNote, verifierKeyOf } from "../../../src/proofs/signedNote.js";
import { parseTilePath, tilePath, tilesOf, tileWithin } from "../../../src/proofs/tiles.js";

// C2SP signed-note, "Verifier keys", Example.
const exampleVkey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
const exampleNote = "This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n";

describe("signed notes", () => {
  test("the spec's example key opens the spec's example note, and its key ID is SHA-256(name, 0x0A, 0x01, key)", () => {
    const key = parseVerifierKey(exampleVkey);
    assert.ok(key !== null);
    assert.equal(toHex(noteKeyId(key)), "530d903a");
    assert.equal(verifierKeyOf(key), exampleVkey);
    assert.equal(openNote(exampleNote, key), "This is an example message.\n");
  });

  test("an altered text, a signature by another key only, or a malformed note is not opened", () => {
    const key = parseVerifierKey(exampleVkey)!;
    assert.equal(openNote(exampleNote.replace("example message", "example massage"), key), null);
    const other = exampleNote.replace("example.com/foo Uw2Q", "example.com/bar Uw2Q");
    assert.equal(openNote(other, key), null);
    // An unknown signature beside a valid one is ignored.
    const cosigned = `${exampleNote}\u2014 witness.example/w AAAAAAAA\n`;
    assert.equal(openNote(cosigned, key), "This is an example message.\n");
    for (const bad of ["", "no blank line\n", "text\n\n", "text\n\n\u2014 a b c\n", "text\n\n\u2014 a !!!\n", "te\u0007xt\n\n\u2014 a AAAAAAAA\n"]) {
      assert.equal(splitNote(bad), null, JSON.stringify(bad));
    }
    // At most noteSignaturesMax signature lines: one more and the note is refused, unread.
    const withLines = (n: number): string => `${exampleNote}${"\u2014 witness.example/w AAAAAAAA\n".repeat(n - 1)}`;
    assert.equal(splitNote(withLines(noteSignaturesMax))?.signatures.length, noteSignaturesMax);
    assert.equal(splitNote(withLines(noteSignaturesMax + 1)), null);
  });

  test("verifier keys that are not Ed25519 signed-note keys are refused", () => {
    for (const bad of ["example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k", "a+b", "example.com/foo+530d903a+AgkyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k", "x y+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"]) {
      assert.equal(parseVerifierKey(bad), null, bad);
    }
    assert.equal(isKeyName("ledgerd.invalid/chain%2B1"), true);
  });

  test("a verifier key whose base64 holds a + is read (the name and the ID are the first two fields)", () => {
    const vkey = "ledgerd.invalid/ledgerd-solo+f67a4dd9+AaVGnNG7VaSui3q9Odec9jWznJOK+Sm3Nzsg0vJV+LIO";
    const key = parseVerifierKey(vkey);
    assert.ok(key !== null);
    assert.equal(verifierKeyOf(key), vkey);
    for (const bad of ["", "a b", "a+b", "a\u00a0b", "a\nb"]) assert.equal(isKeyName(bad), false, JSON.stringify(bad));
  });
});

describe("checkpoints", () => {
  test("a body reads back; extension lines are ignored; malformed ones are refused", () => {
    const root = new Uint8Array(32).fill(7);
    const body = checkpointBody({ origin: "example.com/log", size: 20852163, root });
    assert.equal(body, "example.com/log\n20852163\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n");
    assert.deepEqual(parseCheckpointBody(body), { origin: "example.com/log", size: 20852163, root });
    assert.equal(parseCheckpointBody(`${body}extension\n`)?.size, 20852163);
    for (const bad of ["", "o\n1\n", "o\n01\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n", "o\n1\nBwcH\n", "\n1\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n", "o\n99999999999999999\nBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\n"]) {
      assert.equal(parseCheckpointBody(bad), null, JSON.stringify(bad));
    }
  });
});

describe("tile paths", () => {
  test("N in 3-digit elements, x-prefixed but the last; partial tiles with .p/W; read back", () => {
    assert.equal(tilePath({ level: 0, index: 1234067, width: 256 }), "tile/0/x001/x234/067");
    assert.equal(tilePath({ level: "entries", index: 5, width: 17 }), "tile/entries/005.p/17");
    assert.deepEqual(parseTilePath("0/x001/x234/067"), { level: 0, index: 1234067, width: 256 });
    assert.deepEqual(parseTilePath("entries/005.p/17"), { level: "entries", index: 5, width: 17 });
    assert.deepEqual(parseTilePath("63/000"), { level: 63, index: 0, width: 256 });
    for (const bad of ["", "0", "0/1", "0/0001", "0/x000/001", "0/x001", "00/000", "64/000", "0/000.p/0", "0/000.p/256", "0/000.p/017", "0/000.p", "data/000", "0/000/", "0/y001/000"]) {
      assert.equal(parseTilePath(bad), null, bad);
    }
  });

  test("the spec's tree of 70,000: 273 full level-0 tiles, one of 112, one full level-1, one of 17, one level-2 of 1", () => {
    const tiles = tilesOf(70_000).filter((t) => t.level !== "entries");
    const at = (level: number) => tiles.filter((t) => t.level === level);
    assert.equal(at(0).filter((t) => t.width === 256).length, 273);
    assert.deepEqual(at(0).filter((t) => t.width < 256), [{ level: 0, index: 273, width: 112 }]);
    assert.deepEqual(at(1), [{ level: 1, index: 0, width: 256 }, { level: 1, index: 1, width: 17 }]);
    assert.deepEqual(at(2), [{ level: 2, index: 0, width: 1 }]);
    assert.equal(tiles.length, 277);
    assert.equal(tilesOf(70_000).filter((t) => t.level === "entries").length, 274);
    // A tree of 256: one full level-0 tile and a level-1 tile of width 1.
    assert.deepEqual(tilesOf(256).filter((t) => t.level !== "entries"), [{ level: 0, index: 0, width: 256 }, { level: 1, index: 0, width: 1 }]);
    assert.equal(tileWithin({ level: 0, index: 273, width: 112 }, 70_000), true);
    assert.equal(tileWithin({ level: 0, index: 273, width: 113 }, 70_000), false);
  });
});
