// A seeded PRNG and the few draws the generators need. Demo data must be byte-identical from run
// to run, so nothing here touches Math.random or the clock.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
}

/** mulberry32: 32-bit state, fast, and good enough for demo data (not for anything secret). */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  return {
    next(): number {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Mixes a few integers into one seed, so that each record can have its own stream. */
export function seedOf(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193);
    h ^= h >>> 13;
  }
  return h >>> 0;
}

/** An integer in [min, max], both included. */
export function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng.next() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng.next() * items.length)] as T;
}

export function chance(rng: Rng, probability: number): boolean {
  return rng.next() < probability;
}

/** Picks by weight: `weights[i]` is the relative chance of `items[i]`. */
export function weighted<T>(rng: Rng, items: readonly T[], weights: readonly number[]): T {
  let total = 0;
  for (const w of weights) total += w;
  let r = rng.next() * total;
  for (let i = 0; i < items.length; i++) {
    r -= weights[i] as number;
    if (r < 0) return items[i] as T;
  }
  return items[items.length - 1] as T;
}

/** `count` distinct items, kept in their original order. */
export function sample<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const chosen: T[] = [];
  let needed = Math.min(count, items.length);
  for (let i = 0; i < items.length && needed > 0; i++) {
    // Selection sampling (Knuth's algorithm S): each item is kept with probability needed/left.
    if (rng.next() * (items.length - i) < needed) {
      chosen.push(items[i] as T);
      needed--;
    }
  }
  return chosen;
}

/** A decimal rounded to `digits` places. */
export function decimal(rng: Rng, min: number, max: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round((min + rng.next() * (max - min)) * f) / f;
}

const HEX = '0123456789abcdef';

/** A random (version 4, RFC 9562 variant) UUID drawn from `rng`. */
export function uuidV4(rng: Rng): string {
  let out = '';
  for (let i = 0; i < 32; i++) {
    let nibble = Math.floor(rng.next() * 16);
    if (i === 12) nibble = 4;
    else if (i === 16) nibble = 8 | (nibble & 3);
    if (i === 8 || i === 12 || i === 16 || i === 20) out += '-';
    out += HEX[nibble];
  }
  return out;
}
