// Per-principal quotas (state-machine/quotas.ts) on /metrics: for each quota, its limit and what a
// principal uses of it, from this node's applied state, read at scrape time. Label cardinality is
// bounded: only the QUOTA_METRIC_PRINCIPALS principals nearest to one of their limits (used / limit,
// the largest of their quotas) get series, the shared principal '*' (every caller without --acl)
// always among them; lockd_quota_principals says how many principals there are in all, so an
// operator sees when some are not shown. Ranking is O(principals) per scrape.
import { Gauge, type Registry } from 'prom-client';
import { QUOTA_KEYS, QUOTA_NAMES, SHARED_PRINCIPAL, type LockStateMachine, type Quotas } from '../state-machine/index.js';

/** Principals given series per scrape (plus none: '*' is one of them). */
export const QUOTA_METRIC_PRINCIPALS = 10;

export type QuotaSource = Pick<LockStateMachine, 'quotaPrincipals' | 'quotaOf' | 'quotaUsage'>;

interface Row {
  readonly principal: string;
  readonly limit: Quotas;
  readonly used: Quotas;
  readonly fill: number;
}

/** The principals shown: '*' and the fullest others, at most `n` in all. */
export function shownPrincipals(sm: QuotaSource, n = QUOTA_METRIC_PRINCIPALS): { rows: Row[]; total: number } {
  const all = sm.quotaPrincipals();
  const rows = all.map((principal) => {
    const limit = sm.quotaOf(principal);
    const used = sm.quotaUsage(principal);
    let fill = 0;
    for (const k of QUOTA_KEYS) if (limit[k] > 0) fill = Math.max(fill, used[k] / limit[k]);
    return { principal, limit, used, fill };
  });
  const shared = rows.filter((r) => r.principal === SHARED_PRINCIPAL);
  const others = rows.filter((r) => r.principal !== SHARED_PRINCIPAL).sort((a, b) => b.fill - a.fill || (a.principal < b.principal ? -1 : 1));
  return { rows: [...shared, ...others.slice(0, Math.max(0, n - shared.length))], total: all.length };
}

export function quotaMetrics(sm: QuotaSource, registers: Registry[]): void {
  new Gauge({
    name: 'lockd_quota_limit',
    help: `Per-principal quotas in force (lockctl acl quota), by principal and quota; only the ${QUOTA_METRIC_PRINCIPALS} principals nearest a limit ('*': every caller without --acl).`,
    labelNames: ['principal', 'quota'],
    registers,
    collect() {
      this.reset(); // principals no longer shown lose their series
      for (const r of shownPrincipals(sm).rows) for (const k of QUOTA_KEYS) this.set({ principal: r.principal, quota: QUOTA_NAMES[k] }, r.limit[k]);
    },
  });
  new Gauge({
    name: 'lockd_quota_used',
    help: "What a principal uses of each quota in this node's applied state (the principals lockd_quota_limit shows).",
    labelNames: ['principal', 'quota'],
    registers,
    collect() {
      this.reset();
      for (const r of shownPrincipals(sm).rows) for (const k of QUOTA_KEYS) this.set({ principal: r.principal, quota: QUOTA_NAMES[k] }, r.used[k]);
    },
  });
  new Gauge({
    name: 'lockd_quota_principals',
    help: "Principals that use some quota or have quotas set, '*' included (lockd_quota_limit shows at most the fullest few).",
    registers,
    collect() {
      this.set(sm.quotaPrincipals().length);
    },
  });
}
