import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";
import { conditionUriAndKeysOfDetails } from "../crypto-conditions/conditionUriOfDetails.js";
import { conditionUriOfFulfillment } from "../crypto-conditions/conditionUriOfFulfillment.js";
import { decodeFulfillment } from "../crypto-conditions/decodeFulfillment.js";
import { publicKeysOfFulfillment } from "../crypto-conditions/publicKeysOfFulfillment.js";
import type { Fulfillment } from "../crypto-conditions/types.js";
import { verifyFulfillment } from "../crypto-conditions/verifyFulfillment.js";
import { reject, type Rejection } from "../errors/ledgerError.js";
import { makesAsset, type CommittedOutput, type Operation, type OutputRef } from "./committed.js";
import { validatorKeyOf, votesCast, type ElectionFacts } from "./elections.js";
import { LedgerError } from "../errors/ledgerError.js";
import { canonicalFormsDiffer } from "../json/canonicalFormsDiffer.js";
import { inputDigests } from "./inputDigests.js";
import { pyRepr } from "./pyRepr.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { txLimits } from "./limits.js";
import { sha3Hex } from "./sha3Hex.js";
import { txPreimages } from "./txPreimages.js";
import type { CanonicalForm, PreparedInput, PreparedTx } from "./types.js";
import { validateDataKeys } from "./validateDataKeys.js";
import { validateSchema } from "./validateSchema.js";
import { writeJson } from "../json/writeJson.js";
import { JsonError } from "../json/jsonError.js";

/**
 * Every stateless check of a posted v2.0 transaction, in BigchainDB's order
 * (docs/bigchaindb-behaviour.md §2.5): id, schema, key rules, inputs, outputs; then the signatures,
 * whose failure is carried in the result and reported by `validateTx` after the stateful checks,
 * where BigchainDB reports it. `restored`: the ledger's TxKind.prepare says what it is (a
 * state-sync restore's transaction: signatures taken as valid, the id and a one-key output's
 * condition URI as the body's).
 */
export function prepareTx(body: JsonValue, postedJson?: string, restored = false): PreparedTx | Rejection {
  if (!isJsonObject(body)) return reject("BadJson", "A transaction must be a JSON object");
  // The id is checked before the schema (`Transaction.validate_id`).
  if (!("id" in body)) return reject("InvalidHash", "No transaction id found!");
  const matched = restored ? restoredMatch(body) : matchId(body);
  if (matched === null) {
    // `'{}'.format(id)`: the text of a string, the repr of anything else (an object or a list
    // too, which `String` cannot convert).
    const id = typeof body["id"] === "string" ? body["id"] : pyRepr(body["id"]);
    return reject("InvalidHash", `The transaction's id '${id}' isn't equal to the hash of its body, i.e. it's not valid.`);
  }
  const schemaRejection = validateSchema(body) ?? electionBodyRejection(body);
  if (schemaRejection !== null) return schemaRejection;
  // From here the schema guarantees the shapes read below.
  const inputs = readInputs(body);
  if (!Array.isArray(inputs)) return inputs;
  const outputs = readOutputs(body, restored);
  if ("code" in outputs) return outputs;
  return assemble(body, matched, { inputs, outputs, restored }, postedJson ?? writeJson(body));
}

/**
 * After the schema: the key rules of a CREATE or TRANSFER, or the validator key of an election.
 * BigchainDB's election and vote classes apply no key rules (they are not `models.Transaction`).
 */
function electionBodyRejection(body: JsonObject): Rejection | null {
  const operation = body["operation"];
  if (operation === "VOTE") return null;
  if (operation !== "VALIDATOR_ELECTION") return validateDataKeys(body);
  const key = upsertOf(body).public_key as JsonObject;
  const decoded = validatorKeyOf(key["type"] as string, key["value"] as string);
  return typeof decoded === "string" ? null : decoded;
}

function upsertOf(body: JsonObject): JsonObject {
  return (body["asset"] as JsonObject)["data"] as JsonObject;
}

interface MatchedForm {
  readonly form: CanonicalForm;
  /** The signing message in that form (null only for a shape the schema then rejects). */
  readonly message: string | null;
}

/**
 * Which canonical form's id equals `id` (docs/compatibility.md #7): BigchainDB's first, then the
 * JavaScript driver's, tried only where the two forms can differ at all.
 */
