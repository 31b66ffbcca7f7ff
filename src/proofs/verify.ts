// The verifier of ledgerd's proofs (docs/proofs.md), exported as `ledgerd/verify`: no dependency
// on a node, runs in a browser too. Given a proof as `GET /api/v1/proofs/...` answers it, it
// recomputes the roots and the app hash from the hashes in the proof, and, when the client
// gives the validator set it trusts, checks that CometBFT's validators signed that app hash.
import { appHashV1, blockLeaf, transactionLeaf } from "./commitment.js";
import { fromBase64, fromHex } from "./encoding.js";
import { checkSignedHeader, type SignedHeader, type TrustedValidator } from "./cometHeader.js";
import { inclusionRoot, verifyConsistency, type Hash } from "./merkle.js";

export type { RpcCommit, RpcHeader, SignedHeader, TrustedValidator } from "./cometHeader.js";
export { headerHash, precommitSignBytes } from "./cometHeader.js";

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
}

export type Verdict =
  | { readonly ok: true; readonly height: number; readonly appHash: string; readonly signed: boolean }
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

function signature(signed: SignedHeader | null | undefined, height: number, appHash: string, options: VerifyOptions): string | null {
  if (options.validators === undefined) return null;
  if (signed === null || signed === undefined) return "the proof carries no signed header, and validators were given to check one against";
  // The app hash after block h is in the header of h + 1.
  const expected = { height: height + 1, appHash, ...(options.chainId === undefined ? {} : { chainId: options.chainId }) };
  return checkSignedHeader(signed, expected, options.validators);
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
  const unsigned = signature(proof.signed_header, proof.height, appHash, options);
  if (unsigned !== null) return no(unsigned);
  return { ok: true, height: proof.height, appHash, signed: options.validators !== undefined };
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
  for (const [end, what] of [[proof.from, "from"], [proof.to, "to"]] as const) {
    const unsigned = signature(end.signed_header, end.height, end.app_hash.toLowerCase(), options);
    if (unsigned !== null) return no(`${what}: ${unsigned}`);
  }
  return { ok: true, height: proof.to.height, appHash: proof.to.app_hash.toLowerCase(), signed: options.validators !== undefined };
}

/**
 * The validators to trust, from what a client has at hand: the list `GET /api/v1/validators`
 * answers (`pub_key.data` hex), a CometBFT genesis or its `validators` (`pub_key.value` base64),
 * or `/validators` of CometBFT's RPC (`result.validators`, `voting_power`). Throws on anything else.
 */
export function trustedValidatorsOf(source: unknown): TrustedValidator[] {
  const holder = source as { validators?: unknown; result?: { validators?: unknown } } | null;
  const list = Array.isArray(source) ? source : (holder?.result?.validators ?? holder?.validators);
  if (!Array.isArray(list) || list.length === 0) throw new Error("no validator list: give GET /api/v1/validators's answer, a genesis, or CometBFT's /validators");
  return list.map((entry: { pub_key?: { data?: unknown; value?: unknown }; power?: unknown; voting_power?: unknown }, i) => {
    const data = entry.pub_key?.data;
    const value = entry.pub_key?.value;
    const key = typeof data === "string" ? fromHex(data) : typeof value === "string" ? fromBase64(value) : null;
    const power = entry.power ?? entry.voting_power;
    if (key === null || key.length !== 32) throw new Error(`validator ${i}: pub_key is not a 32-byte Ed25519 key`);
    if (!(typeof power === "number" || typeof power === "string") || !/^[0-9]+$/.test(String(power))) throw new Error(`validator ${i}: power is not a whole number`);
    return { publicKey: key, power: BigInt(power) };
  });
}
