// Election and vote transactions made and judged by BigchainDB 2.2.2's own classes
// (makeElectionVectors.py, electionVectors.json) against ledgerd's ledger on a real SQLite file:
// the same ids and signatures accepted, the same refusals with the same texts, and where ledgerd
// deliberately differs (docs/compatibility.md #11), the difference is named here.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, it } from "node:test";
import { decodeBase58 } from "../../../src/crypto-conditions/decodeBase58.js";
import { LedgerApp } from "../../../src/ledger/ledgerApp.js";
import { PreparePool, preparePoolOptionsDefault } from "../../../src/ledger/preparePool.js";
import { SqliteStore } from "../../../src/store/sqlite/sqliteStore.js";

interface Case {
  readonly name: string;
  readonly state: "validators" | "election" | "election_voted_by_1";
  readonly tx: Record<string, unknown>;
  readonly expected: "valid" | "invalid" | "crash";
  readonly error?: string;
  readonly message?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const vectors = JSON.parse(readFileSync(join(here, "electionVectors.json"), "utf8")) as {
  validators: { public_key: string; power: number }[];
  cases: Case[];
};

/** Where ledgerd refuses what BigchainDB accepted or crashed on, and with what. */
const deliberate: Record<string, { code: string; why: string }> = {
  election_unknown_key_type: { code: "SchemaValidationError", why: "BigchainDB's schema cannot explain the failure (RefResolutionError: 500)" },
  election_power_not_integer: { code: "SchemaValidationError", why: "BigchainDB crashed (TypeError: 500)" },
  election_power_negative: { code: "SchemaValidationError", why: "BigchainDB accepted it and would send CometBFT a negative power" },
};

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const pool = new PreparePool({ ...preparePoolOptionsDefault, threads: 0 });
const bytes = (tx: unknown): Uint8Array => Buffer.from(JSON.stringify(tx), "utf8");
const byName = new Map(vectors.cases.map((c) => [c.name, c]));

/** A ledger whose validator set is the vectors' four, in the state a case names. */
async function ledgerIn(state: Case["state"]): Promise<LedgerApp> {
  const dir = mkdtempSync(join(tmpdir(), "ledgerd-elections-"));
  dirs.push(dir);
  const store = SqliteStore.open({ path: join(dir, "ledger.sqlite") });
  const ledger = await LedgerApp.open({}, { store, pool });
  const validators = vectors.validators.map((v) => ({ publicKey: Buffer.from(decodeBase58(v.public_key)).toString("hex"), power: v.power }));
  await ledger.initChain("vectors", validators);
  const commit = async (names: string[]): Promise<void> => {
    const finalized = await ledger.finalizeBlock(ledger.info().height + 1, names.map((n) => bytes(byName.get(n)!.tx)));
    assert.deepEqual(finalized.results, names.map(() => null), `prerequisites ${names.join(", ")} commit`);
    await ledger.commit();
  };
  if (state !== "validators") await commit(["election_adds_newcomer"]);
  if (state === "election_voted_by_1") await commit(["vote_by_validator_1"]);
  return ledger;
}

describe("election vectors made by BigchainDB 2.2.2", () => {
  for (const vector of vectors.cases) {
    it(`${vector.name}: ${vector.expected} ${vector.error ?? ""}`, async () => {
      const ledger = await ledgerIn(vector.state);
      const result = await ledger.dryCheckTx(bytes(vector.tx), "v1");
      const differs = deliberate[vector.name];
      if (differs !== undefined) {
        assert.equal(result.ok, false, `${differs.why}: ledgerd refuses it`);
        assert.equal(!result.ok && result.rejection.code, differs.code);
      } else if (vector.expected === "valid") {
        assert.ok(result.ok, result.ok ? "" : `${result.rejection.code}: ${result.rejection.message}`);
        assert.equal(result.tx.id, vector.tx["id"]);
      } else {
        assert.equal(vector.expected, "invalid", `${vector.name} has a deliberate difference recorded`);
        assert.equal(result.ok, false, "accepted what BigchainDB refused");
        assert.deepEqual(!result.ok && { code: result.rejection.code, message: result.rejection.message }, {
          code: vector.error,
          message: vector.message,
        });
      }
    });
  }
});