function matchId(body: JsonObject): MatchedForm | null {
  const claimed = body["id"];
  if (typeof claimed !== "string") return null;
  const python = preimagesOrNull(body, "python");
  if (python !== null && sha3Hex(python.id) === claimed) return { form: "python", message: python.message };
  if (python !== null && !canonicalFormsDiffer(body)) return null;
  const js = txPreimages(body, "js");
  return sha3Hex(js.id) === claimed ? { form: "js", message: js.message } : null;
}

/**
 * A restored transaction's form, without hashing it again: a restore's first pass found these
 * bytes hashing to their id (docs/state-sync.md), so where the two forms cannot differ the id is
 * BigchainDB's form's, as `matchId` would find (the signing message is for signatures, not
 * checked here). Elsewhere, rare, it is matched again.
 */
function restoredMatch(body: JsonObject): MatchedForm | null {
  if (typeof body["id"] !== "string" || canonicalFormsDiffer(body)) return matchId(body);
  return { form: "python", message: null };
}

// The python form cannot write a lone surrogate (rapidjson refuses); the js form may still match.
function preimagesOrNull(body: JsonObject, form: CanonicalForm): ReturnType<typeof txPreimages> | null {
  try {
    return txPreimages(body, form);
  } catch (error) {
    if (error instanceof JsonError) return null;
    throw error;
  }
}

interface ReadInput {
  readonly ownersBefore: readonly string[];
  readonly fulfills: OutputRef | null;
  /** Null when the input carries condition details instead of a signature (unsigned). */
  readonly fulfillment: Fulfillment | null;
}

interface ReadOutputs {
  readonly outputs: CommittedOutput[];
  readonly total: bigint;
  /** True when every posted `uri` is the one its `details` give. */
  readonly urisMatch: boolean;
}

function readInputs(body: JsonObject): ReadInput[] | Rejection {
  const result: ReadInput[] = [];
  for (const raw of body["inputs"] as JsonObject[]) {
    const fulfills = raw["fulfills"] as JsonObject | null;
    const text = raw["fulfillment"];
    let fulfillment: Fulfillment | null = null;
    if (typeof text === "string") {
      try {
        fulfillment = decodeFulfillment(text);
      } catch (error) {
        return fulfillmentRejection(error);
      }
    }
    result.push({
      ownersBefore: raw["owners_before"] as string[],
      fulfills:
        fulfills === null
          ? null
          : { transactionId: fulfills["transaction_id"] as string, outputIndex: fulfills["output_index"] as number },
      fulfillment,
    });
  }
  return result;
}

function fulfillmentRejection(error: unknown): Rejection {
  if (!(error instanceof CryptoConditionError)) throw error;
  if (error.reason === "too-deep") return reject("ThresholdTooDeep", error.message);
  // Only ed25519-sha-256 and threshold-sha-256 are accepted (docs/compatibility.md #8).
  if (error.reason === "unsupported") return reject("InvalidSignature", error.message);
  return reject("InvalidSignature", "Fulfillment URI couldn't been parsed");
}

// Amounts are decimal strings without leading zeros, 1 to 9e18 (docs/compatibility.md #9,
// `Output.from_dict`).
const amountLexeme = /^(0|[1-9][0-9]*)$/;

function readOutputs(body: JsonObject, restored: boolean): ReadOutputs | Rejection {
  const result: CommittedOutput[] = [];
  let total = 0n;
  let urisMatch = true;
  const outputs = body["outputs"] as JsonObject[];
  for (let index = 0; index < outputs.length; index++) {
    const raw = outputs[index]!;
    const condition = raw["condition"] as JsonObject;
    let conditionUri: string;
    let detailKeys: string[];
    try {
      ({ uri: conditionUri, publicKeys: detailKeys } = (restored ? restoredEd25519Output(condition) : null) ?? conditionUriAndKeysOfDetails(condition["details"]!));
    } catch (error) {
      return fulfillmentRejection(error);
    }
    const text = raw["amount"] as string;
    if (!amountLexeme.test(text)) return reject("AmountError", `Invalid amount: ${text}`);
    const amount = BigInt(text);
    if (amount < 1n) return reject("AmountError", "`amount` must be greater than 0");
    if (amount > txLimits.amountMax) return reject("AmountError", `\`amount\` must be <= ${txLimits.amountMax}`);
    total += amount;
    urisMatch &&= condition["uri"] === conditionUri;
    const publicKeys = listedKeys(detailKeys, raw["public_keys"] as string[]);
    result.push({ outputIndex: index, amount, conditionUri, publicKeys });
  }
  return { outputs: result, total, urisMatch };
}

