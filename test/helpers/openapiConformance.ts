// Checks a real answer against the OpenAPI document (src/http/openapi/): its status is one the
// operation describes, its type one described for that status, and a JSON body validates
// against the described schema. Used by the unit test of the document and the end-to-end one.
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { openapiDocument } from "../../src/http/openapi/openapiDocument.js";
import { httpOptionsDefault } from "../../src/http/options.js";

interface Operation {
  readonly parameters?: readonly { name: string; in: string }[];
  readonly responses: Record<string, { content?: Record<string, { schema: object }> }>;
}

/** The document of a node with the default options, as the tests' nodes have. */
export const defaultDocument = openapiDocument(httpOptionsDefault);

const paths = defaultDocument.paths as unknown as Record<string, Record<string, Operation>>;

/** Every operation of the document: `GET /api/v1/outputs`, its path, method and description. */
export const documentedOperations = Object.entries(paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, path, method, operation })));

export const documentAjv = new Ajv2020({ strict: false, allErrors: true });
documentAjv.addSchema({ $id: "doc", ...defaultDocument } as object);

/** A JSON pointer's token. */
const token = (text: string) => text.replace(/~/g, "~0").replace(/\//g, "~1");

/** The validator of the schema at `where` in the document (JSON pointer tokens, unescaped). */
export function validatorAt(...where: string[]) {
  const validate = documentAjv.getSchema(`doc#/${where.map(token).join("/")}`);
  assert.ok(validate, `no schema at ${where.join(" ")}`);
  return validate;
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** Asserts that `answer` is one the document describes for operation `key` (e.g. `GET /`). */
export function assertDescribed(key: string, answer: Answer): void {
  const operation = documentedOperations.find((op) => op.key === key);
  assert.ok(operation, `${key} is not described`);
  const described = operation.operation.responses[String(answer.status)];
  assert.ok(described, `${key} answered ${answer.status}, which it does not describe: ${answer.body.slice(0, 300)}`);
  const content = described.content ?? {};
  const type = answer.contentType.split(";")[0]!.trim();
  const media = content[type] !== undefined ? type : "*/*";
  assert.ok(content[media], `${key} ${answer.status}: type ${type} is not described`);
  if (type !== "application/json") return;
  const validate = validatorAt("paths", operation.path, operation.method, "responses", String(answer.status), "content", media, "schema");
  assert.ok(validate(JSON.parse(answer.body)), `${key} ${answer.status}: ${documentAjv.errorsText(validate.errors)}\n${answer.body.slice(0, 300)}`);
}
