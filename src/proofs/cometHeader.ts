// CometBFT's signed headers, checked without CometBFT (docs/proofs.md "Signed headers"): the
// header's hash as CometBFT computes it (`Header.Hash`, v0.38: an RFC 6962 tree over the
// protobuf encoding of each field), and the commit's precommit signatures over the canonical
// vote (`VoteSignBytes`), counted against a validator set the caller trusts. What a light
// client does for one header, for a client that knows the validators. Pure, no IO.
import { hashes, verify as ed25519Verify } from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { rootOf, leafHash, type Hash } from "./merkle.js";
import { sha256 } from "./sha256.js";
import { fromBase64, fromHex, toHex } from "./encoding.js";

/** A header as CometBFT's RPC shows it (`/commit`, `signed_header.header`). */
export interface RpcHeader {
  readonly version: { readonly block: string; readonly app?: string };
  readonly chain_id: string;
  readonly height: string;
  readonly time: string;
  readonly last_block_id: RpcBlockId;
  readonly last_commit_hash: string;
  readonly data_hash: string;
  readonly validators_hash: string;
  readonly next_validators_hash: string;
  readonly consensus_hash: string;
  readonly app_hash: string;
  readonly last_results_hash: string;
  readonly evidence_hash: string;
  readonly proposer_address: string;
}

export interface RpcBlockId {
  readonly hash: string;
  readonly parts: { readonly total: number; readonly hash: string };
}

export interface RpcCommit {
  readonly height: string;
  readonly round: number;
  readonly block_id: RpcBlockId;
  readonly signatures: readonly {
    readonly block_id_flag: number;
    readonly validator_address: string;
    readonly timestamp: string;
    readonly signature: string | null;
  }[];
}

export interface SignedHeader {
  readonly header: RpcHeader;
  readonly commit: RpcCommit;
}

/** A validator the client trusts: its Ed25519 public key (32 bytes) and voting power. */
export interface TrustedValidator {
  readonly publicKey: Uint8Array;
  readonly power: bigint;
}

// noble's synchronous verify takes its SHA-512 from here (its documented set-up).
hashes.sha512 = sha512;

// Protobuf, as much as the header and vote need: proto3 leaves zero values out.
const varint = (n: bigint): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, n);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
};
const tag = (field: number, wire: number): number[] => varint(BigInt((field << 3) | wire));
const uintField = (field: number, n: bigint): number[] => (n === 0n ? [] : [...tag(field, 0), ...varint(n)]);
const bytesField = (field: number, bytes: Uint8Array | readonly number[]): number[] =>
  bytes.length === 0 ? [] : [...tag(field, 2), ...varint(BigInt(bytes.length)), ...bytes];
const messageField = (field: number, bytes: readonly number[]): number[] => [...tag(field, 2), ...varint(BigInt(bytes.length)), ...bytes];
const fixed64Field = (field: number, n: bigint): number[] => {
  if (n === 0n) return [];
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigInt64(0, n, true);
  return [...tag(field, 1), ...b];
};
const text = new TextEncoder();

class Malformed extends Error {}

function hex(value: string, what: string): Uint8Array {
  const bytes = fromHex(value);
  if (bytes === null) throw new Malformed(`${what} is not hex`);
  return bytes;
}

function integer(value: string | number, what: string): bigint {
  if (!/^-?\d{1,19}$/.test(String(value))) throw new Malformed(`${what} is not an integer`);
  return BigInt(value);
}

/** An RFC 3339 time to protobuf's Timestamp (seconds, nanos): nanoseconds kept, as Go keeps them. */
function timestamp(value: string): number[] {
  const ns = timeNanos(value);
  if (ns === null) throw new Malformed(`time ${value} is not RFC 3339 UTC`);
  const nanos = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  return [...uintField(1, (ns - nanos) / 1_000_000_000n), ...uintField(2, nanos)];
}

function blockId(id: RpcBlockId, what: string): number[] {
  const parts = [...uintField(1, integer(id.parts.total, `${what} parts total`)), ...bytesField(2, hex(id.parts.hash, `${what} parts hash`))];
  // The part set header is a non-nullable field (gogoproto): written even when empty.
  return [...bytesField(1, hex(id.hash, `${what} hash`)), ...messageField(2, parts)];
}