/**
 * A restored transaction's output of one Ed25519 key: its URI and key as the body states them,
 * without decoding the key or hashing its condition. The chain committed the transaction, so
 * the validators found that key base58 of 32 bytes and that URI the one its details give (else
 * its signatures fail, `urisMatch`), and `conditionUriAndKeysOfDetails` would give the same two
 * (the key's base58 is the text it was decoded from). Any other condition: null, derived as usual.
 */
function restoredEd25519Output(condition: JsonObject): { uri: string; publicKeys: string[] } | null {
  const details = condition["details"];
  const uri = condition["uri"];
  if (!isJsonObject(details) || details["type"] !== "ed25519-sha-256" || typeof uri !== "string") return null;
  const key = details["public_key"];
  return typeof key === "string" ? { uri, publicKeys: [key] } : null;
}

// Above this many key pairs to compare, `listedKeys` builds a Set.
const listedKeysScanMax = 64;

/** An output is listed for a key named both in its condition and in `public_keys` (§1.7). */
function listedKeys(detailKeys: readonly string[], publicKeys: readonly string[]): string[] {
  if (detailKeys.length * publicKeys.length <= listedKeysScanMax) {
    return detailKeys.filter((key) => publicKeys.includes(key));
  }
  const listed = new Set(publicKeys);
  return detailKeys.filter((key) => listed.has(key));
}

function assemble(
  body: JsonObject,
  matched: MatchedForm,
  read: { readonly inputs: readonly ReadInput[]; readonly outputs: ReadOutputs; readonly restored: boolean },
  json: string,
): PreparedTx {
  const { inputs, outputs } = read;
  const id = body["id"] as string;
  const operation = body["operation"] as Operation;
  const asset = body["asset"] as JsonObject;
  const ownAsset = makesAsset(operation);
  const data = ownAsset ? asset["data"] : null;
  const metadata = body["metadata"];
  const preparedInputs: PreparedInput[] = inputs.map((input) => ({
    fulfills: input.fulfills,
    conditionUri: input.fulfillment === null ? null : conditionUriOfFulfillment(input.fulfillment),
  }));
  return {
    id,
    operation,
    assetId: ownAsset ? id : (asset["id"] as string),
    json,
    assetData: isJsonObject(data) ? writeJson(data) : null,
    metadata: isJsonObject(metadata) ? writeJson(metadata) : null,
    inputs: preparedInputs,
    outputs: outputs.outputs,
    outputsTotal: outputs.total,
    signaturesValid: outputs.urisMatch && (read.restored || signaturesVerify(body, matched.message!, inputs)),
    form: matched.form,
    election: operation === "VALIDATOR_ELECTION" ? electionFacts(body, inputs) : null,
    votes: operation === "VOTE" ? votesCast(asset["id"] as string, outputs.outputs, outputKeysOf(body)) : 0n,
  };
}

function outputKeysOf(body: JsonObject): string[][] {
  return (body["outputs"] as JsonObject[]).map((output) => output["public_keys"] as string[]);
}

function electionFacts(body: JsonObject, inputs: readonly ReadInput[]): ElectionFacts {
  const upsert = upsertOf(body);
  const key = upsert["public_key"] as JsonObject;
  const single = inputs.length === 1 && inputs[0]!.ownersBefore.length === 1;
  return {
    validatorKey: validatorKeyOf(key["type"] as string, key["value"] as string) as string,
    power: upsert["power"] as number,
    nodeId: upsert["node_id"] as string,
    proposer: single ? inputs[0]!.ownersBefore[0]! : null,
    outputKeys: outputKeysOf(body),
  };
}

function signaturesVerify(body: JsonObject, message: string, inputs: readonly ReadInput[]): boolean {
  if (inputs.some((input) => input.fulfillment === null)) return false;
  const create = makesAsset(body["operation"] as Operation);
  const digests = inputDigests(message, inputs.map((input) => input.fulfills));
  return inputs.every((input, i) => {
    const fulfillment = input.fulfillment!;
    // A CREATE is signed by the owners it names (docs/compatibility.md #8; BigchainDB 2.x does not
    // check).
    if (create && !publicKeysOfFulfillment(fulfillment).every((key) => input.ownersBefore.includes(key))) {
      return false;
    }
    return verifyFulfillment(fulfillment, digests[i]!);
  });
}
