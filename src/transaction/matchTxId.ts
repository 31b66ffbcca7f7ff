import { canonicalFormsDiffer } from "../json/canonicalFormsDiffer.js";
import { computeTxId } from "./computeTxId.js";
import type { JsonObject } from "../json/jsonValue.js";
import type { CanonicalForm } from "../json/canonicalForm.js";
import { JsonError } from "../json/jsonError.js";

/**
 * Which canonical form's id equals `tx.id` (docs/compatibility.md #7): BigchainDB's ("python")
 * first, then the JavaScript driver's, which is tried only when the two forms can differ at all.
 * Null when neither matches or `id` is not a string. The signatures are then checked in the same
 * form.
 */
export function matchTxId(tx: JsonObject): CanonicalForm | null {
  const claimed = tx["id"];
  if (typeof claimed !== "string") return null;
  if (pythonId(tx) === claimed) return "python";
  if (!canonicalFormsDiffer(tx)) return null;
  return computeTxId(tx, "js") === claimed ? "js" : null;
}

/** Null where the python form cannot be written (a lone surrogate); the js form may still match. */
function pythonId(tx: JsonObject): string | null {
  try {
    return computeTxId(tx, "python");
  } catch (error) {
    if (error instanceof JsonError) return null;
    throw error;
  }
}
