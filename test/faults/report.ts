// The run's report: figures from the checkers, the verdict, and a short human summary.
import type { Op, OpKind, OpStatus } from './history.js';
import type { FaultRecord, PowerCutStats } from './nemesis.js';
import type { StoreCheck } from './fencing-check.js';
import type { ExclusionCheck } from './exclusion-check.js';
import type { LinearizabilityReport } from './linearizable-check.js';
import type { NodeLogScan } from './node-logs.js';
import type { FloodStats } from './check-run.js';
import type { RecipeCheck } from './recipe-check.js';

export interface FaultReport {
  seed: number;
  timeSec: number;
  startedAt: string;
  durationMs: number;
  config: Record<string, unknown>;
  ops: Record<string, Record<OpStatus, number>>;
  faults: { byKind: Record<string, number>; list: FaultRecord[] };
  fenced: {
    writes: StoreCheck['writes'];
    violations: StoreCheck['violations'];
    lostAcknowledgedWrites: number;
    staleWindowLosses: number;
    tokenRegressions: number;
    chainLength: Record<string, number>;
    overlappingHolders: number;
  };
  exclusion: { grants: number; violations: ExclusionCheck['violations'] };
  /** Semaphores, read-write locks, lock-delay, elections (recipe-check.ts). */
  recipes: RecipeCheck;
  /** The third-party client's calls (ok/fail/unknown by kind) and its KeepAlive floods. */
  adversary: { ops: Record<string, Record<OpStatus, number>>; flood: FloodStats };
  nodeLogs: NodeLogScan;
  linearizable: boolean | 'unknown';
  linearizability: LinearizabilityReport;
  control: {
    writes: StoreCheck['writes'];
    lostAcknowledgedWrites: number;
    tokenRegressions: number;
    overlappingHolders: number;
    anomaly: boolean;
    examples: StoreCheck['lostAcknowledged'];
  };
  /** With power-cut in the kinds: what the cuts dropped. */
  powerCuts?: PowerCutStats;
  /** The control build (--no-fsync-control, nodes with --unsafe-no-fsync): what the checkers found lost. */
  noFsyncControl?: {
    lostAcknowledgedWrites: number;
    fencingViolations: number;
    tokenRegressions: number;
    exclusionViolations: number;
    notLinearizable: boolean;
    recipeViolations: number;
    /** The control's own verdict: it must be true (the power cuts are real). */
    lostAcknowledgedState: boolean;
  };
  problems: string[];
  verdict: 'pass' | 'fail';
  keptAt?: string;
  /** A kept power-cut run: the nodes' disks (each node's lazyfs backing dir: what was durable). */
  disksAt?: string;
}

export function countOps(ops: readonly Op[], process: (p: string) => boolean = () => true): Record<string, Record<OpStatus, number>> {
  const out: Partial<Record<OpKind, Record<OpStatus, number>>> = {};
  for (const o of ops) {
    if (!process(o.process)) continue;
    const key = (
      o.f === 'read' || o.f === 'write'
        ? `${o.f}:${o.input.store}`
        : o.f === 'acquire' && o.input.retryOf
          ? 'acquire:attempt'
          : o.f === 'release' && o.input.adversary
            ? 'release:adversary'
            : o.f
    ) as OpKind;
    const c = (out[key] ??= { ok: 0, fail: 0, unknown: 0 });
    c[o.status]++;
  }
  return out as Record<string, Record<OpStatus, number>>;
}

