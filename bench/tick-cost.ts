// Milliseconds per applied Tick with many live leases: the cost every replica pays ten times a second.
//   npx tsx bench/tick-cost.ts [--leases 100000] [--ticks 300] [--renewals 1000] [--src DIR]
// --src runs the same workload against another checkout's src/ (e.g. /work/main/src) for a before/after.
// Leases get TTLs of 10-60 min, so a Tick expires nothing unless time reaches them: what it costs is
// finding the due leases (and renewing `--renewals` of them, round-robin).
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const { values } = parseArgs({
  options: {
    leases: { type: 'string', default: '100000' },
    ticks: { type: 'string', default: '300' },
    renewals: { type: 'string', default: '1000' },
    src: { type: 'string', default: join(import.meta.dirname, '..', 'src') },
  },
});
const leases = Number(values.leases);
const ticks = Number(values.ticks);
const renewals = Number(values.renewals);
const sm = (await import(pathToFileURL(resolve(values.src, 'lockd/state-machine/index.js')).href)) as typeof import('../src/lockd/state-machine/index.js');

const machine = new sm.LockStateMachine();
let index = 0;
const apply = (cmd: import('../src/lockd/state-machine/index.js').Command) => machine.apply({ index: ++index, data: sm.encodeCommand(cmd) });
for (let i = 0; i < leases; i++) apply({ type: 'Grant', ttlMs: 600_000 + ((i * 7919) % 3_000_000), marginMs: 200 });
const ids = machine.listLeases().map((l) => l.leaseId);

function run(label: string, renewPerTick: number): void {
  const times: number[] = [];
  let next = 0;
  for (let t = 0; t < ticks; t++) {
    const renewed: number[] = [];
    for (let k = 0; k < renewPerTick; k++) renewed.push(ids[next++ % ids.length]);
    const data = sm.encodeCommand({ type: 'Tick', elapsedMs: 100, marginMs: 200, renewed });
    const t0 = performance.now();
    machine.apply({ index: ++index, data });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  console.log(
    `${label.padEnd(22)} ${leases} leases: mean ${mean.toFixed(3)} ms, p50 ${q(0.5).toFixed(3)} ms, p99 ${q(0.99).toFixed(3)} ms per Tick (${ticks} Ticks)`,
  );
}

console.log(`src: ${values.src}`);
run('Tick, no renewals', 0);
run(`Tick, ${renewals} renewals`, renewals);
