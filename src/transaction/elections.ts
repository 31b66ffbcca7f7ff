// Validator elections and votes as BigchainDB 2.2.2 defined them (BEP-21; docs/compatibility.md
// #11): the pure rules. A VALIDATOR_ELECTION is a CREATE signed by one current validator whose
// outputs hand every validator its voting power as tokens; a VOTE is a TRANSFER of such tokens to
// the election's own public key. The ledger (ledger/kinds/v2/elections.ts) applies these rules to
// the validator set and the election records it reads from the store.
import { Buffer } from "node:buffer";
import { encodeBase58 } from "../crypto-conditions/encodeBase58.js";
import { reject, type Rejection } from "../errors/ledgerError.js";
import type { CommittedOutput } from "./committed.js";

/** A validator and its voting power; the key is the raw Ed25519 key as 64 lowercase hex digits. */
export interface ValidatorPower {
  readonly publicKey: string;
  readonly power: number;
}

/** What a validator election proposes, and what its validation needs of its body. */
export interface ElectionFacts {
  /** The validator the election adds, changes or (power 0) removes. */
  readonly validatorKey: string;
  readonly power: number;
  /** The CometBFT node id it names (informational: CometBFT does not read it). */
  readonly nodeId: string;
  /** The one key that signed it, or null when it has several inputs or signers. */
  readonly proposer: string | null;
  /** Each output's `public_keys`, as posted (the voters and their power are read from them). */
  readonly outputKeys: readonly (readonly string[])[];
}

/** The public key votes are sent to: the election id's bytes in base58 (`Election.to_public_key`). */
export function electionPublicKey(electionId: string): string {
  return encodeBase58(Buffer.from(electionId, "hex"));
}

/**
 * The votes a VOTE casts for the election it names (`Election.count_votes`): the amounts of its
 * outputs whose `public_keys` is exactly `[election public key]`.
 */
export function votesCast(electionId: string, outputs: readonly CommittedOutput[], outputKeys: readonly (readonly string[])[]): bigint {
  const key = electionPublicKey(electionId);
  let votes = 0n;
  outputs.forEach((output, i) => {
    const keys = outputKeys[i]!;
    if (keys.length === 1 && keys[0] === key) votes += output.amount;
  });
  return votes;
}

const invalidKeyType = "Invalid `type` specified for public key `value`";

/**
 * The Ed25519 key of an election's `public_key` (`validator_utils.validate_asset_public_key`),
 * decoded as Python's base64 module does: base16 upper case only, base32 padded, base64 with
 * characters outside its alphabet dropped. A key that does not decode, or is not 32 bytes, is an
 * InvalidPublicKey with BigchainDB's text.
 */
export function validatorKeyOf(type: string, value: string): string | Rejection {
  const bytes = decodeKey(type, value);
  if (bytes === null) return reject("InvalidPublicKey", invalidKeyType);
  if (bytes.length !== 32) return reject("InvalidPublicKey", "Public key should be of size 32 bytes");
  return bytes.toString("hex");
}

function decodeKey(type: string, value: string): Buffer | null {
  if (type === "ed25519-base16") {
    return /^(?:[0-9A-F]{2})*$/.test(value) ? Buffer.from(value, "hex") : null;
  }
  if (type === "ed25519-base32") return decodeBase32(value);
  if (type === "ed25519-base64") {
    const kept = value.replace(/[^A-Za-z0-9+/=]/g, "");
    const core = kept.replace(/=+$/, "");
    if (core.includes("=") || core.length % 4 === 1 || kept.length < Math.ceil(core.length / 4) * 4) return null;
    return Buffer.from(core, "base64");
  }
  return null;
}

