// A Bloom filter of 48-bit key hashes (keyHash.ts): "certainly not here" without a read. The
// duplicate-id check of every posted CREATE looks up an id that is nearly always new, and that
// lookup (a B-tree search of id_index, with its JSON array of hashes) was ~6 % of the node's main
// thread under load (BENCHMARKS.md, issue #42). The filter is add-only: a false "maybe" costs the
// read the lookup made anyway; a false "no" cannot happen, since DeferredIndex adds every hash
// that reaches its table or its memory.
//
// Blocked (each hash's bits in one 512-bit block, one cache line): one memory miss per probe, not
// three. It grows in layers instead of being rebuilt: a layer that is full is kept as it is, and
// the next one, twice the rows so far, takes the new hashes; so growth never reads the table
// again (at a million rows that read takes ~0.5 s).

/**
 * Bits per row a layer is sized with. The store sizes its first layer for twice the rows it
 * opens with: 0.04 to 0.09 % of absent hashes are read anyway at 100,000 and 1,000,000 rows.
 */
export const hashFilterBitsPerRow = 16;
/**
 * A layer takes no more rows than one per this many bits; the next is twice the rows so far. A
 * filter grown from empty to 100,000 or 1,000,000 rows reads 1.2 or 2.3 % of absent hashes.
 */
export const hashFilterBitsPerRowMin = 12;
/** The smallest layer: 128 KiB. */
export const hashFilterLayerBitsMin = 2 ** 20;
/** The largest layer: 128 MiB. */
export const hashFilterLayerBitsMax = 2 ** 30;

const blockBits = 512;
const probes = 3;

class Layer {
  readonly words: Int32Array;
  /** Which block: the hash's low lanes, masked. */
  readonly blockMask: number;
  readonly rowsMax: number;
  rows = 0;

  constructor(rows: number) {
    let bits = hashFilterLayerBitsMin;
    while (bits < rows * hashFilterBitsPerRow && bits < hashFilterLayerBitsMax) bits *= 2;
    this.words = new Int32Array(bits / 32);
    this.blockMask = bits / blockBits - 1;
    this.rowsMax = bits / hashFilterBitsPerRowMin;
  }
}

export class HashFilter {
  readonly #layers: Layer[];

  /** A filter with room for `rows` before its first layer fills. */
  constructor(rows: number) {
    this.#layers = [new Layer(rows)];
  }

  add(hash: number): void {
    let layer = this.#layers[this.#layers.length - 1]!;
    if (layer.rows >= layer.rowsMax) {
      layer = new Layer(2 * this.#layers.reduce((n, each) => n + each.rows, 0));
      this.#layers.push(layer);
    }
    layer.rows += 1;
    const [first, bits] = place(hash, layer.blockMask);
    for (let i = 0; i < probes; i++) {
      const bit = (bits >>> (9 * i)) & (blockBits - 1);
      layer.words[first + (bit >>> 5)]! |= 1 << (bit & 31);
    }
  }

  /** The bytes its layers take. */
  get bytes(): number {
    return this.#layers.reduce((n, layer) => n + layer.words.byteLength, 0);
  }

  /** False only for a hash never added. */
  mayHold(hash: number): boolean {
    for (const layer of this.#layers) if (holds(layer, hash)) return true;
    return false;
  }
}

function holds(layer: Layer, hash: number): boolean {
  const [first, bits] = place(hash, layer.blockMask);
  for (let i = 0; i < probes; i++) {
    const bit = (bits >>> (9 * i)) & (blockBits - 1);
    if ((layer.words[first + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

/**
 * A hash's block (its first word) and the 27 bits that pick its bits there. keyHash mixes both
 * of its lanes, so the low 32 bits choose the block and the high 16 with the low bits' top the
 * bits: independent enough for a filter (the rates measured above).
 */
function place(hash: number, blockMask: number): [number, number] {
  const low = hash % 2 ** 32;
  const high = Math.floor(hash / 2 ** 32);
  return [(low & blockMask) * (blockBits / 32), (high << 11) ^ (low >>> 21)];
}
