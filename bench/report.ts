// The printed table, the ratios and the target checks, from the results of one run. Every figure
// is summarized over the run's repetitions (bench/lib/reps.ts: median [min–max]); ratios are of
// medians.
import type { Floors } from './floors/floors.js';
import type { PerCycle } from './lib/meter.js';
import { REPORTED_TYPES } from './lib/counters.js';
import { formatSpread, type Spread } from './lib/reps.js';
import type { ContendedResult } from './workloads/contended.js';
import type { FailoverResult } from './workloads/failover.js';
import type { KeepAliveResult } from './workloads/keepalive.js';
import type { UncontendedResult } from './workloads/uncontended.js';
import { round } from './lib/stats.js';

/** A workload's result with what its window cost (absent when the run was not metered). */
export type Metered<T> = T & { readonly per_cycle?: PerCycle };

/** One repetition's results of one system. */
export interface SystemResults {
  uncontended: Array<Metered<UncontendedResult>>;
  /** Every recipe measured (etcd: v3lock and the client-side mutex). */
  contended: Array<Metered<ContendedResult>>;
  keepalive?: KeepAliveResult;
  failover: FailoverResult[];
  /** lockd over its Session stream: the same uncontended/contended loops (`*_session` keys). */
  uncontended_session?: Array<Metered<UncontendedResult>>;
  contended_session?: Array<Metered<ContendedResult>>;
}

export type Head = Record<string, number | string | undefined>;

/** The headline keys of one repetition; the Session stream's uncontended/contended ones as `<key>_session`. */
export function headline(r: SystemResults): Head {
  const out = baseHeadline(r);
  if (r.uncontended_session || r.contended_session) {
    const s = baseHeadline({ uncontended: r.uncontended_session ?? [], contended: r.contended_session ?? [], failover: [] });
    for (const [k, v] of Object.entries(s)) if (v !== undefined && /^(un)?contended_/.test(k)) out[`${k}_session`] = v;
  }
  return out;
}

/** The workloads metered per cycle, with their key prefix and label. */
export const METERED: ReadonlyArray<[prefix: string, label: string]> = [
  ['uncontended_c1', 'uncontended C=1'],
  ['uncontended_c16', 'uncontended C=16'],
  ['uncontended_c64', 'uncontended C=64'],
  ['contended_16', 'contended C=16'],
  ['contended_2', 'contended C=2'],
];

/** `<prefix>_cpu_leader_ms`, `<prefix>_cpu_follower1_ms`, ..., `<prefix>_msgs_App`, ... of one metered run. */
export function perCycleKeys(prefix: string, p: PerCycle | undefined): Head {
  if (!p) return {};
  const out: Head = {
    [`${prefix}_cpu_servers_ms`]: round3(p.cpu_servers_ms),
    [`${prefix}_cpu_leader_ms`]: round3(p.cpu_leader_ms),
    [`${prefix}_cpu_loadgen_ms`]: round3(p.cpu_loadgen_ms),
    [`${prefix}_cpu_total_ms`]: round3(p.cpu_servers_ms + p.cpu_loadgen_ms),
  };
  p.cpu_followers_ms.forEach((ms, k) => (out[`${prefix}_cpu_follower${k + 1}_ms`] = round3(ms)));
  for (const [k, v] of Object.entries(p.counters)) if (v !== undefined && Number.isFinite(v)) out[`${prefix}_${k}`] = round3(v);
  return out;
}

const round3 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);

