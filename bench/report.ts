// The printed table, the ratios and the target checks, from the results of one run.
import type { Floors } from './floors/floors.js';
import type { ContendedResult } from './workloads/contended.js';
import type { FailoverResult } from './workloads/failover.js';
import type { KeepAliveResult } from './workloads/keepalive.js';
import type { UncontendedResult } from './workloads/uncontended.js';
import { round } from './lib/stats.js';

export interface SystemResults {
  uncontended: UncontendedResult[];
  /** Every recipe measured (etcd: v3lock and the client-side mutex). */
  contended: ContendedResult[];
  keepalive?: KeepAliveResult;
  failover: FailoverResult[];
  /** lockd over its Session stream: the same uncontended/contended loops (`*_session` keys). */
  uncontended_session?: UncontendedResult[];
  contended_session?: ContendedResult[];
}

/** The headline keys also measured over lockd's Session stream, reported as `<key>_session`. */
export const SESSION_KEYS = [
  'uncontended_c1_acquire_p50_ms',
  'uncontended_c1_cycles_per_s',
  'uncontended_c16_cycles_per_s',
  'uncontended_c64_cycles_per_s',
  'uncontended_c64_acquire_p50_ms',
  'uncontended_c64_acquire_p99_ms',
  'contended_16_handoffs_per_s',
  'contended_16_wait_p50_ms',
  'contended_2_handoffs_per_s',
] as const;

/** The headline keys the issue asks for, plus the rest of the table. */
export function headline(r: SystemResults): Record<string, number | string | undefined> {
  const out = baseHeadline(r);
  if (r.uncontended_session || r.contended_session) {
    const s = baseHeadline({ uncontended: r.uncontended_session ?? [], contended: r.contended_session ?? [], failover: [] });
    for (const k of SESSION_KEYS) if (s[k] !== undefined) out[`${k}_session`] = s[k];
  }
  return out;
}

function baseHeadline(r: SystemResults): Record<string, number | string | undefined> {
  const unc = (c: number) => r.uncontended.find((u) => u.clients === c);
  const best = (c: number) =>
    r.contended.filter((x) => x.clients === c).sort((a, b) => b.handoffs_per_s - a.handoffs_per_s)[0];
  return {
    uncontended_c1_acquire_p50_ms: unc(1)?.acquire_p50_ms,
    uncontended_c1_cycles_per_s: unc(1)?.cycles_per_s,
    uncontended_c16_cycles_per_s: unc(16)?.cycles_per_s,
    uncontended_c64_cycles_per_s: unc(64)?.cycles_per_s,
    uncontended_c64_acquire_p50_ms: unc(64)?.acquire_p50_ms,
    uncontended_c64_acquire_p99_ms: unc(64)?.acquire_p99_ms,
    contended_16_handoffs_per_s: best(16)?.handoffs_per_s,
    contended_16_recipe: best(16)?.recipe,
    contended_16_wait_p50_ms: best(16)?.wait_p50_ms,
    contended_2_handoffs_per_s: best(2)?.handoffs_per_s,
    contended_2_recipe: best(2)?.recipe,
    keepalive_latency_p50_ms: r.keepalive?.latency_p50_ms,
    keepalive_latency_p99_ms: r.keepalive?.latency_p99_ms,
    keepalive_leader_cpu_percent: r.keepalive?.leader_cpu_percent,
    failover_ms_median: r.failover[0]?.median_ms,
    failover_defaults_ms_median: r.failover.find((f) => f.setting.startsWith('lockd defaults'))?.median_ms,
  };
}

const ROWS: Array<[key: string, label: string, better: 'higher' | 'lower']> = [
  ['uncontended_c1_acquire_p50_ms', 'uncontended C=1 acquire p50 (ms)', 'lower'],
  ['uncontended_c1_cycles_per_s', 'uncontended C=1 cycles/s', 'higher'],
  ['uncontended_c16_cycles_per_s', 'uncontended C=16 cycles/s', 'higher'],
  ['uncontended_c64_cycles_per_s', 'uncontended C=64 cycles/s', 'higher'],
  ['uncontended_c64_acquire_p50_ms', 'uncontended C=64 acquire p50 (ms)', 'lower'],
  ['uncontended_c64_acquire_p99_ms', 'uncontended C=64 acquire p99 (ms)', 'lower'],
  ['contended_16_handoffs_per_s', 'contended C=16 handoffs/s', 'higher'],
  ['contended_16_wait_p50_ms', 'contended C=16 acquire wait p50 (ms)', 'lower'],
  ['contended_2_handoffs_per_s', 'contended C=2 handoffs/s', 'higher'],
  ['keepalive_latency_p50_ms', 'keepalive latency p50 (ms)', 'lower'],
  ['keepalive_latency_p99_ms', 'keepalive latency p99 (ms)', 'lower'],
  ['keepalive_leader_cpu_percent', 'keepalive leader CPU (% of a core)', 'lower'],
  ['failover_ms_median', 'failover, equal timeouts (ms, median)', 'lower'],
];

