// Every checker over a run directory: the clients' history files and the final values read after
// the run (finals.json). Used by the runner, and on its own to re-check a kept run:
//   npx tsx test/faults/check-run.ts .faults/run-...
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assembleOps, readRecords, type NoteRecord, type Op } from './history.js';
import { checkStore, type FinalValue, type StoreCheck } from './fencing-check.js';
import { checkExclusion, type ExclusionCheck } from './exclusion-check.js';
import { checkLinearizable, type LinearizabilityReport } from './linearizable-check.js';
import { checkRecipes, type RecipeCheck } from './recipe-check.js';

export interface Finals {
  fence: Record<string, FinalValue>;
  plain: Record<string, FinalValue>;
}

export interface RunChecks {
  ops: Op[];
  fenced: StoreCheck;
  control: StoreCheck;
  exclusion: ExclusionCheck;
  lin: LinearizabilityReport;
  /** Semaphores, read-write locks, lock-delay and elections (recipe-check.ts; not in `lin`). */
  recipes: RecipeCheck;
  /** The adversary's KeepAlive floods of never-granted lease ids: every answer must be ttl 0. */
  flood: FloodStats;
  problems: string[];
}

export interface FloodStats {
  batches: number;
  sent: number;
  answered: number;
  /** Answers ttl > 0 for an id never granted (each one a violation). */
  alive: number;
  errors: string[];
}

export function floodStats(notes: readonly NoteRecord[]): FloodStats {
  const f: FloodStats = { batches: 0, sent: 0, answered: 0, alive: 0, errors: [] };
  for (const n of notes) {
    if (n.what !== 'flood') continue;
    f.batches++;
    f.sent += Number(n.batch) || 0;
    f.answered += Number(n.answered) || 0;
    f.alive += Number(n.alive) || 0;
    if (n.error && f.errors.length < 5) f.errors.push(String(n.error));
  }
  return f;
}

export function saveFinals(runDir: string, finals: Finals): void {
  writeFileSync(join(runDir, 'finals.json'), JSON.stringify(finals));
}

export function checkRun(runDir: string, finals: Finals, budgetMs: number): RunChecks {
  const records = readdirSync(runDir)
    .filter((f) => f.startsWith('history-') && f.endsWith('.jsonl'))
    .flatMap((f) => readRecords(join(runDir, f)));
  const { ops, notes } = assembleOps(records);
  const fenced = checkStore(ops, 'fence', new Map(Object.entries(finals.fence)));
  const control = checkStore(ops, 'plain', new Map(Object.entries(finals.plain)));
  const exclusion = checkExclusion(ops);
  const lin = checkLinearizable(ops, budgetMs);
  const flood = floodStats(notes);
  const recipes = checkRecipes(ops);
  const problems: string[] = [];
  for (const v of recipes.violations) problems.push(`${v.checker} (${v.name}): ${v.detail}`);
  if (ops.some((o) => o.f === 'racquire' || o.f === 'campaign') && Object.values(recipes.grants).reduce((a, b) => a + b, 0) === 0)
    problems.push('no recipe grant was answered: the recipe clients made no progress');
  if (flood.alive) problems.push(`${flood.alive} keepalives of lease ids never granted were answered alive (ttl > 0)`);
  if (fenced.violations.length) problems.push(`${fenced.violations.length} fencing violations`);
  if (exclusion.violations.length) problems.push(`${exclusion.violations.length} grants to another lease while the holder's lease was trusted`);
  if (lin.verdict === 'illegal')
    problems.push(
      `not linearizable: ${lin.parts
        .filter((p) => p.verdict === 'illegal')
        .map((p) => p.part)
        .join(', ')}`,
    );
  // A search that gave up proves nothing: the run is not a pass. Re-check a kept run with
  // a larger budget: npx tsx test/faults/check-run.ts RUN_DIR.
  if (lin.verdict === 'unknown')
    problems.push(
      `linearizability not established (the search gave up on: ${lin.parts
        .filter((p) => p.verdict === 'unknown')
        .map((p) => p.part)
        .join(', ')})`,
    );
  if (fenced.writes.ok === 0) problems.push('no fenced write was acknowledged: the workload made no progress');
  return { ops, fenced, control, exclusion, lin, flood, recipes, problems };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: npx tsx test/faults/check-run.ts RUN_DIR\n');
    process.exit(2);
  }
  const finals = JSON.parse(readFileSync(join(dir, 'finals.json'), 'utf8')) as Finals;
  const c = checkRun(dir, finals, 120_000);
  const show = {
    problems: c.problems,
    fenced: { ...c.fenced, lostAcknowledged: c.fenced.lostAcknowledged.slice(0, 5), staleWindowLosses: c.fenced.staleWindowLosses.slice(0, 5) },
    exclusion: c.exclusion,
    recipes: c.recipes,
    flood: c.flood,
    linearizability: c.lin,
  };
  process.stdout.write(`${JSON.stringify(show, null, 2)}\n`);
  process.exit(c.problems.length ? 1 : 0);
}