function baseHeadline(r: SystemResults): Head {
  const unc = (c: number) => r.uncontended.find((u) => u.clients === c);
  const best = (c: number) => r.contended.filter((x) => x.clients === c).sort((a, b) => b.handoffs_per_s - a.handoffs_per_s)[0];
  const out: Head = {
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
  const metered: Record<string, Metered<UncontendedResult> | Metered<ContendedResult> | undefined> = {
    uncontended_c1: unc(1),
    uncontended_c16: unc(16),
    uncontended_c64: unc(64),
    contended_16: best(16),
    contended_2: best(2),
  };
  for (const [prefix] of METERED) Object.assign(out, perCycleKeys(prefix, metered[prefix]?.per_cycle));
  return out;
}

type Row = [key: string, label: string, better: 'higher' | 'lower' | ''];

const HEADLINE_ROWS: Row[] = [
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

/** The per-cycle rows of one workload; followers up to `followers`. */
function perCycleRows(prefix: string, label: string, followers: number): Row[] {
  const rows: Row[] = [
    [`${prefix}_cpu_servers_ms`, `${label}: CPU ms/cycle, all servers`, 'lower'],
    [`${prefix}_cpu_leader_ms`, `${label}: CPU ms/cycle, leader`, 'lower'],
  ];
  for (let k = 1; k <= followers; k++) rows.push([`${prefix}_cpu_follower${k}_ms`, `${label}: CPU ms/cycle, follower ${k}`, 'lower']);
  rows.push(
    [`${prefix}_cpu_loadgen_ms`, `${label}: CPU ms/cycle, load generator`, 'lower'],
    [`${prefix}_msgs_sent`, `${label}: Raft messages/cycle (all nodes)`, 'lower'],
    ...REPORTED_TYPES.filter((t) => t !== 'HeartbeatResp').map((t): Row => [`${prefix}_msgs_${t}`, `${label}: ${t}/cycle`, '']),
    [`${prefix}_msgs_App_empty`, `${label}: App without entries/cycle (commit index or probe)`, 'lower'],
    [`${prefix}_leader_entries_per_app`, `${label}: entries per App (leader)`, 'higher'],
    [`${prefix}_leader_readies`, `${label}: Ready batches/cycle (leader)`, 'lower'],
    [`${prefix}_leader_entries_per_ready`, `${label}: proposals per Ready (leader)`, 'higher'],
    [`${prefix}_disk_synced`, `${label}: synced disk writes/cycle (all nodes; etcd: WAL fsyncs)`, 'lower'],
    [`${prefix}_disk_unsynced`, `${label}: unsynced LevelDB writes/cycle`, 'lower'],
    [`${prefix}_entries_per_persist`, `${label}: entries per synced write`, 'higher'],
  );
  return rows;
}

/** Every row of the table, for `followers` followers per cluster. */
export function tableRows(followers: number): Row[] {
  return [...HEADLINE_ROWS, ...METERED.flatMap(([p, l]) => perCycleRows(p, l, followers))];
}

/** a/b for each row key present in both (numbers); b's plain key is used when it has no `bSuffix` variant (etcd has no session). */
export function ratiosOf(a: Record<string, unknown>, b: Record<string, unknown>, aSuffix = '', bSuffix = ''): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key] of tableRows(8)) {
    const x = a[key + aSuffix];
    const y = b[key + bSuffix] ?? b[key];
    if (typeof x === 'number' && typeof y === 'number' && y !== 0 && Number.isFinite(x) && Number.isFinite(y)) out[key + aSuffix] = round(x / y);
  }
  return out;
}

/** lockd/etcd per key; `<key>_session` is lockd's session figure over etcd's (only) figure. */
export function ratios(lockd: Record<string, unknown>, etcd: Record<string, unknown>): Record<string, number> {
  return { ...ratiosOf(lockd, etcd), ...ratiosOf(lockd, etcd, '_session') };
}

export interface TableInput {
  /** Per system (in column order): each key's summary over the repetitions. */
  readonly systems: Record<string, Record<string, Spread | string>>;
  /** Per system: the medians (what the ratios are of). */
  readonly medians: Record<string, Record<string, number | string>>;
  readonly followers: number;
  readonly reps: number;
}

/**
 * One Markdown table, ready to paste: a column per system and API (lockd unary, lockd session, ...),
 * median [min–max] over the repetitions; ratio columns of medians: lockd/etcd for unary and session,
 * and lockd/lockd-base when a baseline ran. Rows nobody measured are left out.
 */
export function markdownTable(t: TableInput): string {
  const hasSession = (n: string) => Object.keys(t.systems[n]).some((k) => k.endsWith('_session'));
  const columns = Object.keys(t.systems).flatMap(
    (n) =>
      (hasSession(n)
        ? [
            [n, ''],
            [n, '_session'],
          ]
        : [[n, '']]) as Array<[string, string]>,
  );
  const ratioColumns: Array<[header: string, a: string, aSfx: string, b: string, bSfx: string]> = [];
  const m = t.medians;
  if (m.lockd && m.etcd) {
    ratioColumns.push(['lockd/etcd', 'lockd', '', 'etcd', '']);
    if (hasSession('lockd')) ratioColumns.push(['session/etcd', 'lockd', '_session', 'etcd', '']);
  }
  if (m.lockd && m['lockd-base']) {
    ratioColumns.push(['lockd/base', 'lockd', '', 'lockd-base', '']);
    if (hasSession('lockd') && hasSession('lockd-base')) ratioColumns.push(['session/base session', 'lockd', '_session', 'lockd-base', '_session']);
  }
  const ratioCells = ratioColumns.map(([, a, as, b, bs]) => ratiosOf(m[a], m[b], as, bs));
  const header = ['metric', ...columns.map(([n, sfx]) => (sfx ? `${n} session` : n)), ...ratioColumns.map(([h]) => h), 'better'];
  const rows: string[][] = [];
  for (const [key, label, better] of tableRows(t.followers)) {
    const cells = columns.map(([n, sfx]) => {
      const v = t.systems[n][key + sfx];
      if (v === undefined || typeof v === 'string') return '-';
      const recipe = key.startsWith('contended_') && key.endsWith('handoffs_per_s') ? t.systems[n][key.replace('handoffs_per_s', 'recipe') + sfx] : undefined;
      return `${formatSpread(v, fmtNumber)}${typeof recipe === 'string' && n === 'etcd' ? ` (${recipe})` : ''}`;
    });
    if (cells.every((c) => c === '-')) continue;
    const rs = ratioColumns.map(([, , as], k) => (ratioCells[k][key + as] === undefined ? '-' : `${ratioCells[k][key + as]}×`));
    rows.push([label, ...cells, ...rs, better]);
  }
  const align = header.map((_, k) => (k === 0 ? '---' : '---:'));
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [`${t.reps} repetition${t.reps === 1 ? '' : 's'}, median [min–max]; ratios of medians.`, '', line(header), line(align), ...rows.map(line)].join('\n');
}

