// Following the validator set from a root the client trusts (a genesis, or a height and set it
// learnt) through the signed headers at the heights where the set changed, as
// `GET /api/v1/proofs/validator-changes` serves them (docs/proofs.md "Across validator changes"):
// each light block is one step of lightBlock.ts, in height order. Pure, no IO.
import { validatorSetHash, type SignedHeader, type TrustedValidator } from "./cometHeader.js";
import { toHex } from "./encoding.js";
import { verifyLightBlock, type TrustedState, type TrustPeriod } from "./lightBlock.js";
import { trustedValidatorsOf } from "./trustedValidatorsOf.js";

/** A root of trust: the chain, and the set the client trusts to sign `height`. */
export interface TrustRoot {
  readonly chainId: string;
  /** The first height `validators` signs (a genesis: its initial height). */
  readonly height: number;
  readonly validators: readonly TrustedValidator[];
  /** When the root was trusted (a genesis: its time), RFC 3339; needed with a trust period. */
  readonly time?: string;
}

/** A header, its commit and its own validator set, as the node serves them (CometBFT's JSON). */
export interface LightBlock {
  readonly signed_header: SignedHeader;
  readonly validator_set: { readonly validators: readonly unknown[] };
}

/** The state a root stands for: as if a header before `height` named `validators` as the next set. */
export function trustedStateOf(root: TrustRoot, timeNs: bigint | null): TrustedState {
  const hash = toHex(validatorSetHash(root.validators)).toUpperCase();
  return {
    chainId: root.chainId,
    height: root.height - 1,
    timeNs,
    validators: root.validators,
    validatorsHash: hash,
    nextValidatorsHash: hash,
    headerHash: null,
    changes: 0,
  };
}

/**
 * The state after following `lightBlocks` (those up to `upTo`, in height order) from `state`;
 * or why one of them cannot be trusted.
 */
export function followValidatorChanges(
  state: TrustedState,
  lightBlocks: readonly LightBlock[],
  upTo: number,
  period: TrustPeriod = {},
): TrustedState | string {
  if (!Array.isArray(lightBlocks)) return "the validator changes hold no list of light blocks";
  let trusted = state;
  for (const block of lightBlocks) {
    const height = Number(block?.signed_header?.header?.height);
    if (!(height <= upTo)) break;
    let validators: TrustedValidator[];
    try {
      validators = trustedValidatorsOf(block.validator_set);
    } catch (error) {
      return `the validator set of height ${height}: ${error instanceof Error ? error.message : String(error)}`;
    }
    const next = verifyLightBlock(trusted, block.signed_header, validators, period);
    if (typeof next === "string") return next;
    trusted = next;
  }
  return trusted;
}
