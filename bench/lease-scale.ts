// How the state machine's lease costs grow with the number of live leases (the scale
// figures, in one process: what every replica pays on its loop). For N leases:
//   npx tsx --expose-gc bench/lease-scale.ts --leases 1000000
// grants N (Grant entries, encoded and applied as a node applies them; the cap raised to N for
// this process only: LockStateMachineOptions.maxLeases), then: heap and RSS they take, a Tick
// that expires nothing (mean / max of 50), snapshot encode time and bytes, restore time, and
// every lease expiring at once (Ticks it takes at MAX_TICK_EXPIRY_WORK per Tick, the longest
// Tick, the total of their apply times). Run one N per process, so each starts from an empty heap.
import { parseArgs } from 'node:util';
import * as sm from '../src/lockd/state-machine/index.js';
import { MAX_TICK_EXPIRY_WORK } from '../src/lockd/state-machine/limits.js';

const { values } = parseArgs({ options: { leases: { type: 'string', default: '100000' } } });
const N = Number(values.leases);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const MiB = 1024 * 1024;
const mem = () => {
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed + m.external + m.arrayBuffers, rss: m.rss };
};

const machine = new sm.LockStateMachine({ maxLeases: N });
let index = 0;
const apply = (data: Uint8Array) => machine.apply({ index: ++index, data });
const TTL = 60_000;
const m0 = mem();
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const r = apply(sm.encodeCommand({ type: 'Grant', ttlMs: TTL, marginMs: 200 }));
  if (i === 0 && !r.result?.ok) throw new Error(`grant refused: ${JSON.stringify(r.result)}`);
}
const grantMs = performance.now() - t0;
const m1 = mem();

const idle: number[] = [];
for (let t = 0; t < 50; t++) {
  const data = sm.encodeCommand({ type: 'Tick', elapsedMs: 100, marginMs: 200, renewed: [], expiryWork: MAX_TICK_EXPIRY_WORK });
  const s = performance.now();
  apply(data);
  idle.push(performance.now() - s);
}

let s = performance.now();
const snap = machine.snapshot();
const snapMs = performance.now() - s;
s = performance.now();
const restored = sm.LockStateMachine.fromSnapshot(snap, { maxLeases: N });
const restoreMs = performance.now() - s;
if (restored.leaseCounts().live !== machine.leaseCounts().live) throw new Error('restore lost leases');

// Every lease due at once: logical time advanced (a Tick counts at most 200 ms) to their deadline,
// then Ticks until none is left; timed from the first Tick that expires any.
let ticks = 0;
let longest = 0;
let expiryMs = 0;
for (let guard = 0; machine.hasLiveLeases(); guard++) {
  const data = sm.encodeCommand({ type: 'Tick', elapsedMs: 200, marginMs: 200, renewed: [], expiryWork: MAX_TICK_EXPIRY_WORK });
  const a = performance.now();
  const out = apply(data);
  const ms = performance.now() - a;
  if (ticks > 0 || out.events.length > 0) {
    ticks++;
    longest = Math.max(longest, ms);
    expiryMs += ms;
  }
  if (guard > TTL / 200 + N / MAX_TICK_EXPIRY_WORK + 100) throw new Error(`expiry not done after ${guard} Ticks`);
}

const f = (x: number, d = 1) => x.toFixed(d);
console.log(
  JSON.stringify({
    leases: N,
    grantsPerS: Math.round(N / (grantMs / 1000)),
    heapMiB: +f((m1.heap - m0.heap) / MiB),
    rssMiB: +f(m1.rss / MiB),
    bytesPerLease: Math.round((m1.heap - m0.heap) / N),
    idleTickMeanMs: +f(idle.reduce((a, b) => a + b, 0) / idle.length, 3),
    idleTickMaxMs: +f(Math.max(...idle), 3),
    snapshotMiB: +f(snap.byteLength / MiB, 2),
    snapshotMs: Math.round(snapMs),
    restoreMs: Math.round(restoreMs),
    expiryTicks: ticks,
    expiryLongestTickMs: +f(longest),
    expiryTotalMs: Math.round(expiryMs),
  }),
);