/** `Header.Hash()`: the RFC 6962 root over the header's fields, each protobuf-encoded. */
export function headerHash(h: RpcHeader): Hash {
  const wrapBytes = (value: string, what: string) => Uint8Array.from(bytesField(1, hex(value, what)));
  const fields: Uint8Array[] = [
    Uint8Array.from([...uintField(1, integer(h.version.block, "version.block")), ...uintField(2, integer(h.version.app ?? "0", "version.app"))]),
    Uint8Array.from(bytesField(1, text.encode(h.chain_id))),
    Uint8Array.from(uintField(1, integer(h.height, "height"))),
    Uint8Array.from(timestamp(h.time)),
    Uint8Array.from(blockId(h.last_block_id, "last_block_id")),
    wrapBytes(h.last_commit_hash, "last_commit_hash"),
    wrapBytes(h.data_hash, "data_hash"),
    wrapBytes(h.validators_hash, "validators_hash"),
    wrapBytes(h.next_validators_hash, "next_validators_hash"),
    wrapBytes(h.consensus_hash, "consensus_hash"),
    wrapBytes(h.app_hash, "app_hash"),
    wrapBytes(h.last_results_hash, "last_results_hash"),
    wrapBytes(h.evidence_hash, "evidence_hash"),
    wrapBytes(h.proposer_address, "proposer_address"),
  ];
  return rootOf(fields.map(leafHash));
}

