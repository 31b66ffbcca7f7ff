// A validator set as every backend stores it: JSON text of `{publicKey, power}` in set order,
// whatever else the objects carried.
import type { Validator } from "./store.js";

export function validatorsJson(validators: readonly Validator[]): string {
  return JSON.stringify(validators.map((v) => ({ publicKey: v.publicKey, power: v.power })));
}