/** Thousands separated, 3 significant digits below 100 (as round()). */
function fmtNumber(x: number): string {
  const r = round(x);
  return Math.abs(r) >= 1000 ? r.toLocaleString('en-US') : String(r);
}

export interface TargetCheck {
  readonly target: string;
  readonly actual: string;
  readonly met: boolean | undefined;
}

/** The performance targets (BENCHMARKS.md), on medians: `rat` lockd/etcd, `base` lockd-base's medians (the CPU target), `etcd` etcd's. */
export function targets(
  lockd: Record<string, unknown>,
  rat: Record<string, number> | undefined,
  floors: Floors | undefined,
  base?: Record<string, unknown>,
  etcd?: Record<string, unknown>,
): TargetCheck[] {
  const out: TargetCheck[] = [];
  const check = (target: string, v: number | undefined, ok: (v: number) => boolean, unit = '×') =>
    out.push({ target, actual: v === undefined ? 'n/a' : `${v}${unit}`, met: v === undefined ? undefined : ok(v) });
  const r = (k: string) => rat?.[k];
  // The targets of the performance round "part 2": the unary path ahead of etcd, contended ≥ 4×, keepalives in milliseconds.
  check('uncontended C=64 cycles/s ≥ 1.25× etcd (unary)', r('uncontended_c64_cycles_per_s'), (v) => v >= 1.25);
  check('uncontended C=64 cycles/s ≥ 3× etcd (session)', r('uncontended_c64_cycles_per_s_session'), (v) => v >= 3);
  check('uncontended C=1 acquire p50 ≤ 1× etcd (unary)', r('uncontended_c1_acquire_p50_ms'), (v) => v <= 1);
  check('uncontended C=1 acquire p50 ≤ 1× etcd (session)', r('uncontended_c1_acquire_p50_ms_session'), (v) => v <= 1);
  check('uncontended C=64 acquire p99 ≤ etcd (unary)', r('uncontended_c64_acquire_p99_ms'), (v) => v <= 1);
  check('uncontended C=64 acquire p99 ≤ etcd (session)', r('uncontended_c64_acquire_p99_ms_session'), (v) => v <= 1);
  check('contended C=16 handoffs/s ≥ 4× etcd, better recipe (unary)', r('contended_16_handoffs_per_s'), (v) => v >= 4);
  check('contended C=16 handoffs/s ≥ 4× etcd, better recipe (session)', r('contended_16_handoffs_per_s_session'), (v) => v >= 4);
  check('keepalive p50 ≤ 5× etcd', r('keepalive_latency_p50_ms'), (v) => v <= 5);
  for (const sfx of ['', '_session']) {
    const key = `uncontended_c64_cpu_servers_ms${sfx}`;
    const now = lockd[key];
    const was = base?.[key];
    const e = etcd?.[`uncontended_c64_cpu_servers_ms`];
    const api = sfx ? 'session' : 'unary';
    const v = typeof now === 'number' && typeof was === 'number' && was > 0 ? round(now / was) : undefined;
    out.push({
      target: `server CPU/cycle at uncontended C=64 ≤ ½ of lockd-base's (${api})`,
      actual:
        v === undefined ? (base ? 'n/a' : 'n/a (needs --lockd-baseline)') : `${v}× (${now} against ${was} ms; etcd ${typeof e === 'number' ? e : 'n/a'} ms)`,
      met: v === undefined ? undefined : v <= 0.5,
    });
  }
  const p50 = lockd.uncontended_c1_acquire_p50_ms;
  if (floors && typeof p50 === 'number') {
    const sum = floors.grpc_unary_rtt_p50_ms + floors.grpc_stream_rtt_p50_ms + floors.fsync_4k_p50_ms;
    out.push({
      target: `(floor) C=1 acquire p50 ≤ 1.3 × (gRPC ${floors.grpc_unary_rtt_p50_ms} + peer ${floors.grpc_stream_rtt_p50_ms} + fsync ${floors.fsync_4k_p50_ms} = ${round(sum)} ms) = ${round(1.3 * sum)} ms`,
      actual: `${p50} ms (${round(p50 / sum)}× the sum)`,
      met: p50 <= 1.3 * sum,
    });
  }
  const fo = r('failover_ms_median');
  if (fo !== undefined) check('failover ≤ etcd at equal timeouts', fo, (v) => v <= 1);
  return out;
}
