// The lines of an export file (exportImport.ts) and the checks an import makes of each before it
// uses it: the JSON schema of the header and of a block line, then what a schema cannot say (a
// validator listed twice, a total power past what a number holds exactly). A file that passes
// gives a ledger a node can start on; any other is refused naming its line and field.
import type { ErrorObject, ValidateFunction } from "ajv";
import type { CommitmentVersion } from "../proofs/commitment.js";
import type { Validator } from "../store/store.js";
import type { BlockLine } from "../ledger/blockLine.js";
import type { exportFormat, exportVersion } from "./exportSchemas.js";
import * as generated from "./exportValidators.generated.js";

export { exportFormat, exportValidatorsMax, exportVersion } from "./exportSchemas.js";

/**
 * Most bytes in one line of an export, the header or a block. A block's line holds its
 * transactions as JSON strings (escaping can double a transaction's size): 64 MiB takes any
 * block within CometBFT's default `block.max_bytes` (21 MiB) twice over. An export refuses to
 * write a longer line, so it never writes a file an import refuses.
 */
export const exportLineBytesMax = 64 * 1024 * 1024;

export interface ExportHeader {
  readonly format: typeof exportFormat;
  readonly version: typeof exportVersion;
  readonly chain_id: string;
  /** The first validator set (initChain's): elections in the blocks change it as they did. */
  readonly validators: readonly Validator[];
  /** Absent in exports written before the rule existed, of a `bigchaindb` chain. */
  readonly commitment?: CommitmentVersion;
  /**
   * The protocol version the chain's genesis starts with, in decimal (docs/upgrades.md); absent
   * when the ledger did not record it (a chain begun before schema 7, or an older export).
   */
  readonly app_version?: string;
  /** The heights of the chain's rule changes, by name; absent when none. */
  readonly rule_heights?: Readonly<Record<string, number>>;
  readonly from: 1;
  readonly to: number;
}

/** A block's line (ledger/blockLine.ts, shared with state-sync snapshots). */
export type ExportBlock = BlockLine;

// ajv's code for the two lines' schemas (exportSchemas.ts), made once by `npm run
// generate:validators` (scripts/validatorCode.ts) rather than compiled at first use; the
// generated module is not type-checked (it is ajv's output), so its checks are typed here.
const validateHeader = generated.header as unknown as ValidateFunction<ExportHeader>;
const validateBlock = generated.block as unknown as ValidateFunction<ExportBlock>;

/** Line 1 of an export, checked; throws naming the field that is wrong. */
export function readHeader(text: string): ExportHeader {
  const value = parseLine(text, 1);
  if (!validateHeader(value)) throw schemaError(1, "the header", validateHeader.errors);
  const seen = new Map<string, number>();
  let power = 0;
  for (const [index, validator] of value.validators.entries()) {
    // A key listed twice: CometBFT refuses such a set, and an election's tally would count it twice.
    const first = seen.get(validator.publicKey);
    if (first !== undefined) throw new Error(`line 1: validators[${index}].publicKey repeats validators[${first}]'s`);
    seen.set(validator.publicKey, index);
    power += validator.power;
  }
  // Elections count the set's power as a number: its total must stay exact.
  if (!Number.isSafeInteger(power)) throw new Error(`line 1: the validators' total power is more than ${Number.MAX_SAFE_INTEGER}`);
  return value;
}

/** A block's line (line `number`), checked; throws naming the line and the field. */
export function readBlock(text: string, number: number): ExportBlock {
  const value = parseLine(text, number);
  if (!validateBlock(value)) throw schemaError(number, "a block's line", validateBlock.errors);
  return value;
}

function parseLine(text: string, number: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`line ${number} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function schemaError(number: number, what: string, errors: readonly ErrorObject[] | null | undefined): Error {
  const error = errors?.[0];
  if (error === undefined) return new Error(`line ${number}: not ${what}`);
  const field = fieldOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  let message = error.message ?? "is invalid";
  if (error.keyword === "additionalProperties") message = `must not have the field ${JSON.stringify(params["additionalProperty"])}`;
  if (error.keyword === "const" || error.keyword === "enum") message = `must be ${JSON.stringify(params["allowedValue"] ?? params["allowedValues"])}`;
  return new Error(`line ${number}: ${field === "" ? what : field} ${message}`);
}

/** `/validators/0/power` as `validators[0].power`. */
function fieldOf(instancePath: string): string {
  return instancePath
    .split("/")
    .slice(1)
    .map((part) => (/^[0-9]+$/.test(part) ? `[${part}]` : `.${part.replace(/~1/g, "/").replace(/~0/g, "~")}`))
    .join("")
    .replace(/^\./, "");
}
