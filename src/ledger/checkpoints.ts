// The node's signed checkpoints (docs/transparency.md): the history tree's size and root at a
// size, as a C2SP checkpoint signed with the node key as a signed note whose key name is the
// origin. Signed lazily, when asked, and kept per size (an LRU of `checkpointCacheEntriesMax`):
// a checkpoint of a size never changes, and a node signs only sizes someone asked for, at most
// one signature per block however many clients poll (BENCHMARKS.md, issue #40).
import { LruCache } from "../crypto-conditions/lruCache.js";
import { LedgerError } from "../errors/ledgerError.js";
import { checkpointBody } from "../proofs/checkpoint.js";
import { rangeRoot } from "../proofs/merkle.js";
import { noteKeyId, signedNoteOf, verifierKeyOf, type NoteKey } from "../proofs/signedNote.js";
import type { ChainReads } from "../store/store.js";
import { provingChain, withHistoryNodes } from "./proofs.js";
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

/** The node key as the checkpoints' signer: `name` is the origin (node/checkpointSigner.ts). */
export interface NoteSigner extends NoteKey {
  sign(message: Uint8Array): Uint8Array;
}

export interface SignedCheckpoint {
  /** The signed note, as served. */
  readonly note: string;
  readonly size: number;
  /** The first height after which the history had this size (0 for the empty history). */
  readonly height: number;
}

const text = new TextEncoder();

export class CheckpointNotary {
  readonly #signer: NoteSigner;
  readonly #keyId: Uint8Array;
  readonly #signed = new LruCache<number, SignedCheckpoint>(checkpointCacheEntriesMax);

  constructor(signer: NoteSigner) {
    this.#signer = signer;
    this.#keyId = noteKeyId(signer);
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
   * node's latest); ProofsUnavailable on a chain that keeps BigchainDB's app hash.
   */
  async at(store: ChainReads, size: number, limit: number): Promise<SignedCheckpoint> {
    await provingChain(store);
    if (size > limit) throw new LedgerError("NotFound", `No checkpoint of size ${size}: the history has ${limit} blocks`);
    const cached = this.#signed.get(size);
    if (cached !== undefined) return cached;
    const root = await withHistoryNodes(store, (nodes) => rangeRoot(nodes, 0, size));
    const body = checkpointBody({ origin: this.#signer.name, size, root });
    const signature = this.#signer.sign(text.encode(body));
    const note = signedNoteOf(body, [{ name: this.#signer.name, keyId: this.#keyId, signature }]);
    const height = size === 0 ? 0 : await heightOfLeaf(store, size - 1);
    const signed = { note, size, height };
    this.#signed.set(size, signed);
    return signed;
  }
}
