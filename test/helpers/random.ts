// A small seeded PRNG (mulberry32) so that randomized tests are reproducible from their seed.
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    return Buffer.from(Array.from({ length: n }, () => this.int(256)));
  }

  /** A random string mixing ASCII, Latin, CJK, astral characters and control characters. */
  text(maxLength: number): string {
    const pools = [
      "abcdefghijklmnopqrstuvwxyz ABCDEFXYZ0123456789-_",
      "éèêëàâäôöûüçñßøåæœ",
      "日本語中文한국어テスト",
      "🔑🚀😀𝄞𠜎",
      "\u0000\u0001\u0008\u000b\u000e\u001a\u001f\t\n\r\"\\/\u007f\u2028\ufeff\ue000\uffff",
    ];
    const length = this.int(maxLength + 1);
    let out = "";
    for (let i = 0; i < length; i++) out += this.pick([...this.pick(pools)]);
    return out;
  }
}
