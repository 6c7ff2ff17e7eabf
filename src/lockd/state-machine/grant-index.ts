// Live grants by fencing token: token → the names of the locks held under it. A token is unique per
// lock (token.ts), but one entry can hand several locks on (a lease's end) with the same ordinal, so a
// token may name several locks. A reverse index of the lock table (like a lease's held/waiting), kept by
// lock-transitions.ts and rebuilt on restore: it lets a fenced write find the grant its token belongs
// to without scanning every lock — that scan ran in the apply loop every replica shares, once per
// write that creates a key, so with many locks held one client's cheap writes stalled everyone's.
// Grants restored from before tokens were per grant may share a token on one name: each (token, name)
// pair is counted, and leaves the index with its last holder.

export class GrantIndex {
  private readonly byToken = new Map<number, Map<string, number>>();

  add(token: number, name: string): void {
    let names = this.byToken.get(token);
    if (!names) this.byToken.set(token, (names = new Map()));
    names.set(name, (names.get(name) ?? 0) + 1);
  }

  remove(token: number, name: string): void {
    const names = this.byToken.get(token);
    const n = names?.get(name);
    if (!names || n === undefined) return;
    if (n > 1) names.set(name, n - 1);
    else names.delete(name);
    if (names.size === 0) this.byToken.delete(token);
  }

  /** Names of the locks held under `token` (none: empty). */
  names(token: number): Iterable<string> {
    return this.byToken.get(token)?.keys() ?? [];
  }

  /** Every (token, name, holders) triple, for the invariant sweep. */
  *pairs(): IterableIterator<[number, string, number]> {
    for (const [token, names] of this.byToken) for (const [name, n] of names) yield [token, name, n];
  }
}
