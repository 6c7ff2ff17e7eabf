// npm run faults -- --time SECONDS --seed S [--out report.json] [--keep] [--nodes 3|5] [--tls]
//   [--fenced-clients N] [--control-clients N] [--adversaries N] [--adversary-calls release,snipe,cancelwait,flood] [--recipe-clients N]
//   [--ttl-ms MS] [--kinds kill-node,pause-client,...] [--sticky]
// Runs one seeded fault run, prints its summary, writes the report, exits 1 on any violation.
import { parseArgs } from 'node:util';
import { emergencyStop, runFaults } from './runner.js';
import { FAULT_KINDS, type FaultKind } from './nemesis.js';
import { ADVERSARY_CALLS, type AdversaryCall } from './workload-config.js';

const USAGE =
  'usage: npm run faults -- --time SECONDS --seed S [--out report.json] [--keep] [--nodes 3|5] [--fenced-clients N] [--control-clients N] [--adversaries N] [--adversary-calls c1,c2] [--recipe-clients N] [--ttl-ms MS] [--kinds k1,k2] [--sticky] [--tls] [--no-fsync-control]';

function int(name: string, v: string | undefined, def: number | undefined, min: number, max: number): number {
  if (v === undefined) {
    if (def === undefined) throw new Error(`missing --${name}\n${USAGE}`);
    return def;
  }
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer in [${min}, ${max}], got "${v}"`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      time: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      nodes: { type: 'string' },
      'fenced-clients': { type: 'string' },
      'control-clients': { type: 'string' },
      adversaries: { type: 'string' },
      'adversary-calls': { type: 'string' },
      'recipe-clients': { type: 'string' },
      'ttl-ms': { type: 'string' },
      kinds: { type: 'string' },
      sticky: { type: 'boolean' },
      tls: { type: 'boolean' },
      'no-fsync-control': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const nodes = int('nodes', values.nodes, 5, 3, 5);
  if (nodes !== 3 && nodes !== 5) throw new Error('--nodes must be 3 or 5');
  const noFsyncControl = values['no-fsync-control'] === true;
  // The control is about power cuts: they are its default kinds, and it needs them.
  const kinds = (values.kinds?.split(',').map((k) => k.trim()) ?? (noFsyncControl ? ['power-cut'] : undefined)) as FaultKind[] | undefined;
  if (noFsyncControl && !kinds?.includes('power-cut')) throw new Error('--no-fsync-control needs power-cut in --kinds');
  for (const k of kinds ?? []) if (!FAULT_KINDS.includes(k)) throw new Error(`unknown fault kind "${k}"; kinds: ${FAULT_KINDS.join(', ')}`);
  const adversaryCalls =
    values['adversary-calls'] === undefined
      ? undefined
      : (values['adversary-calls']
          .split(',')
          .map((k) => k.trim())
          .filter((k) => k !== '') as AdversaryCall[]);
  for (const c of adversaryCalls ?? [])
    if (!ADVERSARY_CALLS.includes(c)) throw new Error(`unknown adversary call "${c}"; calls: ${ADVERSARY_CALLS.join(', ')}`);
  const report = await runFaults({
    timeSec: int('time', values.time, undefined, 1, 3600),
    seed: int('seed', values.seed, undefined, 0, 0xffffffff),
    out: values.out,
    keep: values.keep,
    nodes,
    fencedClients: int('fenced-clients', values['fenced-clients'], 4, 1, 16),
    controlClients: int('control-clients', values['control-clients'], 2, 0, 16),
    adversaries: int('adversaries', values.adversaries, 1, 0, 4),
    adversaryCalls,
    recipeClients: int('recipe-clients', values['recipe-clients'], 3, 0, 8),
    ttlMs: int('ttl-ms', values['ttl-ms'], 1500, 200, 60_000),
    kinds,
    sticky: values.sticky,
    tls: values.tls,
    noFsyncControl,
  });
  // The control passes when the build without fsync lost acknowledged state (the cuts are real).
  if (noFsyncControl) return report.noFsyncControl?.lostAcknowledgedState ? 0 : 1;
  return report.verdict === 'pass' ? 0 : 1;
}

process.on('exit', emergencyStop);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    emergencyStop();
    process.exit(130);
  });

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`faults: ${(e as Error)?.message ?? String(e)}\n`);
    process.exit(2);
  },
);
