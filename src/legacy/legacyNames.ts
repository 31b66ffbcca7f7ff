import type { LegacyVariant } from "./types.js";

/**
 * The owner field names of each variant (docs/legacy-variants.md §0): Variant A renamed
 * `current_owners` and `new_owners` (PR #578); everything else in the two shapes has the same name.
 */
export const legacyNames: Readonly<
  Record<LegacyVariant, { readonly ownersBefore: string; readonly ownersAfter: string }>
> = Object.freeze({
  A: Object.freeze({ ownersBefore: "owners_before", ownersAfter: "owners_after" }),
  B: Object.freeze({ ownersBefore: "current_owners", ownersAfter: "new_owners" }),
});
