// Access rules in the replicated state: (principal, name prefix, verb). For a principal
// and a name, the rules that count are those of the principal's LONGEST prefix of the name; no
// matching prefix = no access. Example: alice has `lock` on "" and `read` on "secret/": on
// "secret/x" she holds only `read` (the longer prefix wins), on "public/x" she holds `lock`.
// `admin` is cluster-wide (its prefix is always ""): everything, on every name and lease.
// Pure: every replica holds the same rules in the same order (sorted), so answers agree.

/** The principal of every caller when client certificates are not checked (no TLS, or no --client-cert-auth). */
export const ANONYMOUS = 'anonymous';

export type AclVerb = 'lock' | 'fence' | 'read' | 'admin';
export const ACL_VERBS: readonly AclVerb[] = ['lock', 'fence', 'read', 'admin'];

export interface AclRule {
  readonly principal: string;
  readonly prefix: string;
  readonly verb: AclVerb;
}

export class AclTable {
  /** principal → prefix → verbs. */
  private readonly byPrincipal = new Map<string, Map<string, Set<AclVerb>>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Rules held by `principal` (for its quota). */
  sizeOf(principal: string): number {
    let n = 0;
    for (const verbs of this.byPrincipal.get(principal)?.values() ?? []) n += verbs.size;
    return n;
  }

  has(r: AclRule): boolean {
    return this.byPrincipal.get(r.principal)?.get(r.prefix)?.has(r.verb) ?? false;
  }

  /** False when the rule was already there. */
  add(r: AclRule): boolean {
    if (this.has(r)) return false;
    let prefixes = this.byPrincipal.get(r.principal);
    if (!prefixes) this.byPrincipal.set(r.principal, (prefixes = new Map()));
    let verbs = prefixes.get(r.prefix);
    if (!verbs) prefixes.set(r.prefix, (verbs = new Set()));
    verbs.add(r.verb);
    this.count++;
    return true;
  }

  /** False when there was no such rule. */
  delete(r: AclRule): boolean {
    const prefixes = this.byPrincipal.get(r.principal);
    const verbs = prefixes?.get(r.prefix);
    if (!prefixes || !verbs?.delete(r.verb)) return false;
    if (verbs.size === 0) prefixes.delete(r.prefix);
    if (prefixes.size === 0) this.byPrincipal.delete(r.principal);
    this.count--;
    return true;
  }

  isAdmin(principal: string): boolean {
    return this.byPrincipal.get(principal)?.get('')?.has('admin') ?? false;
  }

  /** The verbs `principal` holds on `name`: those of its longest rule prefix of `name` (empty: none matches). */
  verbsOn(principal: string, name: string): ReadonlySet<AclVerb> {
    let best: string | undefined;
    for (const prefix of this.byPrincipal.get(principal)?.keys() ?? []) {
      if (name.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
    }
    return best === undefined ? new Set() : this.byPrincipal.get(principal)!.get(best)!;
  }

  /** Whether `principal` holds `verb` on some prefix (Grant needs `lock` somewhere: a lease has no name). */
  holdsAnywhere(principal: string, verb: AclVerb): boolean {
    for (const verbs of this.byPrincipal.get(principal)?.values() ?? []) if (verbs.has(verb)) return true;
    return false;
  }

  /** Every rule, sorted by principal, prefix, verb (the snapshot order). */
  rules(principal?: string): AclRule[] {
    const out: AclRule[] = [];
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const principals = principal === undefined ? [...this.byPrincipal.keys()].sort(cmp) : this.byPrincipal.has(principal) ? [principal] : [];
    for (const p of principals) {
      const prefixes = this.byPrincipal.get(p)!;
      for (const prefix of [...prefixes.keys()].sort(cmp)) {
        for (const verb of ACL_VERBS) if (prefixes.get(prefix)!.has(verb)) out.push({ principal: p, prefix, verb });
      }
    }
    return out;
  }
}

/**
 * Whether `principal` may act on `name` with one of `anyOf` (admin: always). Example: Lock.Inspect
 * accepts `lock` or `read`, so alice with `lock` on "alice/" may inspect "alice/x" but not "bob/x".
 */
export function aclAllows(acl: AclTable, principal: string, name: string, anyOf: readonly AclVerb[]): boolean {
  if (acl.isAdmin(principal)) return true;
  const verbs = acl.verbsOn(principal, name);
  return anyOf.some((v) => verbs.has(v));
}
