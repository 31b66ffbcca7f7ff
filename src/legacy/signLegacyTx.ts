import { Buffer } from "node:buffer";
import { sign } from "node:crypto";
import { decodePublicKey } from "../crypto-conditions/decodePublicKey.js";
import { privateKeyFromSeed } from "../crypto-conditions/privateKeyFromSeed.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/jsonValue.js";
import { encodeLegacyFulfillment } from "./encodeLegacyFulfillment.js";
import { legacyDetailsOfOwners } from "./legacyDetailsOfOwners.js";
import { legacyNames } from "./legacyNames.js";
import { legacySigningMessage } from "./legacySigningMessage.js";
import { legacyTxId } from "./legacyTxId.js";
import { readLegacyDetails } from "./readLegacyDetails.js";
import type { LegacyFulfillment, LegacySigner, LegacyThresholdBranch, LegacyTx, LegacyVariant } from "./types.js";

/**
 * Signs every fulfillment of a legacy transaction (`util.sign_tx`, docs/legacy-variants.md §1.5):
 * sets the id, then each fulfillment signs its own message with the keys of `signers` that the
 * spent condition names. Returns a new object.
 *
 * `spentDetails[i]` is the `condition.details` of the output fulfillment i spends. Without it,
 * the details are derived as the originals derived them: for a CREATE, the Ed25519 condition of
 * the first owner (docs/legacy-variants.md §5.4); for a TRANSFER, the `create_tx` condition of the
 * listed owners (Ed25519 for one, n-of-n threshold for several). A threshold branch no signer holds
 * a key for is written as its condition, as cryptoconditions does for unfulfilled branches.
 * Throws when no signer can fulfil a fulfillment: a builder's misuse, not client input.
 */
export function signLegacyTx(
  unsigned: LegacyTx,
  variant: LegacyVariant,
  signers: readonly LegacySigner[],
  spentDetails: readonly (JsonValue | undefined)[] = [],
): LegacyTx {
  const seeds = new Map(signers.map((signer) => [signer.publicKey, signer.seed]));
  const tx: LegacyTx = { ...unsigned, id: legacyTxId(unsigned) };
  const transaction = tx["transaction"] as JsonObject;
  const owners = legacyNames[variant].ownersBefore;
  const signed = (transaction["fulfillments"] as JsonObject[]).map((fulfillment, i) => {
    const listed = fulfillment[owners] as string[];
    const details =
      spentDetails[i] ?? legacyDetailsOfOwners(fulfillment["input"] === null ? listed.slice(0, 1) : listed);
    const message = Buffer.from(legacySigningMessage(tx, variant, i), "utf8");
    const result = fulfillmentOf(details, seeds, message);
    if (result === null) throw new Error(`no signer holds a key for fulfillment ${i}`);
    return { ...fulfillment, fulfillment: encodeLegacyFulfillment(result) };
  });
  return { ...tx, transaction: { ...transaction, fulfillments: signed } };
}

function fulfillmentOf(
  details: JsonValue,
  seeds: ReadonlyMap<string, Uint8Array>,
  message: Uint8Array,
): LegacyFulfillment | null {
  if (!isJsonObject(details)) throw new TypeError("condition details must be an object");
  if (details["type_id"] === 4) {
    const publicKey = details["public_key"] as string;
    const seed = seeds.get(publicKey);
    if (seed === undefined) return null;
    const signature = new Uint8Array(sign(null, message, privateKeyFromSeed(seed)));
    return { typeId: 4, publicKey: decodePublicKey(publicKey)!, signature };
  }
  const branches: LegacyThresholdBranch[] = (details["subfulfillments"] as JsonObject[]).map((sub) => {
    const { weight, ...subDetails } = sub;
    const fulfillment = fulfillmentOf(subDetails, seeds, message);
    if (fulfillment !== null) return { weight: weight as number, fulfillment };
    return { weight: weight as number, condition: readLegacyDetails(subDetails).condition };
  });
  if (branches.every((branch) => !("fulfillment" in branch))) return null;
  return { typeId: 2, threshold: details["threshold"] as number, branches };
}
