// The fenced store: a tiny key/value map that refuses writes carrying a token lower than the highest
// it has accepted for that key — the storage-side half of fencing (DESIGN §5).

import { compareStrings } from './order.js';

export interface FenceEntry {
  readonly token: number;
  readonly value: Uint8Array;
}

export class FenceStore {
  private readonly entries = new Map<string, FenceEntry>();

  get size(): number {
    return this.entries.size;
  }

  get(key: string): FenceEntry | undefined {
    return this.entries.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Equal or higher token: stored (the value is copied). Lower: refused, value unchanged. */
  write(key: string, value: Uint8Array, token: number): { accepted: boolean; highestToken: number } {
    const cur = this.entries.get(key);
    if (cur && token < cur.token) return { accepted: false, highestToken: cur.token };
    this.entries.set(key, { token, value: value.slice() });
    return { accepted: true, highestToken: token };
  }

  /** Keys in sorted order (for snapshots: same state, same bytes). */
  sorted(): [string, FenceEntry][] {
    return [...this.entries].sort(([a], [b]) => compareStrings(a, b));
  }
}
