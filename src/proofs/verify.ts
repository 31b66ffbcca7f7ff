// The verifier of ledgerd's proofs (docs/proofs.md), exported as `ledgerd/verify`: no dependency
// on a node, runs in a browser too. Given a proof as `GET /api/v1/proofs/...` answers it, it
// recomputes the roots and the app hash from the hashes in the proof, and, when the client
// gives the validator set it trusts, checks that CometBFT's validators signed that app hash.
import { appHashV1, blockLeaf, transactionLeaf } from "./commitment.js";
import { fromHex, toHex } from "./encoding.js";
import { checkHeaderClaims, checkSignedHeader, headerHash, timeNanos, type SignedHeader, type TrustedValidator } from "./cometHeader.js";
import { followValidatorChanges, trustedStateOf, type LightBlock, type TrustRoot } from "./followValidatorChanges.js";
import { verifyLightBlock, type TrustPeriod } from "./lightBlock.js";
import { inclusionRoot, verifyConsistency, type Hash } from "./merkle.js";
import { trustedValidatorsOf } from "./trustedValidatorsOf.js";

export type { RpcCommit, RpcHeader, SignedHeader, TrustedValidator } from "./cometHeader.js";
export { headerHash, precommitSignBytes, validatorSetHash } from "./cometHeader.js";
export type { LightBlock, TrustRoot } from "./followValidatorChanges.js";
export { clockDriftMsMax, type TrustPeriod } from "./lightBlock.js";
export { trustedValidatorsOf } from "./trustedValidatorsOf.js";

export const proofVersion = 1;

/** `GET /api/v1/proofs/transactions/{id}`. */
export interface TransactionProof {
  readonly version: number;
  readonly transaction_id: string;
  /** Where the transaction is in its block's tree. */
  readonly block: { readonly height: number; readonly index: number; readonly size: number; readonly path: readonly string[] };
  /** Where that block is in the history tree of `size` blocks that `app_hash` commits to. */
  readonly history: { readonly index: number; readonly size: number; readonly path: readonly string[] };
  /** The height after which the ledger's app hash is `app_hash`. */
  readonly height: number;
  readonly app_hash: string;
  /** Under CometBFT: the header of `height + 1` (it carries the app hash after `height`) and its commit. */
  readonly signed_header: SignedHeader | null;
}

/** One end of a consistency proof: the history after `height`. */
export interface HistoryPoint {
  readonly height: number;
  readonly size: number;
  readonly root: string;
  readonly app_hash: string;
  readonly signed_header: SignedHeader | null;
}

/** `GET /api/v1/proofs/consistency?from=H1&to=H2`. */
export interface ConsistencyProof {
  readonly version: number;
  readonly from: HistoryPoint;
  readonly to: HistoryPoint;
  readonly path: readonly string[];
}

export interface VerifyOptions {
  /**
   * The validators the client trusts (of the height the signed header is for). Given, the proof
   * must carry a signed header with more than two thirds of their power; absent, the proof is
   * only checked to reach its own app hash (compare that with one you trust).
   */
  readonly validators?: readonly TrustedValidator[];
  /** The chain the signed header must be of. */
  readonly chainId?: string;
  /**
   * Instead of `validators`: a root of trust (a genesis: `trustRootOf(genesis)`) and the light
   * blocks at the validator set's changes since (`GET /api/v1/proofs/validator-changes`'s
   * `light_blocks`), followed as CometBFT's light client follows them to the proof's header.
   */
  readonly trust?: { readonly root: TrustRoot; readonly validatorChanges: readonly LightBlock[] } & TrustPeriod;
}

/** With `trust`: the set that signed the proof's header, and the way there from the root. */
export interface TrustedSet {
  /** The root's set's hash (uppercase hex, as a header's `validators_hash`) and first height. */
  readonly rootHeight: number;
  readonly rootValidatorsHash: string;
  /** The set that signed the proof's header (at `height`), and the set changes followed to it. */
  readonly height: number;
  readonly validatorsHash: string;
  readonly changes: number;
}

