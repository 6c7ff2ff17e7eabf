// A small seeded PRNG (xoshiro128**, seeded through splitmix32) so that one seed decides a whole run.
// Never Math.random(): a failing seed must replay exactly.

function splitmix32(state: number): [number, number] {
  state = (state + 0x9e3779b9) | 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [state, (z ^ (z >>> 16)) >>> 0];
}

/** 32-bit FNV-1a of a string, used to derive independent streams from labels. */
export function hashString(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
      throw new Error(`prng: seed must be an integer in [0, 2^32), got ${seed}`);
    }
    let s = seed | 0;
    let v: number;
    [s, v] = splitmix32(s);
    this.a = v;
    [s, v] = splitmix32(s);
    this.b = v;
    [s, v] = splitmix32(s);
    this.c = v;
    [s, v] = splitmix32(s);
    this.d = v;
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1; // xoshiro's one forbidden state
  }

  /** Next 32-bit unsigned value. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    if (!(n >= 1) || !Number.isInteger(n)) throw new Error(`prng: int(n) needs a positive integer, got ${n}`);
    return Math.floor(this.float() * n);
  }

  /** Integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return p > 0 && this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('prng: pick from an empty list');
    return items[this.int(items.length)];
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  }

  /** An independent stream named `label`, derived from (and advancing) this one. */
  fork(label: string): Prng {
    return new Prng(hashString(label, this.u32()));
  }

  /** A stream of its own derived from this one's state without drawing from it: this stream's draws stay as they were. */
  split(label: string): Prng {
    return new Prng(hashString(label, (this.a ^ Math.imul(this.b, 3) ^ Math.imul(this.c, 5) ^ Math.imul(this.d, 7)) >>> 0));
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
