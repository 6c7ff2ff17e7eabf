// Server CPU per lock cycle under a fixed load, load-insensitive: a 3-node cluster of a BUILT lockd
// (--main, default this tree's dist/), C unary clients doing a fixed number of acquire → release
// cycles on their own names, and the nodes' utime + stime read from /proc/<pid>/stat before and
// after (the CPU they used, not the wall time a loaded machine stretches). With --cpu-prof DIR each
// node also writes a V8 CPU profile on exit, for the shares of the codec functions.
//   npx tsx scripts/cpu-per-cycle.ts [--main PATH] [--cycles 4000] [--clients 16] [--cpu-prof DIR]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../src/proto/lockd-package.js';
import { Proc, freePort, waitFor } from '../bench/lib/procs.js';
import { LockdLocker } from '../bench/systems/lockd-locker.js';

const { values } = parseArgs({
  options: {
    main: { type: 'string', default: join(import.meta.dirname, '..', 'dist', 'src', 'lockd', 'main.js') },
    cycles: { type: 'string', default: '4000' },
    clients: { type: 'string', default: '16' },
    'cpu-prof': { type: 'string' },
  },
});
const CYCLES = Number(values.cycles);
const CLIENTS = Number(values.clients);
const TICKS_PER_S = 100; // getconf CLK_TCK on Linux

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S; // utime, stime: fields 14, 15
}

const base = mkdtempSync(join(tmpdir(), 'lockd-cpu-cycle-'));
const ids = ['n1', 'n2', 'n3'];
const client = new Map<string, string>();
const peer = new Map<string, string>();
for (const id of ids) {
  client.set(id, `127.0.0.1:${await freePort()}`);
  peer.set(id, `127.0.0.1:${await freePort()}`);
}
const peers = ids.map((id) => `${id}=${peer.get(id)!}`).join(',');
const procs = ids.map((id) => {
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', values['cpu-prof'], '--cpu-prof-name', `${id}.cpuprofile`] : [];
  const args = [
    ...prof,
    values.main!,
    '--id',
    id,
    '--listen',
    client.get(id)!,
    '--peer-listen',
    peer.get(id)!,
    '--peers',
    peers,
    '--data-dir',
    join(base, id),
    '--cluster-id',
    `cpu-${process.pid}`,
  ];
  return new Proc(`lockd ${id}`, process.execPath, args, join(base, `${id}.log`));
});
try {
  const leaderAddress = await waitFor(
    'a leader',
    async () => {
      for (const id of ids) {
        const c = new lockdProto.lockd.v1.Cluster(client.get(id)!, grpc.credentials.createInsecure());
        const st = await new Promise<{ role: string } | undefined>((r) =>
          c.Status({}, { deadline: Date.now() + 500 }, (e, s) => r(e ? undefined : (s as { role: string }))),
        );
        c.close();
        if (st?.role === 'leader') return client.get(id)!;
      }
      return undefined;
    },
    20_000,
    50,
  );
  const lockers = Array.from({ length: CLIENTS }, () => new LockdLocker(leaderAddress));
  const leases = await Promise.all(lockers.map((l) => l.grant(60_000)));
  const run = async (total: number): Promise<void> => {
    let left = total;
    await Promise.all(
      lockers.map(async (l, k) => {
        while (left-- > 0) await l.release(await l.acquire(`cpu-${k}`, leases[k], 10_000), 10_000);
      }),
    );
  };
  await run(Math.min(500, CYCLES)); // warm-up: JIT, connections
  const before = procs.map((p) => cpuMs(p.pid));
  const t0 = performance.now();
  await run(CYCLES);
  const wallMs = performance.now() - t0;
  const used = procs.map((p, k) => cpuMs(p.pid) - before[k]);
  const total = used.reduce((a, b) => a + b, 0);
  console.log(
    JSON.stringify({
      main: values.main,
      cycles: CYCLES,
      clients: CLIENTS,
      server_cpu_ms: Object.fromEntries(ids.map((id, k) => [id, used[k]])),
      server_cpu_us_per_cycle: Math.round((total * 1000) / CYCLES),
      wall_ms: Math.round(wallMs),
    }),
  );
  for (const l of lockers) l.close();
} finally {
  await Promise.all(procs.map((p) => p.stop('SIGTERM', 10_000)));
  rmSync(base, { recursive: true, force: true });
}
