// The schemas' validators are ajv's code, generated once and committed (scripts/validatorCode.ts):
// each committed file must be what today's schemas give, and each generated check must answer,
// with the same errors, as ajv's own compile of the same schema with the same options.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { configFormats } from "../../src/config/configFormats.js";
import { validate as configValidator } from "../../src/config/configValidator.generated.js";
import { configDefault } from "../../src/config/defaults.js";
import { configSchema } from "../../src/config/schema.js";
import * as transactionValidators from "../../src/transaction/schemaValidators.generated.js";
import { checkedOperationSchemas, type CheckedOperation } from "../../src/transaction/schemas.js";
import { blockSchema, headerSchema } from "../../src/tools/exportSchemas.js";
import * as exportValidators from "../../src/tools/exportValidators.generated.js";
import { configAjvOptions, exportAjvOptions, generatedValidators, transactionAjvOptions } from "../../scripts/validatorCode.js";
import { create, keypairOf, transfer } from "../helpers/txFactory.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
type Check = ((data: unknown) => boolean) & { errors?: unknown };

/** Each of `values` gets the same answer and errors from `generated` as from `compiled`. */
function assertSameAnswers(generated: Check, compiled: Check, values: readonly unknown[], what: string): void {
  for (const value of values) {
    const where = `${what}: ${JSON.stringify(value).slice(0, 100)}`;
    assert.equal(generated(value), compiled(value), where);
    assert.deepEqual(generated.errors ?? null, compiled.errors ?? null, where);
  }
}

describe("the generated validators", () => {
  for (const { path, text } of generatedValidators) {
    it(`${path} is what the schema gives today (else: npm run generate:validators)`, () => {
      assert.ok(readFileSync(`${repo}${path}`, "utf8") === text(), `${path} is stale: run npm run generate:validators`);
    });
  }

  it("each transaction operation's check answers as ajv's compile of its schema", () => {
    const ajv = new Ajv(transactionAjvOptions);
    const alice = keypairOf("generated-validators");
    const created = create(alice, 5n, { k: 1 });
    const moved = transfer([{ tx: created, outputIndex: 0 }], [alice], [{ publicKeys: [alice.publicKey], amount: 5n }]);
    const values = [
      created,
      moved,
      { ...created, version: "1.0" },
      { ...created, id: "zz" },
      { ...created, extra: true },
      { ...moved, inputs: [] },
      { ...moved, outputs: [{ amount: 1 }] },
      null,
      7,
      {},
    ];
    const checks = transactionValidators as unknown as Record<CheckedOperation, Check>;
    for (const operation of Object.keys(checkedOperationSchemas) as CheckedOperation[]) {
      assertSameAnswers(checks[operation], ajv.compile(checkedOperationSchemas[operation]), values, operation);
    }
  });

  it("the export lines' checks answer as ajv's compile of their schemas", () => {
    const ajv = new Ajv(exportAjvOptions);
    const header = { format: "ledgerd-export", version: 1, chain_id: "c", validators: [{ publicKey: "ab".repeat(32), power: 10 }], from: 1, to: 3 };
    const headers = [
      header,
      { ...header, app_version: "7", rule_heights: { x: 2 }, commitment: "v1" },
      { ...header, format: "other" },
      { ...header, validators: [] },
      { ...header, validators: [{ publicKey: "AB", power: 1 }] },
      { ...header, chain_id: "c".repeat(1_000) },
      { ...header, extra: 1 },
      null,
    ];
    assertSameAnswers(exportValidators.header as unknown as Check, ajv.compile(headerSchema), headers, "header");
    const block = { height: 2, app_hash: "ab".repeat(32), txs: ["{}"] };
    const evidence = { type: "duplicate_vote", validator_address: "AB01", power: 10, infraction_height: 1, time: "t", total_power: 40 };
    const blocks = [block, { ...block, app_hash: "" }, { ...block, height: 0 }, { ...block, evidence: [evidence] }, { ...block, evidence: [{ ...evidence, type: "x" }] }, { ...block, txs: [1] }, []];
    assertSameAnswers(exportValidators.block as unknown as Check, ajv.compile(blockSchema), blocks, "block");
  });

  it("the settings' check answers as ajv's compile of their schema, formats included", () => {
    const ajv = new Ajv(configAjvOptions);
    for (const [name, format] of Object.entries(configFormats)) ajv.addFormat(name, format);
    const settings = structuredClone(configDefault) as unknown as Record<string, Record<string, unknown>>;
    const withServer = (server: Record<string, unknown>) => ({ ...settings, server: { ...settings["server"], ...server } });
    const values = [
      settings,
      withServer({ bind: "nowhere" }),
      withServer({ bind: 9984, extra: 1 }),
      { ...settings, engine: { ...settings["engine"], rpc_url: "ftp://x" } },
      { ...settings, data_dir: "" },
      {},
    ];
    assertSameAnswers(configValidator as unknown as Check, ajv.compile(configSchema), values, "settings");
  });
});
