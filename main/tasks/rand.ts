import { Rng } from '../util/random.js';

/** Seeded choices for generators: everything derived from one integer, so data is reproducible. */
export class Rand {
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.rng.uniform();
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rng.uniform() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.rng.uniform() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.rng.uniform() * items.length)];
  }

  /** A key drawn with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let u = this.rng.uniform() * total;
    for (const [k, w] of entries) {
      u -= w;
      if (u < 0) return k;
    }
    return entries[entries.length - 1][0];
  }

  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.rng.uniform() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