const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function decodeBase32(value: string): Buffer | null {
  if (value.length % 8 !== 0) return null;
  const core = value.replace(/=+$/, "");
  // The padding Python accepts: a whole number of bytes in the last group of eight characters.
  if (![0, 1, 3, 4, 6].includes(value.length - core.length)) return null;
  let bits = 0;
  let buffer = 0;
  const out: number[] = [];
  for (const char of core) {
    const digit = base32Alphabet.indexOf(char);
    if (digit < 0) return null;
    buffer = (buffer << 5) | digit;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

/**
 * The checks of a validator election against the validator set in force, in BigchainDB's order
 * (`Election.validate`, `ValidatorElection.validate`), after those it shares with a CREATE
 * (duplicate, signatures). The last two are ledgerd's own: CometBFT halts on an update that
 * removes a key it does not know or leaves no validator.
 */
export function electionRejection(
  election: ElectionFacts,
  outputs: readonly CommittedOutput[],
  validators: readonly ValidatorPower[],
): Rejection | null {
  const byKey = new Map(validators.map((v) => [encodeBase58(Buffer.from(v.publicKey, "hex")), v.power]));
  // The proposer is a single node.
  if (election.proposer === null) {
    return reject("MultipleInputsError", "`tx_signers` must be a list instance of length one");
  }
  // The proposer is a current validator.
  if (!byKey.has(election.proposer)) return reject("InvalidProposer", "Public key is not a part of the validator set");
  // The outputs hand each validator exactly its voting power.
  if (!sameTopology(byKey, outputs, election.outputKeys)) {
    return reject("UnequalValidatorSet", "Validator set much be exactly same to the outputs of election");
  }
  if (!powerChangeAllowed(election.power, validators.reduce((sum, v) => sum + v.power, 0))) {
    return reject("InvalidPowerChange", "`power` change must be less than 1/3 of total power");
  }
  const known = validators.some((v) => v.publicKey === election.validatorKey);
  if (election.power === 0 && !known) {
    return reject("InvalidPowerChange", "`power` 0 removes a validator, and this key is not one");
  }
  if (newValidatorSet(validators, election).length === 0) {
    return reject("InvalidPowerChange", "the change would leave no validator");
  }
  return null;
}

/**
 * BigchainDB's `ValidatorElection.validate`: the proposed power is less than a third of the
 * total (compared as it does, in floats). So a testnet of four validators of power 1 takes a
 * power of 1 at most, and one of three takes none.
 */
export function powerChangeAllowed(power: number, totalPower: number): boolean {
  return power < (1 / 3) * totalPower;
}

/** `Election.is_same_topology`: one key per output, and the outputs' keys and amounts are the set's. */
function sameTopology(
  validators: ReadonlyMap<string, number>,
  outputs: readonly CommittedOutput[],
  outputKeys: readonly (readonly string[])[],
): boolean {
  const voters = new Map<string, bigint>();
  for (let i = 0; i < outputs.length; i++) {
    const keys = outputKeys[i]!;
    if (keys.length > 1) return false;
    // A later output for the same key replaces an earlier one, as in BigchainDB's dict.
    voters.set(keys[0]!, outputs[i]!.amount);
  }
  if (voters.size !== validators.size) return false;
  for (const [key, power] of validators) if (voters.get(key) !== BigInt(power)) return false;
  return true;
}

/**
 * Whether this block's votes conclude an election (`Election.has_concluded`): the committed votes
 * were below 2/3 of its total and, with this block's, reach it. In floats, as BigchainDB compared.
 */
export function votesConclude(total: bigint, committed: bigint, inBlock: bigint): boolean {
  const threshold = (2 / 3) * Number(total);
  return Number(committed) < threshold && Number(committed + inBlock) >= threshold;
}

/**
 * The validator set after an approved election (`validator_utils.new_validator_set`): the key's
 * power replaced or added at the end, and validators of power 0 left out.
 */
export function newValidatorSet(
  validators: readonly ValidatorPower[],
  change: { readonly validatorKey: string; readonly power: number },
): ValidatorPower[] {
  const next = validators.map((v) => (v.publicKey === change.validatorKey ? { publicKey: v.publicKey, power: change.power } : v));
  if (!validators.some((v) => v.publicKey === change.validatorKey)) {
    next.push({ publicKey: change.validatorKey, power: change.power });
  }
  return next.filter((v) => v.power > 0);
}

/**
 * An election's status as `ledgerd election show` reports it (`Election.get_status`): concluded
 * once its votes concluded it; else inconclusive when the validator set in force changed after
 * the election's block (`setHeight`, from when the latest set holds), since it was made for the
 * set before; else ongoing.
 */
export function electionStatus(
  election: { readonly height: number; readonly concludedAt: number | null },
  setHeight: number,
): "ongoing" | "concluded" | "inconclusive" {
  if (election.concludedAt !== null) return "concluded";
  return setHeight > election.height ? "inconclusive" : "ongoing";
}
