// Strings must be Unicode (I-JSON, RFC 7493 §2.1; docs/compatibility.md #17), end to end: a
// transaction made and signed by the official JavaScript driver, whose id the driver computed
// over a lone surrogate, is refused with 400 before anything is stored, wherever the surrogate
// stands (issue 11, "Accepted and stored what other nodes and tools cannot read"). The legacy
// variants A and B are read by the same reader.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import driver from "bigchaindb-driver";
import { base58KeyCharsMin } from "../../src/transaction/schemas.js";
import { writeJson } from "../../src/json/writeJson.js";
import { clientLegacyCreate } from "../helpers/legacyFactory.js";
import { useStartedNode } from "../helpers/startedNode.js";
import { keypairOf } from "../helpers/txFactory.js";

const { Transaction, Ed25519Keypair } = driver as any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Tx = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function keypair(): { publicKey: string; privateKey: string } {
  for (;;) {
    const pair = new Ed25519Keypair(randomBytes(32)) as { publicKey: string; privateKey: string };
    if (pair.publicKey.length >= base58KeyCharsMin) return pair;
  }
}

/** A CREATE made and signed by the driver: its id is the driver's (the "js" canonical form). */
function driverCreate(data: Record<string, unknown>, metadata: Record<string, unknown> | null): Tx {
  const owner = keypair();
  const output = Transaction.makeOutput(Transaction.makeEd25519Condition(owner.publicKey), "1");
  const unsigned = Transaction.makeCreateTransaction(data, metadata, [output], owner.publicKey);
  return Transaction.signTransaction(unsigned, owner.privateKey);
}

interface Answer {
  readonly status: number;
  readonly body: { message: string; status: number };
}

describe("a lone surrogate anywhere in a posted body is refused with 400", () => {
  const node = useStartedNode("surrogate");

  async function post(path: string, body: string | Uint8Array): Promise<Answer> {
    const response = await fetch(`${node().baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: response.status, body: (await response.json()) as Answer["body"] };
  }

  function assertRefused(answer: Answer, what: string): void {
    assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.status, 400);
    assert.match(answer.body.message, /lone surrogate, which is not Unicode/, what);
  }

  it("driver-made CREATEs: in asset.data values and keys, nested, and in metadata", async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown> | null][] = [
      ["a value in asset.data", { s: "\ud800" }, null],
      ["a low half alone", { s: "x\udc00y" }, null],
      ["halves in the wrong order", { s: "\udd11\ud83d" }, null],
      ["a key in asset.data", { "k\udbff": 1 }, null],
      ["nested in asset.data", { a: [{ b: { c: ["ok", "\udfff"] } }] }, null],
      ["a value in metadata", { serial: 1 }, { note: "\ud83d" }],
      ["a key in metadata", { serial: 2 }, { "\ud800": "x" }],
    ];
    for (const [what, data, metadata] of cases) {
      const tx = driverCreate(data, metadata);
      // JSON.stringify writes a lone surrogate as a `\u` escape, as the driver posts it.
      assert.match(JSON.stringify(tx), /\\ud[89a-f][0-9a-f]{2}/, what);
      for (const mode of ["async", "sync", "commit"]) {
        assertRefused(await post(`/api/v1/transactions?mode=${mode}`, JSON.stringify(tx)), `${what}, mode=${mode}`);
      }
      const stored = await fetch(`${node().baseUrl}/api/v1/transactions/${tx["id"] as string}`);
      assert.equal(stored.status, 404, `${what}: nothing stored`);
      await stored.body?.cancel();
    }
  });

  it("a driver-made CREATE with a paired surrogate (an emoji) is accepted", async () => {
    const tx = driverCreate({ s: "\ud83d\udd11 \u{1f600}" }, { "\ud83d\udd11": "key" });
    const answer = await post("/api/v1/transactions?mode=commit", JSON.stringify(tx));
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
  });

  it("a raw surrogate in the bytes (UTF-8-encoded, as WTF-8 writes it) is refused", async () => {
    const tx = driverCreate({ s: "PLACEHOLDER" }, null);
    const [head, tail] = JSON.stringify(tx).split("PLACEHOLDER") as [string, string];
    const body = Buffer.concat([Buffer.from(head), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(tail)]);
    assertRefused(await post("/api/v1/transactions", body), "raw surrogate bytes");
  });

  it("legacy variants A and B: in the payload's values and keys", async () => {
    const owner = keypairOf("surrogate owner");
    // The builders cannot hash a lone surrogate: it goes into the text after them, as an escape.
    const payloads = [{ s: "LONE" }, { LONE: 1 }, { a: { b: ["LONE"] } }];
    for (const variant of ["A", "B"] as const) {
      for (const payload of payloads) {
        const text = writeJson(clientLegacyCreate(variant, [owner.publicKey], payload));
        const body = text.replace('"LONE"', '"\\ud800"');
        assert.notEqual(body, text);
        assertRefused(await post("/transactions/", body), `variant ${variant} ${JSON.stringify(payload)}`);
      }
    }
  });
});