export type Verdict =
  | { readonly ok: true; readonly height: number; readonly appHash: string; readonly signed: boolean; readonly trusted?: TrustedSet }
  | { readonly ok: false; readonly reason: string };

const no = (reason: string): Verdict => ({ ok: false, reason });

function hashes(values: unknown, what: string): Hash[] | string {
  if (!Array.isArray(values)) return `${what} is not a list`;
  const out: Hash[] = [];
  for (const value of values) {
    const bytes = typeof value === "string" && value.length === 64 ? fromHex(value) : null;
    if (bytes === null) return `${what} holds ${JSON.stringify(value)}, not a 64-digit hex hash`;
    out.push(bytes);
  }
  return out;
}

const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

/** Why the header carrying `appHash` cannot be trusted from `options.trust`; or the set that signed it. */
function followedSignature(signed: SignedHeader, height: number, appHash: string, trust: NonNullable<VerifyOptions["trust"]>): TrustedSet | string {
  const { root } = trust;
  const claims = checkHeaderClaims(signed.header, { height, appHash, chainId: root.chainId });
  if (claims !== null) return claims;
  const rootNs = root.time === undefined ? null : timeNanos(root.time);
  if (root.time !== undefined && rootNs === null) return `the root's time ${root.time} is not RFC 3339 UTC`;
  const start = trustedStateOf(root, rootNs);
  const state = followValidatorChanges(start, trust.validatorChanges, height, trust);
  if (typeof state === "string") return state;
  const named = String(signed.header.validators_hash).toUpperCase();
  if (height > state.height && named !== state.validatorsHash) {
    return `the header of height ${height} is signed by set ${named}; the validator changes given reach set ${state.validatorsHash} (height ${state.height}): give the changes up to height ${height}`;
  }
  const last = height === state.height ? state : verifyLightBlock(state, signed, state.validators, trust);
  if (typeof last === "string") return last;
  if (toHex(headerHash(signed.header)).toUpperCase() !== last.headerHash) return `the header of height ${height} is not the one the validator changes trust`;
  return { rootHeight: root.height, rootValidatorsHash: start.validatorsHash, height, validatorsHash: last.validatorsHash, changes: last.changes };
}

/** Null when no signature is asked for; else the set that signed, or why none that counts did. */
function signature(signed: SignedHeader | null | undefined, height: number, appHash: string, options: VerifyOptions): TrustedSet | string | null {
  if (options.validators === undefined && options.trust === undefined) return null;
  if (signed === null || signed === undefined) return "the proof carries no signed header, and validators were given to check one against";
  // The app hash after block h is in the header of h + 1.
  if (options.trust !== undefined) return followedSignature(signed, height + 1, appHash, options.trust);
  const expected = { height: height + 1, appHash, ...(options.chainId === undefined ? {} : { chainId: options.chainId }) };
  return checkSignedHeader(signed, expected, options.validators!);
}

/** The verdict once the paths reached `appHash`: the signature's, if one was asked for. */
function signedVerdict(signed: SignedHeader | null | undefined, height: number, appHash: string, options: VerifyOptions): Verdict {
  const checked = signature(signed, height, appHash, options);
  if (typeof checked === "string") return no(checked);
  return { ok: true, height, appHash, signed: checked !== null || options.validators !== undefined, ...(checked === null ? {} : { trusted: checked }) };
}

/**
 * The root of trust a CometBFT genesis gives: its chain, its validators from its initial height,
 * its time. Throws when it is not a genesis.
 */
export function trustRootOf(genesis: unknown): TrustRoot {
  const g = genesis as { chain_id?: unknown; initial_height?: unknown; genesis_time?: unknown } | null;
  if (typeof g?.chain_id !== "string") throw new Error("not a genesis: it has no chain_id");
  const height = Number(g.initial_height ?? 1);
  if (!Number.isSafeInteger(height) || height < 1) throw new Error(`not a genesis: initial_height ${String(g.initial_height)}`);
  return { chainId: g.chain_id, height, validators: trustedValidatorsOf(genesis), ...(typeof g.genesis_time === "string" ? { time: g.genesis_time } : {}) };
}