/** The bytes a validator signs for its precommit (`VoteSignBytes`: a length-delimited CanonicalVote). */
export function precommitSignBytes(chainId: string, commit: RpcCommit, time: string): Uint8Array {
  const precommit = 2n;
  const canonicalBlockId = [
    ...bytesField(1, hex(commit.block_id.hash, "block_id hash")),
    ...messageField(2, [...uintField(1, integer(commit.block_id.parts.total, "parts total")), ...bytesField(2, hex(commit.block_id.parts.hash, "parts hash"))]),
  ];
  const vote = [
    ...uintField(1, precommit),
    ...fixed64Field(2, integer(commit.height, "commit height")),
    ...fixed64Field(3, integer(commit.round, "commit round")),
    ...messageField(4, canonicalBlockId),
    ...messageField(5, timestamp(time)),
    ...bytesField(6, text.encode(chainId)),
  ];
  return Uint8Array.from([...varint(BigInt(vote.length)), ...vote]);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Runs a check over a header the node being checked sent: a malformed one is a reason, not a throw. */
function guarded<T>(check: () => T | string): T | string {
  try {
    return check();
  } catch (error) {
    if (error instanceof Malformed) return error.message;
    // A field missing or of another type than CometBFT writes (the header comes from the node
    // being checked): not a header this verifier can hold to anything.
    if (error instanceof TypeError) return `the signed header is malformed: ${error.message}`;
    throw error;
  }
}

/**
 * The addresses of the validators among `keys` (address, lowercase hex, to Ed25519 key) whose
 * precommit for the header's block is in the commit and verifies; or why the commit counts for
 * nothing (it is of another height or signs another header, or a known validator's signature
 * does not verify). Signatures for nil or absent, and of validators not in `keys`, are skipped.
 * With `enough`, told each signer as it is counted, the rest are not verified once it says so
 * (as CometBFT's `VerifyCommitLight` stops at the power it needs).
 */
export function commitSigners(signed: SignedHeader, keys: ReadonlyMap<string, Uint8Array>, enough?: (address: string) => boolean): Set<string> | string {
  return guarded(() => {
    const { header, commit } = signed;
    if (commit.height !== header.height) return "the commit is not of the header's height";
    if (!sameBytes(headerHash(header), hex(commit.block_id.hash, "commit block_id hash"))) return "the commit signs another header than this one (its hash differs)";
    const signers = new Set<string>();
    for (const sig of commit.signatures) {
      if (sig.block_id_flag !== 2 || sig.signature === null) continue; // absent or nil: no vote for this block
      const address = sig.validator_address.toLowerCase();
      const key = keys.get(address);
      if (key === undefined || signers.has(address)) continue;
      const signature = signatureBytes(sig.signature);
      if (signature === null) return `the signature of validator ${address} is not 64 bytes of base64`;
      const message = precommitSignBytes(header.chain_id, commit, sig.timestamp);
      if (!ed25519Verify(signature, message, key)) return `the signature of validator ${address} does not verify`;
      signers.add(address);
      if (enough?.(address) === true) break;
    }
    return signers;
  });
}

/** A signature as the commit writes it (base64), or null when it is not 64 bytes of base64. */
function signatureBytes(text: unknown): Uint8Array | null {
  if (typeof text !== "string" || !/^[A-Za-z0-9+/]{86}==$/.test(text)) return null;
  return fromBase64(text);
}

/** Validators by address (lowercase hex), to look up a commit's signers. */
export function keysByAddress(...sets: (readonly TrustedValidator[])[]): Map<string, Uint8Array> {
  return new Map(sets.flatMap((set) => set.map((v) => [toAddress(v.publicKey), v.publicKey] as const)));
}

/** Each validator's power by address (lowercase hex). */
export function powersByAddress(set: readonly TrustedValidator[]): Map<string, bigint> {
  return new Map(set.map((v) => [toAddress(v.publicKey), v.power] as const));
}

/** The power of the validators of `set` among `signers`, and the set's whole power. */
export function signedPower(set: readonly TrustedValidator[], signers: ReadonlySet<string>): { signed: bigint; total: bigint } {
  let signed = 0n;
  let total = 0n;
  for (const v of set) {
    total += v.power;
    if (signers.has(toAddress(v.publicKey))) signed += v.power;
  }
  return { signed, total };
}

/** Null when the header is of `expected`'s height (and chain) and carries its app hash; else why not. */
export function checkHeaderClaims(
  header: RpcHeader,
  expected: { readonly height: number; readonly appHash: string; readonly chainId?: string },
): string | null {
  const wrong = guarded(() => {
    if (integer(header.height, "header height") !== BigInt(expected.height)) return `the header is of height ${header.height}, not ${expected.height}`;
    if (header.app_hash.toLowerCase() !== expected.appHash.toLowerCase()) return `the header's app hash ${header.app_hash} is not the proof's ${expected.appHash}`;
    if (expected.chainId !== undefined && header.chain_id !== expected.chainId) return `the header is of chain ${header.chain_id}, not ${expected.chainId}`;
    return { fine: true };
  });
  return typeof wrong === "string" ? wrong : null;
}

/**
 * Null when `signed` is a header of `height` carrying `appHash`, whose commit holds signatures
 * of more than two thirds of the trusted validators' power; otherwise why not.
 */
export function checkSignedHeader(
  signed: SignedHeader,
  expected: { readonly height: number; readonly appHash: string; readonly chainId?: string },
  validators: readonly TrustedValidator[],
): string | null {
  const claims = checkHeaderClaims(signed.header, expected);
  if (claims !== null) return claims;
  const signers = commitSigners(signed, keysByAddress(validators));
  if (typeof signers === "string") return signers;
  const power = signedPower(validators, signers);
  if (power.signed * 3n <= power.total * 2n) return `validators of ${power.signed} of ${power.total} power signed; more than two thirds must`;
  return null;
}

/**
 * CometBFT's `ValidatorSet.Hash()`, which a header names as `validators_hash`: the RFC 6962 root
 * over each validator's `SimpleValidator` (its key as a `PublicKey`, its power), in the set's
 * order: power descending, then address ascending (CometBFT sorts every set so).
 */
export function validatorSetHash(validators: readonly TrustedValidator[]): Hash {
  const ordered = validators
    .map((v) => ({ v, address: toAddress(v.publicKey) }))
    .sort((a, b) => (a.v.power === b.v.power ? (a.address < b.address ? -1 : a.address > b.address ? 1 : 0) : a.v.power > b.v.power ? -1 : 1));
  const simple = ({ v }: { v: TrustedValidator }) => Uint8Array.from([...messageField(1, bytesField(1, v.publicKey)), ...uintField(2, v.power)]);
  return rootOf(ordered.map((entry) => leafHash(simple(entry))));
}

/** An RFC 3339 time, as CometBFT writes it, in nanoseconds since 1970; null when it is not one. */
export function timeNanos(value: string): bigint | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/.exec(value);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return BigInt(ms) * 1_000_000n + BigInt((frac ?? "").padEnd(9, "0"));
}

/** A validator's address: the first 20 bytes of SHA-256 of its public key, hex. */
function toAddress(publicKey: Uint8Array): string {
  return toHex(sha256(publicKey).subarray(0, 20));
}
