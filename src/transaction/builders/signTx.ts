import { encodeFulfillment } from "../../crypto-conditions/encodeFulfillment.js";
import { signEd25519Fulfillment } from "../../crypto-conditions/signEd25519Fulfillment.js";
import { signThresholdFulfillment } from "../../crypto-conditions/signThresholdFulfillment.js";
import { computeTxId } from "../computeTxId.js";
import { isJsonObject, type JsonObject } from "../../json/jsonValue.js";
import { signingDigests } from "../signingDigests.js";
import type { CanonicalForm } from "../types.js";
import type { Keypair } from "./makeKeypair.js";

/**
 * Signs every input of an unsigned transaction (from `makeCreate` / `makeTransfer`, whose inputs
 * carry condition details as `fulfillment`) with the keys given, then sets the id. Returns a new
 * object. Threshold inputs are signed by every listed key present in `keys`.
 */
export function signTx(tx: JsonObject, keys: readonly Keypair[], form: CanonicalForm = "python"): JsonObject {
  const seeds = new Map(keys.map((key) => [key.publicKey, key.seed]));
  const inputs = tx["inputs"] as JsonObject[];
  const digests = signingDigests(tx, form);
  const signedInputs = inputs.map((input, i) => {
    const details = input["fulfillment"];
    if (!isJsonObject(details)) throw new TypeError(`input ${i} carries no condition details to sign`);
    const digest = digests[i]!;
    if (details["type"] === "ed25519-sha-256") {
      const seed = seeds.get(details["public_key"] as string);
      if (seed === undefined) throw new Error(`no key for ${String(details["public_key"])}`);
      return { ...input, fulfillment: encodeFulfillment(signEd25519Fulfillment(seed, digest)) };
    }
    return { ...input, fulfillment: encodeFulfillment(signThresholdFulfillment(details, seeds, digest)) };
  });
  const signed: JsonObject = { ...tx, inputs: signedInputs, id: null };
  signed["id"] = computeTxId(signed, form);
  return signed;
}
