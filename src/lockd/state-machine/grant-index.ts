// Live grants by fencing token: token → the names of the locks held under it. A token is the index
// of the entry that granted it, and one entry can hand several locks on (a lease's end), so a token
// may name several locks. A reverse index of the lock table (like a lease's held/waiting), kept by
// lock-transitions.ts and rebuilt on restore: it lets a fenced write find the grant its token belongs
// to without scanning every lock — that scan ran in the apply loop every replica shares, once per
// write that creates a key, so with many locks held one client's cheap writes stalled everyone's.

export class GrantIndex {
  private readonly byToken = new Map<number, Set<string>>();

  add(token: number, name: string): void {
    let names = this.byToken.get(token);
    if (!names) this.byToken.set(token, (names = new Set()));
    names.add(name);
  }

  remove(token: number, name: string): void {
    const names = this.byToken.get(token);
    if (!names) return;
    names.delete(name);
    if (names.size === 0) this.byToken.delete(token);
  }

  /** Names of the locks held under `token` (none: empty). */
  names(token: number): ReadonlySet<string> {
    return this.byToken.get(token) ?? EMPTY;
  }

  /** Every (token, name) pair, for the invariant sweep. */
  *pairs(): IterableIterator<[number, string]> {
    for (const [token, names] of this.byToken) for (const name of names) yield [token, name];
  }
}

const EMPTY: ReadonlySet<string> = new Set();
