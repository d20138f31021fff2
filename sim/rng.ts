/**
 * The simulation's one source of choices: a seeded generator (pure-rand's xoroshiro128+), so a
 * seed replays the same choices. Each actor forks a stream of its own by label, so one trader's
 * extra draw (a retry, a longer cart) never shifts every other trader's choices: a replay with
 * the same seed diverges only where real timing made an actor act differently.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import type { JumpableRandomGenerator } from 'pure-rand/types/JumpableRandomGenerator';
import { sha256 } from '@noble/hashes/sha2.js';

export class Rng {
  private readonly gen: JumpableRandomGenerator;

  constructor(readonly seed: number, readonly label = 'root') {
    this.gen = xoroshiro128plus(seed);
  }

  /** An independent stream for `label`, the same for the same seed and label. */
  fork(label: string): Rng {
    const h = sha256(new TextEncoder().encode(`${this.seed}:${this.label}/${label}`));
    const derived = ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0;
    return new Rng(derived, `${this.label}/${label}`);
  }

  /** An integer in [from, to]. */
  int(from: number, to: number): number {
    return uniformInt(this.gen, from, to);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.int(0, 999_999) < Math.round(p * 1_000_000);
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('pick from nothing');
    return items[this.int(0, items.length - 1)]!;
  }

  /** Up to `n` distinct items of `items`, in a random order (a partial Fisher-Yates shuffle). */
  sample<T>(items: readonly T[], n: number): T[] {
    const a = [...items];
    const k = Math.min(n, a.length);
    for (let i = 0; i < k; i++) {
      const j = this.int(i, a.length - 1);
      [a[i], a[j]] = [a[j]!, a[i]!];
    }
    return a.slice(0, k);
  }

  /** One key of `table`, drawn with the weights its values give. */
  weighted<K extends string>(table: Readonly<Record<K, number>>): K {
    const entries = Object.entries(table) as Array<[K, number]>;
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let r = this.int(0, Math.max(0, Math.round(total * 1000) - 1)) / 1000;
    for (const [k, w] of entries) {
      if ((r -= w) < 0) return k;
    }
    return entries[entries.length - 1]![0];
  }

  /** A delay in [minMs, maxMs]. */
  delay(minMs: number, maxMs: number): number {
    return this.int(minMs, maxMs);
  }
}
