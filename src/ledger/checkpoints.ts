// The node's signed checkpoints (docs/transparency.md): the history tree's size and root at a
// size, as a C2SP checkpoint signed with the node key as a signed note whose key name is the
// origin. Signed lazily, when asked, and kept per size (an LRU of `checkpointCacheEntriesMax`):
// a checkpoint of a size never changes, and a node signs only sizes someone asked for, at most
// one signature per block however many clients poll (BENCHMARKS.md, issue #40). Requests of one
// size at once share its signing, and the witnesses' round for the latest.
import assert from "node:assert/strict";
import { LruCache } from "../crypto-conditions/lruCache.js";
import { LedgerError } from "../errors/ledgerError.js";
import { checkpointBody } from "../proofs/checkpoint.js";
import { edgeOf, HistoryEdge } from "../proofs/history.js";
import { noteKeyId, signedNoteOf, verifierKeyOf, type NoteKey } from "../proofs/signedNote.js";
import type { ChainReads } from "../store/store.js";
import type { CheckpointWitnesses } from "./checkpointWitnesses.js";
import { provingChain } from "./proofs.js";
import { heightOfLeaf } from "./tiles.js";

/**
 * The origin of a node's checkpoints: the `checkpoint.origin` setting, or else
 * `ledgerd.invalid/<chain id>` with the chain id percent-encoded (so it holds no space or `+`, as
 * a key name must): a schemeless URL-like name, under a domain that never resolves (RFC 6761),
 * unique per chain as long as chain ids are.
 */
export function checkpointOriginOf(setting: string, chainId: string): string {
  return setting !== "" ? setting : `ledgerd.invalid/${encodeURIComponent(chainId)}`;
}

/** Sizes whose checkpoint is kept signed. */
export const checkpointCacheEntriesMax = 256;

/** Sizes being signed at once whose signing concurrent requests share; beyond, each signs its own. */
export const checkpointSigningsSharedMax = 64;

/** The node key as the checkpoints' signer: `name` is the origin (node/checkpointSigner.ts). */
export interface NoteSigner extends NoteKey {
  sign(message: Uint8Array): Uint8Array;
}

export interface SignedCheckpoint {
  /** The signed note, as served. */
  readonly note: string;
  readonly size: number;
  /** A height after which the history had this size (the first, unless the signer was told one; 0 when empty). */
  readonly height: number;
}

const text = new TextEncoder();

export class CheckpointNotary {
  readonly #signer: NoteSigner;
  readonly #keyId: Uint8Array;
  readonly #signed = new LruCache<number, SignedCheckpoint>(checkpointCacheEntriesMax);
  /** The signings under way, by size: removed once settled. */
  readonly #signing = new Map<number, Promise<SignedCheckpoint>>();
  readonly #witnesses: CheckpointWitnesses | undefined;

  /** With `witnesses`, the latest checkpoint carries their cosignatures (checkpointWitnesses.ts). */
  constructor(signer: NoteSigner, witnesses?: CheckpointWitnesses) {
    this.#signer = signer;
    this.#keyId = noteKeyId(signer);
    this.#witnesses = witnesses;
  }

  get origin(): string {
    return this.#signer.name;
  }

  /** The signed-note verifier key of the checkpoints. */
  verifierKey(): string {
    return verifierKeyOf(this.#signer);
  }

  /**
   * The checkpoint of the history at `size`. NotFound past the history's size (`limit`, the
   * node's latest); ProofsUnavailable on a chain that keeps BigchainDB's app hash. `height`, when
   * the caller knows one after which the history had this size, saves looking it up.
   */
  async at(store: ChainReads, size: number, limit: number, height?: number): Promise<SignedCheckpoint> {
    await provingChain(store);
    if (size > limit) throw new LedgerError("NotFound", `No checkpoint of size ${size}: the history has ${limit} blocks`);
    const cached = this.#signed.get(size) ?? this.#signing.get(size);
    if (cached !== undefined) return cached;
    const signing = this.#sign(store, size, limit, height);
    if (this.#signing.size >= checkpointSigningsSharedMax) return signing;
    this.#signing.set(size, signing);
    try {
      return await signing;
    } finally {
      this.#signing.delete(size);
    }
  }

  /** Signs the checkpoint of `size` (cosigned when it is the latest), kept once it is final. */
  async #sign(store: ChainReads, size: number, limit: number, height: number | undefined): Promise<SignedCheckpoint> {
    // The root folds the tree's right edge: one read of a node per set bit of the size.
    const edge = await store.getHistoryNodes(edgeOf(size));
    assert.ok(edge.every((hash) => hash !== null), `the history's edge at size ${size} is not stored`);
    const root = HistoryEdge.of(size, edge as Uint8Array[]).root();
    const body = checkpointBody({ origin: this.#signer.name, size, root });
    const signature = this.#signer.sign(text.encode(body));
    const note = signedNoteOf(body, [{ name: this.#signer.name, keyId: this.#keyId, signature }]);
    const signed = { note, size, height: height ?? (size === 0 ? 0 : await heightOfLeaf(store, size - 1)) };
    // Witnesses cosign the latest only: one that saw a later checkpoint cannot cosign an earlier.
    if (this.#witnesses === undefined || size < limit) {
      this.#signed.set(size, signed);
      return signed;
    }
    const cosigned = await this.#witnesses.cosign(store, note, size);
    const answer = { ...signed, note: `${note}${cosigned.lines}` };
    // Without a quorum it is served as it is, and asked again at the next request.
    if (cosigned.quorum) this.#signed.set(size, answer);
    return answer;
  }
}