/** lockd/etcd per key; `<key>_session` is lockd's session figure over etcd's (only) figure. */
export function ratios(lockd: Record<string, unknown>, etcd: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key] of ROWS) {
    const b = etcd[key];
    if (typeof b !== 'number' || b === 0) continue;
    for (const k of [key, `${key}_session`]) {
      const a = lockd[k];
      if (typeof a === 'number') out[k] = round(a / b);
    }
  }
  return out;
}

/** Columns: each system, then "<system> session" when it has session figures; the ratios likewise. */
export function table(systems: Record<string, Record<string, unknown>>, rat: Record<string, number> | undefined): string {
  const hasSession = (n: string) => Object.keys(systems[n]).some((k) => k.endsWith('_session'));
  const columns = Object.keys(systems).flatMap((n) => (hasSession(n) ? [[n, ''], [n, '_session']] : [[n, '']]) as Array<[string, string]>);
  const ratioColumns: Array<[string, string]> = rat ? [['lockd/etcd', ''], ...(systems.lockd && hasSession('lockd') ? [['session/etcd', '_session'] as [string, string]] : [])] : [];
  const header = ['metric', ...columns.map(([n, sfx]) => (sfx ? `${n} session` : n)), ...ratioColumns.map(([h]) => h), 'better'];
  const rows = ROWS.map(([key, label, better]) => {
    const cells = columns.map(([n, sfx]) => {
      const v = systems[n][key + sfx];
      const recipe = key.startsWith('contended_') && key.endsWith('handoffs_per_s') ? systems[n][key.replace('handoffs_per_s', 'recipe')] : undefined;
      return v === undefined ? '-' : `${v}${recipe && n === 'etcd' ? ` (${recipe})` : ''}`;
    });
    const ratios = ratioColumns.map(([, sfx]) => (rat?.[key + sfx] === undefined ? '-' : `${rat[key + sfx]}×`));
    return [label, ...cells, ...ratios, better];
  });
  const widths = header.map((_, k) => Math.max(header[k].length, ...rows.map((r) => r[k].length)));
  const line = (r: string[]) => r.map((c, k) => (k === 0 ? c.padEnd(widths[k]) : c.padStart(widths[k]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export interface TargetCheck {
  readonly target: string;
  readonly actual: string;
  readonly met: boolean | undefined;
}

export function targets(lockd: Record<string, unknown>, rat: Record<string, number> | undefined, floors: Floors | undefined): TargetCheck[] {
  const out: TargetCheck[] = [];
  const r = (k: string) => rat?.[k];
  // Each lock target is checked for the unary client and, when measured, for the Session stream.
  const apis = (key: string): Array<[string, string]> => [
    ['', key],
    ...(lockd[`${key}_session`] !== undefined ? [[' (session)', `${key}_session`] as [string, string]] : []),
  ];
  for (const [api, k] of apis('uncontended_c64_cycles_per_s')) {
    const c64 = r(k);
    out.push({ target: `uncontended C=64 cycles/s ≥ 2× etcd${api}`, actual: c64 === undefined ? 'n/a' : `${c64}×`, met: c64 === undefined ? undefined : c64 >= 2 });
  }
  for (const [api, k] of apis('contended_16_handoffs_per_s')) {
    const c16 = r(k);
    out.push({ target: `contended C=16 handoffs/s ≥ 10× etcd (better recipe)${api}`, actual: c16 === undefined ? 'n/a' : `${c16}×`, met: c16 === undefined ? undefined : c16 >= 10 });
  }
  for (const [api, k] of apis('uncontended_c1_acquire_p50_ms')) {
    const p50 = lockd[k];
    if (!floors || typeof p50 !== 'number') continue;
    const sum = floors.grpc_unary_rtt_p50_ms + floors.grpc_stream_rtt_p50_ms + floors.fsync_4k_p50_ms;
    out.push({
      target: `C=1 acquire p50${api} ≤ 1.5 × (gRPC ${floors.grpc_unary_rtt_p50_ms} + peer ${floors.grpc_stream_rtt_p50_ms} + fsync ${floors.fsync_4k_p50_ms} = ${round(sum)} ms) = ${round(1.5 * sum)} ms`,
      actual: `${p50} ms (${round(p50 / sum)}× the sum)`,
      met: p50 <= 1.5 * sum,
    });
  }
  const fo = r('failover_ms_median');
  out.push({ target: 'failover ≤ etcd at equal timeouts', actual: fo === undefined ? 'n/a' : `${fo}×`, met: fo === undefined ? undefined : fo <= 1 });
  return out;
}
