// The JSON layer on a typical 1-input CREATE (vector 01): readJson against JSON.parse (goal:
// within about 3x, since every posted transaction is read once), and the canonical
// serialization, id and signing digests that every transaction needs.
import { readFileSync } from "node:fs";
import { computeTxId } from "../src/transaction/computeTxId.js";
import { isJsonObject } from "../src/json/jsonValue.js";
import { matchTxId } from "../src/transaction/matchTxId.js";
import { readJson } from "../src/json/readJson.js";
import { serializeCanonical } from "../src/json/serializeCanonical.js";
import { signingDigests } from "../src/transaction/signingDigests.js";
import { writeJson } from "../src/json/writeJson.js";
import { fmt, rate, ofVerifyRate } from "./lib.js";

const vectorFile = new URL("../test/vectors/driver/01_create_single_owner.json", import.meta.url);

export async function run(): Promise<void> {
  const vector = readJson(new Uint8Array(readFileSync(vectorFile)));
  if (!isJsonObject(vector) || !isJsonObject(vector["tx"])) throw new Error("vector 01 has no tx");
  const tx = vector["tx"];
  const text = writeJson(tx);
  const bytes = new TextEncoder().encode(text);
  const mb = bytes.length / 1e6;
  const seconds = 1;

  const parseRate = rate(seconds, () => JSON.parse(text));
  const readTextRate = rate(seconds, () => readJson(text));
  const readBytesRate = rate(seconds, () => readJson(bytes));
  console.log(`tx size: ${bytes.length} bytes`);
  console.log(`JSON.parse(string):       ${fmt(parseRate)} /s  ${(parseRate * mb).toFixed(0)} MB/s ${ofVerifyRate(parseRate)}`);
  console.log(`readJson(string):         ${fmt(readTextRate)} /s  ${(readTextRate * mb).toFixed(0)} MB/s ${ofVerifyRate(readTextRate)}`);
  console.log(`readJson(bytes):          ${fmt(readBytesRate)} /s  ${(readBytesRate * mb).toFixed(0)} MB/s ${ofVerifyRate(readBytesRate)}`);
  console.log(`readJson(string) slower than JSON.parse by: ${(parseRate / readTextRate).toFixed(2)}x`);

  printRate("serializeCanonical python:", rate(seconds, () => serializeCanonical(tx, "python")));
  printRate("serializeCanonical js:    ", rate(seconds, () => serializeCanonical(tx, "js")));
  printRate("computeTxId python:       ", rate(seconds, () => computeTxId(tx, "python")));
  printRate("matchTxId:                ", rate(seconds, () => matchTxId(tx)));
  printRate("signingDigests python:    ", rate(seconds, () => signingDigests(tx, "python")));
  printRate("writeJson:                ", rate(seconds, () => writeJson(tx)));
}

function printRate(label: string, perSecond: number): void {
  console.log(`${label} ${fmt(perSecond)} /s ${ofVerifyRate(perSecond)}`);
}
