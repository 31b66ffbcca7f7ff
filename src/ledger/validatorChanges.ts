// Where the validator set changed, from the ledger's own records of it (docs/proofs.md "Across
// validator changes"): what a light client needs to follow the set from a root it trusts. The
// store records a set from `h + 1` when block h's FinalizeBlock changed it (store.ts `validators`);
// CometBFT applies that change two blocks on: the header of `h + 1` still carries the old set and
// names the new one as its next, the header of `h + 2` is the new set's first. Both are served,
// each with its own set, so that a client follows any change sequentially, however large.
import type { ChainReads, Validator } from "../store/store.js";
import { sha256 } from "../proofs/sha256.js";
import { fromHex, toBase64, toHex } from "../proofs/encoding.js";

/** Set changes in one answer at most (two light blocks each); a client asks again from the next height. */
export const validatorChangesPerAnswerMax = 100;

/** An answer's signed headers fetched at once (from the store, or CometBFT's RPC for those it lacks). */
export const validatorChangeHeadersAtOnceMax = 8;

/** A light block's place: the CometBFT height and the set that signed it. */
export interface LightBlockPlace {
  readonly height: number;
  readonly validators: readonly Validator[];
}

/**
 * The light blocks at the set's changes, with heights in `[from, to]`, in height order: at most
 * `validatorChangesPerAnswerMax` changes, the earliest; `next` is where to ask again, or null.
 */
export async function validatorChangePlaces(
  store: Pick<ChainReads, "getValidatorSet" | "getValidatorSetsFrom">,
  from: number,
  to: number,
): Promise<{ places: LightBlockPlace[]; next: number | null }> {
  // The store's records, forward from the first whose second light block is in range (one more
  // than kept, to say where to ask again), and the set before the first: two reads.
  const sets = await store.getValidatorSetsFrom(Math.max(2, from - 1), to, validatorChangesPerAnswerMax + 1);
  const first = sets[0] === undefined ? null : await store.getValidatorSet(sets[0].height - 1);
  const records = sets.flatMap((set, i) => {
    const before = i === 0 ? first : sets[i - 1]!;
    return before === null ? [] : [{ height: set.height, validators: set.validators, before: before.validators }];
  });
  const kept = records.slice(0, validatorChangesPerAnswerMax);
  // Changes in consecutive blocks share a header (the new set's first is the next one's old set's
  // last, with the same set): it is served once.
  const places = kept.flatMap((r) => [
    { height: r.height, validators: r.before },
    { height: r.height + 1, validators: r.validators },
  ]).filter((p, i, all) => p.height >= from && p.height <= to && p.height !== all[i - 1]?.height);
  return { places, next: records.length > kept.length ? records[kept.length]!.height : null };
}

/** A validator as CometBFT's `/validators` shows it (the light block's `validator_set`). */
export function cometValidatorJson(v: Validator): { address: string; pub_key: { type: string; value: string }; voting_power: string } {
  const key = fromHex(v.publicKey)!;
  return {
    address: toHex(sha256(key).subarray(0, 20)).toUpperCase(),
    pub_key: { type: "tendermint/PubKeyEd25519", value: toBase64(key) },
    voting_power: String(v.power),
  };
}
