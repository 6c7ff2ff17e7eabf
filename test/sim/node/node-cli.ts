// The whole-node world's part of `npm run sim` (../cli.ts hands over on --app node):
//   --app node --seed S [--bug B] [--nodes N]          one seed: its stats, faults and violations
//   --app node --seeds N [--start K] [--bug B]         N seeds; last line "sim node: N seeds, V violations"
//   --app node --catch-rates [--seeds N] [--json]      every planted bug of bugs.ts and the correct build
import { NODE_BUGS, type NodeBug } from './bugs.js';
import { runNodeSeed, type NodeRunReport } from './run.js';

export interface NodeCliArgs {
  readonly seed?: number;
  readonly seeds?: number;
  readonly start: number;
  readonly bug?: NodeBug;
  readonly nodes?: number;
  readonly catchRates: boolean;
  readonly json: boolean;
  readonly durationMs?: number;
}

export function parseNodeBug(v: string | undefined): NodeBug {
  if (!NODE_BUGS.includes(v as NodeBug)) throw new Error(`--bug with --app node must be one of ${NODE_BUGS.join(', ')}, got ${v ?? 'nothing'}`);
  return v as NodeBug;
}

/** `npm run sim -- --app node ...`'s arguments (see the file comment); throws on a bad one. */
export function parseNodeArgs(argv: readonly string[]): NodeCliArgs {
  const a: { -readonly [K in keyof NodeCliArgs]: NodeCliArgs[K] } = { start: 1, catchRates: false, json: false };
  const int = (flag: string, v: string | undefined, min: number): number => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) throw new Error(`${flag} needs an integer ≥ ${min}, got ${v ?? 'nothing'}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const v = argv[i + 1];
    switch (flag) {
      case '--app':
        i++;
        break;
      case '--seed':
        a.seed = int(flag, v, 0);
        i++;
        break;
      case '--seeds':
        a.seeds = int(flag, v, 1);
        i++;
        break;
      case '--start':
        a.start = int(flag, v, 0);
        i++;
        break;
      case '--nodes':
        a.nodes = int(flag, v, 1);
        i++;
        break;
      case '--duration-ms':
        a.durationMs = int(flag, v, 8000);
        i++;
        break;
      case '--bug':
        a.bug = parseNodeBug(v);
        i++;
        break;
      case '--catch-rates':
        a.catchRates = true;
        break;
      case '--json':
        a.json = true;
        break;
      default:
        throw new Error(
          `--app node: unknown argument ${JSON.stringify(flag)} (--seed S | --seeds N [--start K] | --catch-rates [--seeds N] [--json]) [--bug ${NODE_BUGS.join('|')}] [--nodes N] [--duration-ms MS]`,
        );
    }
  }
  if (!a.catchRates && (a.seed === undefined) === (a.seeds === undefined)) throw new Error('--app node: give exactly one of --seed, --seeds or --catch-rates');
  return a;
}

function line(r: NodeRunReport): string {
  const v = r.violations[0];
  return `seed ${r.seed}${r.bug ? ` [${r.bug}]` : ''}: ${r.violations.length} violations${v ? ` — first: ${v.kind} at ${v.at} ms: ${v.message}` : ''}`;
}

/** Seeds start..start+n-1 with `bug`: how many caught (any violation) and the first seed that was. */
export async function catchRate(
  bug: NodeBug | undefined,
  start: number,
  n: number,
  durationMs?: number,
): Promise<{ caught: number; firstSeed: number | null; violations: number; ms: number }> {
  let caught = 0;
  let violations = 0;
  let firstSeed: number | null = null;
  const t0 = Date.now();
  for (let s = start; s < start + n; s++) {
    const r = await runNodeSeed({ seed: s, ...(bug ? { bug } : {}), ...(durationMs ? { durationMs } : {}) });
    violations += r.violations.length;
    if (r.violations.length > 0) {
      caught++;
      firstSeed ??= s;
    }
  }
  return { caught, firstSeed, violations, ms: Date.now() - t0 };
}

export async function nodeMain(a: NodeCliArgs): Promise<number> {
  if (a.catchRates) {
    const n = a.seeds ?? 100;
    const bugs = [];
    for (const bug of NODE_BUGS) {
      const r = await catchRate(bug, a.start, n, a.durationMs);
      bugs.push({ bug, caught: r.caught, firstSeed: r.firstSeed });
      if (!a.json) console.log(`${bug.padEnd(28)} caught ${r.caught}/${n}, first seed ${r.firstSeed ?? '-'} (${(r.ms / 1000).toFixed(1)} s)`);
    }
    const c = await catchRate(undefined, a.start, n, a.durationMs);
    if (a.json) console.log(JSON.stringify({ seeds: n, bugs, correct: { violations: c.violations } }));
    else console.log(`${'correct build'.padEnd(28)} ${c.violations} violations in ${c.caught}/${n} seeds (${(c.ms / 1000).toFixed(1)} s)`);
    return c.violations > 0 ? 1 : 0;
  }
  if (a.seed !== undefined) {
    const r = await runNodeSeed({
      seed: a.seed,
      ...(a.bug ? { bug: a.bug } : {}),
      ...(a.nodes ? { nodes: a.nodes } : {}),
      ...(a.durationMs ? { durationMs: a.durationMs } : {}),
    });
    console.log(`faults: ${r.faults.join('; ') || 'none'}`);
    for (const v of r.violations) console.log(`VIOLATION ${v.kind} at ${v.at} ms: ${v.message}`);
    console.log(`stats: ${JSON.stringify(r.stats)}`);
    console.log(`digest ${r.digest}`);
    console.log(line(r));
    return r.violations.length > 0 ? 1 : 0;
  }
  const n = a.seeds ?? 10;
  let total = 0;
  const t0 = Date.now();
  for (let s = a.start; s < a.start + n; s++) {
    const r = await runNodeSeed({
      seed: s,
      ...(a.bug ? { bug: a.bug } : {}),
      ...(a.nodes ? { nodes: a.nodes } : {}),
      ...(a.durationMs ? { durationMs: a.durationMs } : {}),
    });
    total += r.violations.length;
    if (r.violations.length > 0) console.log(line(r));
  }
  console.log(`sim node: ${n} seeds, ${total} violations (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return total > 0 ? 1 : 0;
}
