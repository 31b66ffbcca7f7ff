import type { ErrorObject } from "ajv";
import { reject, type Rejection } from "../errors/ledgerError.js";
import { isJsonObject, JsonNumber, type JsonValue } from "../json/jsonValue.js";
import { pyRepr } from "./pyRepr.js";
import * as generated from "./schemaValidators.generated.js";
import { knownOperations, type CheckedOperation } from "./schemas.js";

/** What ajv's code for a schema is: a check of a value, and the errors of its last failed check. */
interface SchemaValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

// ajv's code for each operation's schema, made once by `npm run generate:validators`
// (scripts/validatorCode.ts) rather than compiled here: compiling the four took every prepare
// thread ~0.15 to 0.2 s of CPU as it started. The generated module is not type-checked (it is
// ajv's output), so its exports are given their type here.
const validators = generated as unknown as Readonly<Record<CheckedOperation, SchemaValidator>>;

/**
 * Checks a transaction body against the v2.0 schema of its operation. The message follows the
 * wording of Python jsonschema, which BigchainDB reports (`'version' is a required property`).
 */
export function validateSchema(tx: JsonValue): Rejection | null {
  if (!isJsonObject(tx)) return schemaReject(`${pyRepr(tx)} is not of type 'object'`);
  const operation = tx["operation"];
  if (operation === undefined) return schemaReject("'operation' is a required property");
  if (typeof operation !== "string" || !(knownOperations as readonly string[]).includes(operation)) {
    return schemaReject(`${pyRepr(operation)} is not one of ${pyRepr([...knownOperations])}`);
  }
  // A chain migration halts the chain for an operator to restart it elsewhere; a CometBFT network
  // is upgraded another way (docs/compatibility.md #11).
  if (operation === "CHAIN_MIGRATION_ELECTION") return reject("ValidationError", chainMigrationRefusal);
  const validate = validators[operation as CheckedOperation];
  if (!validate(tx)) {
    const first = validate.errors?.[0];
    return schemaReject(first === undefined ? "invalid" : describeAjvError(first, tx));
  }
  // A JsonNumber is a JS object, so ajv's `type: "object"` admits it where content is free.
  const asset = tx["asset"];
  const data = isJsonObject(asset) ? asset["data"] : undefined;
  if (data instanceof JsonNumber) return schemaReject(`${data.lexeme} is not of type 'object', 'null'`);
  const metadata = tx["metadata"];
  if (metadata instanceof JsonNumber) return schemaReject(`${metadata.lexeme} is not of type 'object', 'null'`);
  return null;
}

export const chainMigrationRefusal =
  "CHAIN_MIGRATION_ELECTION is not supported: a ledgerd network is upgraded by its operators (a rolling " +
  "restart, or every node stopped at an agreed height and started on the new versions), not by a " +
  "transaction (docs/compatibility.md #11)";

function schemaReject(message: string): Rejection {
  return reject("SchemaValidationError", message);
}

function describeAjvError(error: ErrorObject, root: JsonValue): string {
  const value = valueAt(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `'${String(params["missingProperty"])}' is a required property`;
    case "additionalProperties":
      return `Additional properties are not allowed ('${String(params["additionalProperty"])}' was unexpected)`;
    case "type":
      return `${pyRepr(value)} is not of type '${String(params["type"])}'`;
    case "pattern":
      return `${pyRepr(value)} does not match '${String(params["pattern"])}'`;
    case "const":
      return `${pyRepr(value)} is not one of ${pyRepr([params["allowedValue"] as JsonValue])}`;
    case "minItems":
      return `${pyRepr(value)} is too short`;
    case "maxItems":
      return `${pyRepr(value)} is too long`;
    case "minProperties":
      return `${pyRepr(value)} does not have enough properties`;
    case "minimum":
      return `${pyRepr(value)} is less than the minimum of ${String(params["limit"])}`;
    case "maximum":
      return `${pyRepr(value)} is greater than the maximum of ${String(params["limit"])}`;
    case "anyOf":
      return `${pyRepr(value)} is not valid under any of the given schemas`;
    default:
      return `${pyRepr(value)} is invalid at '${error.instancePath}' (${error.message ?? error.keyword})`;
  }
}

function valueAt(root: JsonValue, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isJsonObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}
