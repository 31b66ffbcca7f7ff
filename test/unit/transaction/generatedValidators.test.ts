// The transaction schemas' validators are ajv's code, generated once and committed
// (scripts/validatorCode.ts): the committed file must be what today's schemas give, and each
// generated check must answer as ajv's own compile of the same schema does.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import * as generated from "../../../src/transaction/schemaValidators.generated.js";
import { checkedOperationSchemas, type CheckedOperation } from "../../../src/transaction/schemas.js";
import { transactionValidatorsModule, transactionValidatorsPath } from "../../../scripts/validatorCode.js";
import { create, keypairOf, transfer } from "../../helpers/txFactory.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
type Check = ((data: unknown) => boolean) & { errors?: unknown };
const checks = generated as unknown as Record<CheckedOperation, Check>;

describe("the generated transaction validators", () => {
  it("are what the schemas give today (else: npm run generate:validators)", () => {
    const committed = readFileSync(`${repo}${transactionValidatorsPath}`, "utf8");
    assert.ok(committed === transactionValidatorsModule(), `${transactionValidatorsPath} is stale: run npm run generate:validators`);
  });

  it("answer, with the same first error, as ajv's compile of each schema", () => {
    const ajv = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
    const alice = keypairOf("generated-validators");
    const created = create(alice, 5n, { k: 1 });
    const moved = transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 5n }]);
    const broken = [
      { ...created, version: "1.0" },
      { ...created, id: "zz" },
      { ...created, extra: true },
      { ...moved, inputs: [] },
      { ...moved, outputs: [{ amount: 1 }] },
    ];
    for (const operation of Object.keys(checkedOperationSchemas) as CheckedOperation[]) {
      const compiled = ajv.compile(checkedOperationSchemas[operation]);
      for (const tx of [created, moved, ...broken, null, 7, {}]) {
        const ok = checks[operation](tx);
        assert.equal(ok, compiled(tx), `${operation}: ${JSON.stringify(tx).slice(0, 80)}`);
        assert.deepEqual(checks[operation].errors ?? null, compiled.errors ?? null, operation);
      }
    }
  });
});
