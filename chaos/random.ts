// A small seeded PRNG (mulberry32): a chaos run's schedule and its clients' choices, and the
// randomized tests (test/helpers/random.ts extends it), are reproducible from one seed.
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

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Buffer {
    return Buffer.from(Array.from({ length: n }, () => this.int(256)));
  }

  /**
   * An independent generator for one part of a run (a client, the nemesis), so that the choices
   * of one part do not shift when another draws more or fewer numbers.
   */
  fork(label: number): Random {
    return new Random(Math.imul(this.state ^ Math.imul(label + 1, 0x9e3779b1), 0x85ebca6b));
  }
}
