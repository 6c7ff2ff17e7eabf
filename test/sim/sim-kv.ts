// A node's simulated key-value store: what LevelDB holds on a real node, byte for byte (the real records of
// src/lockd/storage/records.ts, written by the real write plans of batch-plan.ts). Two maps, as the disk has
// them: `synced` (fsynced: survives a power cut) and `cached` (every write handed to the OS: survives a process
// crash), and the unsynced batches between them. Faults, each drawn by the simulated node (sim-node.ts):
//  - a power cut keeps the synced part and a prefix of the unsynced batches;
//  - a torn write: the first batch a power cut loses is found partly on the disk, one of its values with its
//    tail never written (zeros), which the record's CRC must catch;
//  - a bit flip in a stored value (at rest), which the CRC must catch too;
//  - a write failing with EIO or ENOSPC: nothing of it is written, and it rejects.
// It answers synchronously (the simulator runs in steps) and through the production port (KvStore), so the
// unit tests run LevelStorage itself over it.

import type { BatchOp, KvRange, KvStore } from '../../src/lockd/storage/kv.js';
import type { Prng } from './prng.js';

export type WriteErrorCode = 'EIO' | 'ENOSPC';

/** A write the disk refused (nothing of it was written). */
export class KvWriteError extends Error {
  constructor(readonly code: WriteErrorCode) {
    super(`simulated disk: write failed: ${code === 'EIO' ? 'EIO: i/o error' : 'ENOSPC: no space left on device'}`);
  }
}

type Store = Map<string, Buffer>;

export class SimKv {
  /** Every write handed to the OS. */
  cached: Store = new Map();
  /** What survives a power cut. */
  synced: Store = new Map();
  private unsynced: (readonly BatchOp[])[] = [];
  /** What the store held before its last damage (a torn write, a bit flip): what an operator's repair restores. */
  private undamaged: { cached: Store; synced: Store; unsynced: (readonly BatchOp[])[] } | undefined;
  /** The next write fails with this code. */
  failNext: WriteErrorCode | undefined;

  get damaged(): boolean {
    return this.undamaged !== undefined;
  }

  writeSync(ops: readonly BatchOp[], sync: boolean): void {
    const code = this.failNext;
    if (code) {
      this.failNext = undefined;
      throw new KvWriteError(code);
    }
    apply(this.cached, ops);
    this.unsynced.push(ops);
    if (sync) this.sync();
  }

  /** An fsync: every earlier write becomes durable (LevelDB's log is one sequential file). */
  sync(): void {
    for (const b of this.unsynced) apply(this.synced, b);
    this.unsynced = [];
  }

  get unsyncedBatches(): number {
    return this.unsynced.length;
  }

  getSync(key: string): Buffer | undefined {
    return this.cached.get(key);
  }

  entriesSync(range: KvRange): [string, Buffer][] {
    const keys = [...this.cached.keys()].filter((k) => (range.gte === undefined || k >= range.gte) && (range.lt === undefined || k < range.lt)).sort();
    const out = keys.map((k): [string, Buffer] => [k, this.cached.get(k)!]);
    return range.limit === undefined ? out : out.slice(0, range.limit);
  }

  /**
   * Power lost: the synced part and the first `kept` unsynced batches remain. `torn`: a batch that was being
   * written (the first one lost) lands with one value torn; false if tearing it would change no byte (then it is lost whole).
   */
  powerCut(kept: number, prng: Prng, torn?: readonly BatchOp[]): boolean {
    for (const b of this.unsynced.slice(0, kept)) apply(this.synced, b);
    this.unsynced = [];
    this.cached = new Map(this.synced);
    const tore = torn ? this.tear(torn, prng) : false;
    this.cached = new Map(this.synced);
    return tore;
  }

  /** Flip one bit of one stored value (both in the cache and on the platter). Returns the key, if anything is stored. */
  flipBit(prng: Prng): string | undefined {
    const keys = [...this.cached.keys()].sort();
    if (keys.length === 0) return undefined;
    const key = keys[prng.int(keys.length)];
    const value = this.cached.get(key)!;
    if (value.length === 0) return undefined;
    this.remember();
    const bit = prng.int(value.length * 8);
    const flip = (s: Store): void => {
      const v = s.get(key);
      if (!v || v.length !== value.length) return;
      const c = Buffer.from(v);
      c[bit >> 3] ^= 1 << (bit & 7);
      s.set(key, c);
    };
    flip(this.cached);
    if (this.synced.get(key)?.equals(value)) flip(this.synced);
    return key;
  }

  /** The operator's repair of a store a start refused as corrupt: back to what it held before the damage. */
  repair(): void {
    if (!this.undamaged) return;
    ({ cached: this.cached, synced: this.synced, unsynced: this.unsynced } = this.undamaged);
    this.undamaged = undefined;
  }

  /** This store behind the production port (LevelStorage.open's openKv), for the unit tests. */
  store(): KvStore {
    return {
      open: () => Promise.resolve(),
      close: () => Promise.resolve(),
      get: (key) => Promise.resolve(this.getSync(key)),
      batch: (ops, { sync }) => {
        try {
          this.writeSync([...ops], sync);
          return Promise.resolve();
        } catch (e) {
          return Promise.reject(e as Error);
        }
      },
      entries: (range) => toAsync(this.entriesSync(range)),
    };
  }

  private remember(): void {
    if (!this.undamaged) this.undamaged = { cached: new Map(this.cached), synced: new Map(this.synced), unsynced: [...this.unsynced] };
  }

  /** Apply `ops` to the synced part with its last entry's value (else its last put's) torn: a zeroed tail. */
  private tear(ops: readonly BatchOp[], prng: Prng): boolean {
    const puts = ops.filter((o): o is Extract<BatchOp, { type: 'put' }> => o.type === 'put');
    const victim = [...puts].reverse().find((o) => o.key.startsWith('e:')) ?? puts[puts.length - 1];
    if (!victim || victim.value.length < 2) return false;
    const torn = Buffer.from(victim.value);
    // The value's tail never reached the platter: zeros from a point past the CRC word when there is room.
    const from = torn.length > 21 ? prng.range(20, torn.length - 1) : prng.range(1, torn.length - 1);
    torn.fill(0, from);
    if (torn.equals(victim.value)) return false;
    this.remember();
    apply(
      this.synced,
      ops.map((o) => (o === victim ? { ...victim, value: torn } : o)),
    );
    return true;
  }
}

function apply(s: Store, ops: readonly BatchOp[]): void {
  for (const o of ops) {
    if (o.type === 'put') s.set(o.key, o.value);
    else s.delete(o.key);
  }
}

async function* toAsync<T>(items: readonly T[]): AsyncIterable<T> {
  for (const x of items) yield await Promise.resolve(x);
}
