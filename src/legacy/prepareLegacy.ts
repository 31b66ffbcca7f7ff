import { Buffer } from "node:buffer";
import { CryptoConditionError } from "../crypto-conditions/cryptoConditionError.js";
import { decodePublicKey } from "../crypto-conditions/decodePublicKey.js";
import { reject, type Rejection } from "../errors/ledgerError.js";
import type { JsonObject, JsonValue } from "../json/jsonValue.js";
import { writeJson } from "../json/writeJson.js";
import { classifyLegacy } from "./classifyLegacy.js";
import { decodeLegacyFulfillment } from "./decodeLegacyFulfillment.js";
import { encodeLegacyCondition } from "./encodeLegacyCondition.js";
import { legacyConditionOfFulfillment } from "./legacyConditionOfFulfillment.js";
import { legacyEd25519Condition } from "./legacyEd25519Condition.js";
import { legacyNames } from "./legacyNames.js";
import { legacySigningMessage } from "./legacySigningMessage.js";
import { legacyTxId } from "./legacyTxId.js";
import { readLegacyDetails } from "./readLegacyDetails.js";
import { verifyLegacyFulfillment } from "./verifyLegacyFulfillment.js";
import type {
  LegacyOperation,
  LegacyOutputRef,
  LegacyTx,
  LegacyVariant,
  PreparedLegacyOutput,
  PreparedLegacyTx,
} from "./types.js";

/**
 * Every stateless check of a legacy transaction (docs/legacy-variants.md §5), in this order: the
 * shape (`classifyLegacy`), the id (§5.3), each fulfillment (parses as `cf:`, verifies over its
 * message of §1.5, and for a CREATE fulfils the Ed25519 condition of `owners_before[0]`, §5.4),
 * then each output's details and URI. The originals ran the stateful checks first; only which
 * code a transaction with several faults gets differs.
 *
 * `postedJson`: the posted text when it is compact and faithful (see `JsonReadInfo`), stored
 * as it is when there is no `assignee` to drop. `restored`: the ledger's TxKind.prepare says
 * what it is (a state-sync restore's transaction: signatures taken as valid).
 */
export function prepareLegacy(body: JsonValue, postedJson?: string, restored = false): PreparedLegacyTx | Rejection {
  const variant = classifyLegacy(body);
  if (typeof variant !== "string") return variant;
  const tx = body as LegacyTx;
  const id = tx["id"] as string;
  // The id is the Keccak-256 of the transaction body with fulfillments nulled (§1.3, §5.3).
  if (legacyTxId(tx) !== id) {
    const what = `The transaction's id '${id}' isn't equal to the hash of its body, i.e. it's not valid.`;
    return reject("InvalidHash", what);
  }
  const transaction = tx["transaction"] as JsonObject;
  const operation = transaction["operation"] as LegacyOperation;
  const fulfilledUris = checkFulfillments(tx, variant, operation, restored);
  if (!Array.isArray(fulfilledUris)) return fulfilledUris;
  const outputs = readOutputs(transaction);
  if (!Array.isArray(outputs)) return outputs;
  const fulfillments = transaction["fulfillments"] as JsonObject[];
  const spends: LegacyOutputRef[] =
    operation === "CREATE"
      ? []
      : fulfillments.map((fulfillment) => {
          const input = fulfillment["input"] as JsonObject;
          return { txid: input["txid"] as string, cid: input["cid"] as number };
        });
  const owners = legacyNames[variant].ownersBefore;
  return {
    id,
    variant,
    operation,
    json: storedJson(tx, postedJson),
    spends,
    outputs,
    fulfilledUris,
    creator: operation === "CREATE" ? (fulfillments[0]![owners] as string[])[0]! : null,
  };
}

/** The condition URI each fulfillment fulfills, or the first rejection. */
function checkFulfillments(tx: LegacyTx, variant: LegacyVariant, operation: LegacyOperation, restored: boolean): string[] | Rejection {
  const fulfillments = (tx["transaction"] as JsonObject)["fulfillments"] as JsonObject[];
  const owners = legacyNames[variant].ownersBefore;
  const uris: string[] = [];
  for (let i = 0; i < fulfillments.length; i++) {
    const fulfillment = fulfillments[i]!;
    const text = fulfillment["fulfillment"];
    // Every fulfillment carries a signature (an unsigned one cannot verify, §5.4).
    if (typeof text !== "string") return reject("InvalidSignature", `fulfillment ${i} is not signed`);
    let uri: string;
    let verified: boolean;
    try {
      const parsed = decodeLegacyFulfillment(text);
      uri = encodeLegacyCondition(legacyConditionOfFulfillment(parsed));
      verified = restored || verifyLegacyFulfillment(parsed, Buffer.from(legacySigningMessage(tx, variant, i), "utf8"));
    } catch (error) {
      return fulfillmentRejection(error, i);
    }
    // The fulfillment verifies over its own message (§1.5, §5.4).
    if (!verified) return reject("InvalidSignature", `fulfillment ${i}: the signature is invalid`);
    // A CREATE's input condition is the Ed25519 condition of owners_before[0] (§5.4).
    if (operation === "CREATE") {
      const creator = decodePublicKey((fulfillment[owners] as string[])[0]!)!;
      if (uri !== encodeLegacyCondition(legacyEd25519Condition(creator))) {
        return reject("InvalidSignature", `fulfillment ${i} is not signed by ${owners}[0]`);
      }
    }
    uris.push(uri);
  }
  return uris;
}

function fulfillmentRejection(error: unknown, index: number): Rejection {
  if (!(error instanceof CryptoConditionError)) throw error;
  if (error.reason === "too-deep") return reject("ThresholdTooDeep", `fulfillment ${index}: ${error.message}`);
  return reject("InvalidSignature", `Fulfillment URI couldn't been parsed (fulfillment ${index}: ${error.message})`);
}

/**
 * Each output's condition: details of the supported types, and a `uri` equal to the one they
 * give. The originals checked neither (docs/legacy-variants.md §5, "not checked"); an output whose
 * URI does not follow from its details could be spent by nobody who reads the details, so it is
 * refused.
 */
function readOutputs(transaction: JsonObject): PreparedLegacyOutput[] | Rejection {
  const conditions = transaction["conditions"] as JsonObject[];
  const outputs: PreparedLegacyOutput[] = [];
  for (let cid = 0; cid < conditions.length; cid++) {
    const condition = conditions[cid]!["condition"] as JsonObject;
    let uri: string;
    let publicKeys: string[];
    try {
      const details = readLegacyDetails(condition["details"]!);
      uri = encodeLegacyCondition(details.condition);
      publicKeys = details.publicKeys;
    } catch (error) {
      if (!(error instanceof CryptoConditionError)) throw error;
      if (error.reason === "too-deep") return reject("ThresholdTooDeep", `condition ${cid}: ${error.message}`);
      return reject("LegacyInvalid", `condition ${cid}: ${error.message}`);
    }
    if (condition["uri"] !== uri) {
      return reject("LegacyInvalid", `condition ${cid}: the uri is not the one its details give (${uri})`);
    }
    outputs.push({ cid, conditionUri: uri, publicKeys });
  }
  return outputs;
}

/** The transaction as posted, without the `assignee` a POST response carries (§7.3). */
function storedJson(tx: LegacyTx, postedJson: string | undefined): string {
  if (!("assignee" in tx)) return postedJson ?? writeJson(tx);
  const { assignee: _, ...stored } = tx;
  return writeJson(stored);
}