/** Whether `proof` shows that transaction `id` (when given, else the proof's own) is in the ledger. */
export function verifyTransactionProof(proof: TransactionProof, options: VerifyOptions = {}, id?: string): Verdict {
  if (proof?.version !== proofVersion) return no(`proof version ${String(proof?.version)}; this verifier reads ${proofVersion}`);
  if (id !== undefined && proof.transaction_id !== id) return no(`the proof is of ${proof.transaction_id}, not ${id}`);
  if (typeof proof.transaction_id !== "string") return no("transaction_id is not text");
  const { block, history } = proof;
  if (!count(block?.height) || block.height < 1 || !count(block.index) || !count(block.size)) return no("block height, index or size is not a count");
  if (!count(history?.index) || !count(history.size) || !count(proof.height) || typeof proof.app_hash !== "string") return no("history index or size, height or app_hash is missing");
  if (proof.height < block.height) return no(`the app hash after height ${proof.height} cannot hold block ${block.height}`);
  const blockPath = hashes(block.path, "block.path");
  if (typeof blockPath === "string") return no(blockPath);
  const historyPath = hashes(history.path, "history.path");
  if (typeof historyPath === "string") return no(historyPath);
  const blockRoot = inclusionRoot(transactionLeaf(proof.transaction_id), block.index, block.size, blockPath);
  if (blockRoot === null) return no("the block path does not fit its index and size");
  const historyRoot = inclusionRoot(blockLeaf(block.height, block.size, blockRoot), history.index, history.size, historyPath);
  if (historyRoot === null) return no("the history path does not fit its index and size");
  const appHash = appHashV1(history.size, historyRoot);
  if (appHash !== proof.app_hash.toLowerCase()) return no(`the proof reaches app hash ${appHash}, not the ${proof.app_hash} it claims`);
  return signedVerdict(proof.signed_header, proof.height, appHash, options);
}

function point(p: HistoryPoint, what: string): { root: Hash } | string {
  if (!count(p?.height) || !count(p.size) || typeof p.app_hash !== "string" || typeof p.root !== "string") return `${what} lacks height, size, root or app_hash`;
  const root = p.root.length === 64 ? fromHex(p.root) : null;
  if (root === null) return `${what}.root is not a 64-digit hex hash`;
  if (appHashV1(p.size, root) !== p.app_hash.toLowerCase()) return `${what}: size and root do not give its app hash`;
  return { root };
}

/** Whether `proof` shows that the history at `to` extends the one at `from`, nothing rewritten. */
export function verifyConsistencyProof(proof: ConsistencyProof, options: VerifyOptions = {}): Verdict {
  if (proof?.version !== proofVersion) return no(`proof version ${String(proof?.version)}; this verifier reads ${proofVersion}`);
  const from = point(proof.from, "from");
  if (typeof from === "string") return no(from);
  const to = point(proof.to, "to");
  if (typeof to === "string") return no(to);
  if (proof.from.height > proof.to.height || proof.from.size > proof.to.size) return no("from is after to");
  const path = hashes(proof.path, "path");
  if (typeof path === "string") return no(path);
  // An empty history is a prefix of every history.
  const consistent = proof.from.size === 0 ? path.length === 0 : verifyConsistency(proof.from.size, proof.to.size, from.root, to.root, path);
  if (!consistent) return no(`the history of ${proof.to.size} blocks does not extend the one of ${proof.from.size}`);
  const first = signedVerdict(proof.from.signed_header, proof.from.height, proof.from.app_hash.toLowerCase(), options);
  if (!first.ok) return no(`from: ${first.reason}`);
  const last = signedVerdict(proof.to.signed_header, proof.to.height, proof.to.app_hash.toLowerCase(), options);
  return last.ok ? last : no(`to: ${last.reason}`);
}
