// One step of CometBFT's light client (docs/proofs.md "Across validator changes"): from a header
// the client trusts, with the validator set of its height, to a later header and the set it
// names. As CometBFT v0.38's `light.VerifyAdjacent` and `light.VerifyNonAdjacent`: the trusted
// header is within the trust period of `now`; the new header is of the chain, later, its time
// after the trusted one's and not ahead of `now`; the set given hashes to its `validators_hash`
// and more than two thirds of that set's power signed it; and either it is the next height and
// its set is the one the trusted header named (`next_validators_hash`: sequential), or more than
// a third of the trusted set's power signed it too (skipping, trust level 1/3). Pure, no IO.
import {
  commitSigners,
  keysByAddress,
  powersByAddress,
  signedPower,
  timeNanos,
  validatorSetHash,
  type SignedHeader,
  type TrustedValidator,
} from "./cometHeader.js";
import { toHex } from "./encoding.js";

/** What the client trusts after a step: a header (or, at the root, a set given to it). */
export interface TrustedState {
  readonly chainId: string;
  /** The trusted header's height; at a root, the height before the first one its set signs. */
  readonly height: number;
  /** The trusted header's time (ns since 1970); at a root, its time, or null when not given. */
  readonly timeNs: bigint | null;
  /** The validator set of `height` (at a root, the set given), and its hash (uppercase hex). */
  readonly validators: readonly TrustedValidator[];
  readonly validatorsHash: string;
  /** The set that signs `height + 1`, as the trusted header names it. */
  readonly nextValidatorsHash: string;
  /** The hash of the trusted header (uppercase hex); null at a root. */
  readonly headerHash: string | null;
  /** How many times the set changed between the root and this header. */
  readonly changes: number;
}

/** How long a trusted header stays trusted, and the time to judge it at. */
export interface TrustPeriod {
  /** CometBFT's trusting period, in ms: a header older than this at `nowMs` no longer vouches for a set. */
  readonly trustPeriodMs?: number;
  /** The time now, in ms since 1970 (an input, so that a check can be repeated). */
  readonly nowMs?: number;
}

/** A header may be this far ahead of `now` (CometBFT's light client default `max_clock_drift`). */
export const clockDriftMsMax = 10_000;

const nsPerMs = 1_000_000n;
const hexOf = (hash: Uint8Array): string => toHex(hash).toUpperCase();

/** Why `header`'s times break the trust period or order; null when they do not. */
function timeRefusal(state: TrustedState, headerNs: bigint, height: number, period: TrustPeriod): string | null {
  const now = period.nowMs === undefined ? null : BigInt(period.nowMs) * nsPerMs;
  if (period.trustPeriodMs !== undefined) {
    if (now === null) return "a trust period needs the time now to judge it at";
    if (state.timeNs === null) return "a trust period needs the trusted root's time";
    if (state.timeNs + BigInt(period.trustPeriodMs) * nsPerMs <= now) {
      return `the trusted header of height ${state.height} is older than the trust period (${period.trustPeriodMs} ms): trust a later one`;
    }
  }
  // A root's first block may carry the root's time (a genesis's first block carries its time).
  const earliest = state.timeNs === null ? null : state.headerHash === null ? state.timeNs : state.timeNs + 1n;
  if (earliest !== null && headerNs < earliest) return `the header of height ${height} is not after the trusted header's time`;
  if (now !== null && headerNs > now + BigInt(clockDriftMsMax) * nsPerMs) return `the header of height ${height} is from the future`;
  return null;
}

/**
 * Told each signer as its signature verifies: whether the signers so far already hold the power
 * a step needs (more than two thirds of the header's set and, skipping, more than a third of the
 * trusted set), so that the rest need not be verified, as CometBFT's light client stops there.
 */
function enoughFor(own: readonly TrustedValidator[], trusted: readonly TrustedValidator[], adjacent: boolean): (address: string) => boolean {
  const ownPowers = powersByAddress(own);
  const trustedPowers = powersByAddress(trusted);
  const ownTotal = own.reduce((sum, v) => sum + v.power, 0n);
  const trustedTotal = trusted.reduce((sum, v) => sum + v.power, 0n);
  let ownSigned = 0n;
  let trustedSigned = 0n;
  return (address) => {
    ownSigned += ownPowers.get(address) ?? 0n;
    trustedSigned += trustedPowers.get(address) ?? 0n;
    return ownSigned * 3n > ownTotal * 2n && (adjacent || trustedSigned * 3n > trustedTotal);
  };
}

/**
 * The state after trusting `signed`, whose validator set is `validators`; or why it cannot be
 * trusted from `state`.
 */
export function verifyLightBlock(
  state: TrustedState,
  signed: SignedHeader,
  validators: readonly TrustedValidator[],
  period: TrustPeriod = {},
): TrustedState | string {
  const header = signed.header;
  const height = Number(header?.height);
  if (!Number.isSafeInteger(height)) return "a header has no height";
  if (header.chain_id !== state.chainId) return `the header of height ${height} is of chain ${header.chain_id}, not ${state.chainId}`;
  if (height <= state.height) return `the header of height ${height} is not after the trusted height ${state.height}`;
  const headerNs = typeof header.time === "string" ? timeNanos(header.time) : null;
  if (headerNs === null) return `the header of height ${height} has no RFC 3339 time`;
  const late = timeRefusal(state, headerNs, height, period);
  if (late !== null) return late;
  const setHash = hexOf(validatorSetHash(validators));
  if (setHash !== String(header.validators_hash).toUpperCase()) {
    return `the validator set given for height ${height} hashes to ${setHash}, not the ${String(header.validators_hash)} its header names`;
  }
  const adjacent = height === state.height + 1;
  const signers = commitSigners(signed, keysByAddress(validators, state.validators), enoughFor(validators, state.validators, adjacent));
  if (typeof signers === "string") return `height ${height}: ${signers}`;
  if (adjacent) {
    // Sequential: the trusted header named the set that signs this one.
    if (setHash !== state.nextValidatorsHash) return `the header of height ${height} is signed by set ${setHash}, not the successor ${state.nextValidatorsHash} the trusted header names`;
  } else {
    // Skipping: enough of the trusted set signed that one honest validator vouches for it.
    const trusting = signedPower(state.validators, signers);
    if (trusting.signed * 3n <= trusting.total) return `validators of ${trusting.signed} of the trusted set's ${trusting.total} power signed the header of height ${height}; more than a third must`;
  }
  const own = signedPower(validators, signers);
  if (own.signed * 3n <= own.total * 2n) return `validators of ${own.signed} of ${own.total} power signed the header of height ${height}; more than two thirds of its set must`;
  return {
    chainId: state.chainId,
    height,
    timeNs: headerNs,
    validators,
    validatorsHash: setHash,
    nextValidatorsHash: String(header.next_validators_hash).toUpperCase(),
    headerHash: String(signed.commit.block_id.hash).toUpperCase(),
    changes: state.changes + (setHash === state.validatorsHash ? 0 : 1),
  };
}