export function summarize(r: FaultReport): string {
  const lines: string[] = [];
  const opsLine = Object.entries(r.ops)
    .map(([k, c]) => `${k} ${c.ok}/${c.fail}/${c.unknown}`)
    .join(', ');
  const control = r.noFsyncControl
    ? ` (the no-fsync control: ${r.noFsyncControl.lostAcknowledgedState ? 'acknowledged state lost, as it must be — exit 0' : 'nothing acknowledged was lost — exit 1'})`
    : '';
  lines.push(`fault run: seed ${r.seed}, ${r.timeSec} s (took ${(r.durationMs / 1000).toFixed(0)} s) — ${r.verdict.toUpperCase()}${control}`);
  lines.push(`  ops (ok/fail/unknown): ${opsLine}`);
  lines.push(
    `  faults: ${
      Object.entries(r.faults.byKind)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ') || 'none'
    }`,
  );
  lines.push(
    `  fenced: ${r.fenced.writes.ok} writes acknowledged, ${r.fenced.writes.refusedStale} stale writes refused, ` +
      `${r.fenced.lostAcknowledgedWrites} acknowledged writes lost, ${r.fenced.violations.length} fencing violations, ` +
      `${r.fenced.overlappingHolders} overlapping holders, ${r.fenced.staleWindowLosses} stale-window losses (write landed after its lease trust)`,
  );
  lines.push(`  exclusion within lease trust: ${r.exclusion.violations.length} violations over ${r.exclusion.grants} grants`);
  const rc = r.recipes;
  lines.push(
    `  recipes: grants ${Object.entries(rc.grants)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; most holders at once ${Object.entries(rc.maxHolders)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; ${rc.downgrades} downgrades, ${rc.setPermits} SetPermits, ` +
      `${rc.delaysJudged} lock-delays judged, ${rc.delayedAnswers} answers "delay running"; elections: ${rc.elections.campaigns} leaderships, ` +
      `${rc.elections.leaderReads} Leader reads, ${rc.elections.observed} Observe responses on ${rc.elections.streams} streams; ${rc.staleCalls} stale-actor calls, ${rc.crossCalls} mixed-recipe calls — ${rc.violations.length} violations`,
  );
  const adv = Object.entries(r.adversary.ops)
    .map(([k, c]) => `${k} ${c.ok}/${c.fail}/${c.unknown}`)
    .join(', ');
  const fl = r.adversary.flood;
  lines.push(
    `  adversary: ${adv || 'none'}; keepalive floods: ${fl.batches} batches, ${fl.sent} unknown ids sent, ${fl.answered} answered, ${fl.alive} answered alive`,
  );
  const parts = r.linearizability.parts.map((p) => `${p.part} ${p.verdict} (${p.ops} ops, ${p.elapsedMs} ms)`).join('; ');
  lines.push(`  linearizable: ${r.linearizable} — ${parts}`);
  lines.push(
    `  control (unfenced): ${r.control.writes.ok} writes acknowledged, ${r.control.lostAcknowledgedWrites} lost, ` +
      `${r.control.tokenRegressions} stale overwrites, ${r.control.overlappingHolders} overlapping holders — anomaly ${r.control.anomaly ? 'SHOWN' : 'not shown'}`,
  );
  lines.push(`  node logs: ${r.nodeLogs.errors} errors, ${r.nodeLogs.fatal} fatal, ${r.nodeLogs.stray.length} non-log lines`);
  const pc = r.powerCuts;
  if (pc) lines.push(`  power cuts: ${pc.cuts} (${pc.nodesCut} node power cuts, ${pc.torn} torn), ${pc.bytes} unsynced bytes in ${pc.files} files lost`);
  const nf = r.noFsyncControl;
  if (nf)
    lines.push(
      `  NO-FSYNC CONTROL (nodes ran with --unsafe-no-fsync): acknowledged state ${nf.lostAcknowledgedState ? 'LOST, as it must be' : 'NOT lost: the power cuts showed nothing'} — ` +
        `${nf.lostAcknowledgedWrites} acknowledged fenced writes lost, ${nf.fencingViolations} fencing violations, ${nf.tokenRegressions} token regressions, ` +
        `${nf.exclusionViolations} exclusion violations, linearizable ${!nf.notLinearizable}, ${nf.recipeViolations} recipe violations`,
    );
  for (const p of r.problems) lines.push(`  PROBLEM: ${p}`);
  if (r.keptAt) lines.push(`  history and node logs kept in ${r.keptAt}`);
  if (r.disksAt) lines.push(`  the nodes' disks (durable contents) kept in ${r.disksAt}`);
  return lines.join('\n');
}
