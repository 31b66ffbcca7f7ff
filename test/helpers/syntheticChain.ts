// Signed headers made here with real Ed25519 keys, shaped as CometBFT v0.38 makes them (the
// header hash, sign bytes and set hash are the verifier's own, which the unit tests check against
// a real network's headers): a chain whose validator set changes at chosen heights, for the
// light-client unit tests and the benchmark (bench/proofsAcrossElections.bench.ts), where ten
// elections on a real network would take minutes.
import { getPublicKey, sign, utils } from "@noble/ed25519";
import { headerHash, precommitSignBytes, validatorSetHash, type SignedHeader } from "../../src/proofs/cometHeader.js";
import { appHashV1, blockLeaf, transactionLeaf } from "../../src/proofs/commitment.js";
import { toHex } from "../../src/proofs/encoding.js";
import type { LightBlock } from "../../src/proofs/followValidatorChanges.js";
import { sha256 } from "../../src/proofs/sha256.js";
import type { TransactionProof } from "../../src/proofs/verify.js";

export interface SyntheticValidator {
  readonly secretKey: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly power: bigint;
}

export const syntheticChainId = "synthetic-chain";
/** The genesis time; block h is h seconds (and a few nanoseconds) after it. */
export const syntheticGenesisTime = "2026-01-01T00:00:00Z";
const genesisMs = Date.parse(syntheticGenesisTime);

export function syntheticValidator(power = 10n): SyntheticValidator {
  const secretKey = utils.randomSecretKey();
  return { secretKey, publicKey: getPublicKey(secretKey), power };
}

const hex = (bytes: Uint8Array): string => toHex(bytes).toUpperCase();
const addressOf = (v: SyntheticValidator): string => hex(sha256(v.publicKey).subarray(0, 20));
const setHash = (set: readonly SyntheticValidator[]): string => hex(validatorSetHash(set));
const filler = (seed: string): string => hex(sha256(new TextEncoder().encode(seed)));

/** The time of block `height`: nanoseconds kept, as CometBFT writes them. */
export function syntheticTime(height: number): string {
  return new Date(genesisMs + height * 1000).toISOString().replace(/\.\d{3}Z$/, `.${String(height % 1000).padStart(3, "0")}000042Z`);
}

/** The header of `height`, signed by `signers` (default: every validator of `set`). */
export function syntheticSignedHeader(args: {
  readonly height: number;
  readonly set: readonly SyntheticValidator[];
  readonly next: readonly SyntheticValidator[];
  readonly appHash?: string;
  readonly signers?: readonly SyntheticValidator[];
  readonly chainId?: string;
}): SignedHeader {
  const { height, set, next } = args;
  const chainId = args.chainId ?? syntheticChainId;
  const parts = { total: 1, hash: filler(`parts ${height}`) };
  const header = {
    version: { block: "11", app: "1" },
    chain_id: chainId,
    height: String(height),
    time: syntheticTime(height),
    last_block_id: { hash: filler(`block ${height - 1}`), parts: { total: 1, hash: filler(`parts ${height - 1}`) } },
    last_commit_hash: filler(`commit ${height - 1}`),
    data_hash: filler(`data ${height}`),
    validators_hash: setHash(set),
    next_validators_hash: setHash(next),
    consensus_hash: filler("consensus"),
    app_hash: (args.appHash ?? filler(`app ${height}`)).toUpperCase(),
    last_results_hash: "",
    evidence_hash: "",
    proposer_address: addressOf(set[0]!),
  };
  const commit = { height: String(height), round: 0, block_id: { hash: hex(headerHash(header)), parts }, signatures: [] as SignedHeader["commit"]["signatures"][number][] };
  for (const v of args.signers ?? set) {
    const timestamp = syntheticTime(height + 1);
    const signature = Buffer.from(sign(precommitSignBytes(chainId, commit, timestamp), v.secretKey)).toString("base64");
    commit.signatures.push({ block_id_flag: 2, validator_address: addressOf(v), timestamp, signature });
  }
  return { header, commit };
}

/** A validator set as CometBFT's `/validators` and the node's light blocks show it. */
export function rpcValidators(set: readonly SyntheticValidator[]): { address: string; pub_key: { type: string; value: string }; voting_power: string }[] {
  return set.map((v) => ({
    address: addressOf(v),
    pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(v.publicKey).toString("base64") },
    voting_power: String(v.power),
  }));
}

export const lightBlockOf = (signed: SignedHeader, set: readonly SyntheticValidator[]): LightBlock => ({ signed_header: signed, validator_set: { validators: rpcValidators(set) } });

/** A one-transaction proof whose app hash the header of `height + 1` carries. */
export function syntheticProof(height: number, signed: (appHash: string) => SignedHeader): TransactionProof {
  const id = filler(`tx ${height}`).toLowerCase();
  const appHash = appHashV1(1, blockLeaf(height, 1, transactionLeaf(id)));
  return {
    version: 1,
    transaction_id: id,
    block: { height, index: 0, size: 1, path: [] },
    history: { index: 0, size: 1, path: [] },
    height,
    app_hash: appHash,
    signed_header: signed(appHash),
  };
}

export interface SyntheticChain {
  readonly genesis: { chain_id: string; genesis_time: string; initial_height: string; validators: object[] };
  /** The sets, the genesis one first; set i signs from height `changeEvery * i + 1`. */
  readonly sets: readonly (readonly SyntheticValidator[])[];
  /** At each change, the last header of the old set (naming the new one) and the first of the new. */
  readonly lightBlocks: readonly LightBlock[];
  /** A proof of a transaction after the last change, signed by the last set. */
  readonly proof: TransactionProof;
}

/**
 * A chain of `changes` set changes, one every `changeEvery` heights, each replacing one
 * validator of `size` with a new one (as an election does); the proof is `changeEvery` later.
 */
export function syntheticChain(changes: number, size = 4, changeEvery = 10): SyntheticChain {
  const sets: SyntheticValidator[][] = [Array.from({ length: size }, () => syntheticValidator())];
  for (let i = 1; i <= changes; i++) sets.push([...sets[i - 1]!.slice(1), syntheticValidator()]);
  const lightBlocks: LightBlock[] = [];
  for (let i = 1; i <= changes; i++) {
    const last = changeEvery * i;
    lightBlocks.push(lightBlockOf(syntheticSignedHeader({ height: last, set: sets[i - 1]!, next: sets[i]! }), sets[i - 1]!));
    lightBlocks.push(lightBlockOf(syntheticSignedHeader({ height: last + 1, set: sets[i]!, next: sets[i]! }), sets[i]!));
  }
  const final = sets[changes]!;
  const height = changeEvery * (changes + 1);
  const proof = syntheticProof(height, (appHash) => syntheticSignedHeader({ height: height + 1, set: final, next: final, appHash }));
  const genesis = { chain_id: syntheticChainId, genesis_time: syntheticGenesisTime, initial_height: "1", validators: rpcValidators(sets[0]!).map(({ pub_key, voting_power }) => ({ pub_key, power: voting_power })) };
  return { genesis, sets, lightBlocks, proof };
}
