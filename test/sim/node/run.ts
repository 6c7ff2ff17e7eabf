// One seed of the whole-node world: N simulated lockd nodes (host.ts) running the real driver,
// lease clock and lock API, simulated clients (client.ts) calling them over the simulated network,
// and a nemesis drawing this seed's own fault mix (swarm testing): node-to-node partitions (often
// of the leader), node pauses, message-loss bursts, wall clocks that step or run fast. The last
// CALM_MS are calm; then clients stop, and checks.ts judges everything they were told.
// Deterministic per seed: replay with `npm run sim -- --app node --seed S`.
import { lockApiRegistrar } from '../../../src/lockd/api/lock-api.js';
import { hashString, Prng } from '../prng.js';
import { adaptersFor, type NodeBug } from './bugs.js';
import { Rpc, type ClientStream } from './calls.js';
import { checkObserve, checkOpenCalls, checkRun } from './checks.js';
import { checkGrantPromises } from './promise-checks.js';
import { SimObserver, type ObservedStream } from './observer.js';
import { ELECTION, SimClient, type ClientLog, type LockSpec } from './client.js';
import { NodeHost, type HostSettings } from './host.js';
import { Net } from './net.js';
import { Oracle, type Violation } from './oracle.js';
import { SimForwarder } from './sim-forwarder.js';
import { NodeClock, World } from './world.js';

export interface NodeRunOptions {
  readonly seed: number;
  readonly nodes?: number;
  readonly clients?: number;
  /** Simulated run time, ms (the last CALM_MS of it calm). */
  readonly durationMs?: number;
  readonly bug?: NodeBug;
  /** For debugging a seed: sees the oracle and the clients' log once the run is over. */
  readonly inspect?: (x: { oracle: Oracle; log: ClientLog }) => void;
}

export interface NodeRunReport {
  readonly seed: number;
  readonly bug?: NodeBug;
  readonly violations: readonly Violation[];
  readonly stats: Record<string, number>;
  /** Hash of what happened (committed log terms, every answer): equal for equal seeds. */
  readonly digest: string;
  readonly faults: string[];
}

export const DEFAULT_NODE_DURATION_MS = 40_000;
const CALM_MS = 6_000;
const locks = (): LockSpec[] => [
  { name: 'm0', permits: 1, lockDelayMs: 0 },
  { name: 'm1', permits: 1, lockDelayMs: 0 },
  { name: 's0', permits: 3, lockDelayMs: 300 },
  { name: 's1', permits: 1, lockDelayMs: 500, permitRange: [1, 4] },
];

export async function runNodeSeed(o: NodeRunOptions): Promise<NodeRunReport> {
  const prng = new Prng(o.seed);
  const swarm = prng.fork('swarm');
  const nodeCount = o.nodes ?? swarm.pick([3, 3, 3, 5]);
  const clientCount = o.clients ?? swarm.range(3, 6);
  const duration = o.durationMs ?? DEFAULT_NODE_DURATION_MS;
  const world = new World();
  const clocks = new Map<string, NodeClock>();
  const clockOf = (id: string): NodeClock => {
    let c = clocks.get(id);
    if (!c) clocks.set(id, (c = new NodeClock(world, id)));
    return c;
  };
  const net = new Net(world, prng.fork('net'), { minDelayMs: 1, maxDelayMs: swarm.range(2, 15), drop: swarm.pick([0.02, 0.05, 0.1]) });
  net.faulty = false;
  const oracle = new Oracle(() => world.now);
  const adapters = adaptersFor(o.bug);
  const stats: Record<string, number> = { snapshotInstalls: 0, leaderChanges: 0 };
  const fatal: Violation[] = [];
  const ids = Array.from({ length: nodeCount }, (_, k) => `n${k + 1}`);
  const hosts = new Map<string, NodeHost>();
  const streams = new Set<ClientStream>();
  const rpc = new Rpc(net, clockOf, (id) => {
    const h = hosts.get(id);
    return h?.up ? h.registry : undefined;
  });
  const openStream = rpc.stream.bind(rpc);
  rpc.stream = (...args) => {
    const s = openStream(...args);
    streams.add(s);
    return s;
  };
  const settings: HostSettings = {
    tickMs: 10,
    electionTicks: 10,
    heartbeatTicks: 1,
    snapshotEvery: swarm.pick([20, 40, 100]),
    compactKeep: swarm.pick([2, 5, 20]),
    diskMaxMs: swarm.range(0, 4),
  };
  const nodePrng = prng.fork('nodes');
  const hostWorld = {
    world,
    prng: nodePrng,
    send: (from: string, m: Parameters<NodeHost['step']>[0]) =>
      net.send(
        from,
        m.to,
        () => {
          hosts.get(m.to)?.step(m);
          if (m.type === 'Snap') world.at(world.now, from, () => hosts.get(from)?.driver.reportSnapshot(m.to, true));
        },
        () => {
          if (m.type === 'Snap') world.at(world.now, from, () => hosts.get(from)?.driver.reportSnapshot(m.to, false));
        },
      ),
    applied: (node: string, e: Parameters<Oracle['record']>[1]) => oracle.record(node, e),
    replaced: () => void stats.snapshotInstalls++,
    fatal: (node: string, e: Error) => fatal.push({ kind: 'fatal', at: world.now, message: `${node}: ${e.message}` }),
  };
  world.crashed = (owner, e) => {
    fatal.push({ kind: 'crash', at: world.now, message: `${owner || 'world'} threw: ${e.message}` });
    const h = hosts.get(owner);
    if (h) {
      h.close();
      world.pause(owner, Infinity); // a crashed node runs nothing more
    }
  };
  const registrar = lockApiRegistrar({ forwarder: (ctx) => new SimForwarder(ctx, rpc, adapters.forward) });
  for (const id of ids) {
    const h = new NodeHost(id, ids, settings, clockOf(id), hostWorld, [registrar], adapters);
    hosts.set(id, h);
  }
  for (const h of hosts.values()) {
    h.start();
    h.driver.onRoleChange((role) => {
      if (role === 'leader') stats.leaderChanges++;
    });
  }

  // Clients.
  const log: ClientLog = { beliefs: [], ops: [], losses: [], pauses: new Map() };
  const clientPrng = prng.fork('clients');
  const LOCKS = locks();
  const stalePause = swarm.pick([0.02, 0.05, 0.15]);
  const clients = Array.from(
    { length: clientCount },
    (_, k) =>
      new SimClient(
        `c${k + 1}`,
        world,
        rpc,
        ids,
        clientPrng.fork(`c${k + 1}`),
        {
          locks: [...LOCKS, LOCKS[3], LOCKS[3]], // s1 taken more often: waiters queue behind permits 1, and growing it grants several in one entry
          ttlMs: [swarm.pick([600, 1000]), swarm.pick([1500, 3000])],
          stalePause,
          abandon: swarm.pick([0.05, 0.15]),
          pauseInWait: swarm.pick([0.05, 0.15, 0.3]),
        },
        log,
      ),
  );
  const stopAt = duration;
  const done = clients.map((c) => c.run(stopAt));
  const observed: ObservedStream[] = [];
  const observers = Array.from(
    { length: 2 },
    (_, k) => new SimObserver(`o${k + 1}`, world, rpc, ids, [...LOCKS.map((l) => l.name), ELECTION], clientPrng.fork(`o${k + 1}`), observed),
  );
  for (const ob of observers) void ob.run();

  // The nemesis: this seed's fault kinds and rates.
  const nem = prng.fork('nemesis');
  const kinds = ['isolate-leader', 'isolate-leader', 'isolate', 'pause', 'drops', 'drops', 'wall-step', 'wall-fast', 'wall-fast'].filter(() =>
    swarm.chance(0.6),
  );
  const faultLog: string[] = [];
  const timeline: Array<[number, number]> = [];
  const faultEnd = duration - CALM_MS;
  const leader = () => ids.find((id) => hosts.get(id)!.driver.isLeader());
  const breakCutStreams = () => {
    for (const s of [...streams]) {
      if (s.finished) streams.delete(s);
      else if (!net.connected(s.from, s.to))
        world.at(world.now + 1000, '', () => {
          if (!net.connected(s.from, s.to)) s.lose();
        });
    }
  };
  const schedule = (at: number) => {
    if (at >= faultEnd || kinds.length === 0) return;
    world.at(at, '', () => {
      const kind = nem.pick(kinds);
      const len = Math.min(
        kind === 'isolate-leader' ? nem.range(2000, 6000) : kind === 'wall-fast' ? nem.range(3000, 12000) : nem.range(300, 6000),
        faultEnd - world.now,
      );
      // A fast wall clock matters where time is measured (the leader's lease clock), if anywhere.
      const target = kind === 'isolate-leader' || kind === 'wall-fast' ? (leader() ?? nem.pick(ids)) : nem.pick(ids);
      faultLog.push(`${world.now} ${kind} ${target} ${len}ms`);
      if (kind === 'isolate' || kind === 'isolate-leader') {
        for (const other of ids) if (other !== target) net.partition(target, other);
        breakCutStreams();
        timeline.push([world.now, world.now + len]);
        world.at(world.now + len, '', () => net.heal());
      } else if (kind === 'pause') {
        world.pause(target, world.now + Math.min(len, 3000));
        timeline.push([world.now, world.now + Math.min(len, 3000)]);
      } else if (kind === 'drops') {
        net.faulty = true;
        timeline.push([world.now, world.now + len]);
        world.at(world.now + len, '', () => (net.faulty = false));
      } else if (kind === 'wall-step') {
        clockOf(target).wallOffsetMs += nem.pick([-1, 1]) * nem.range(100, 5000);
      } else {
        // A wall clock running 1.5x for a while (a broken NTP, a VM's clock).
        const c = clockOf(target);
        const until = world.now + len;
        const step = () => {
          c.wallOffsetMs += 50;
          if (world.now < until) world.at(world.now + 100, '', step);
        };
        step();
      }
      schedule(world.now + nem.range(200, 3000));
    });
  };
  schedule(nem.range(500, 3000));

  // Every CHECK_EVERY_MS: nothing a node holds is left unanswered once the cluster is calm.
  const served: Violation[] = [];
  const reported = new Set<import('./calls.js').OpenCall>();
  const checkpoint = () => {
    served.push(...checkOpenCalls(oracle, rpc.openCalls, timeline, world.now, reported));
    if (world.now < stopAt) world.at(world.now + 250, '', checkpoint);
  };
  world.at(250, '', checkpoint);
  await world.runUntil(stopAt);
  for (const c of clients) c.stop();
  for (const ob of observers) ob.stop();
  // Let what is in flight finish (bounded by the calls' own deadlines), then judge.
  await world.runUntil(stopAt + 15_000);
  for (const c of clients) c.finish();
  void done;
  for (const h of hosts.values()) h.close();

  const violations = [...fatal, ...served, ...checkRun(oracle, log, timeline, stopAt), ...checkGrantPromises(log), ...checkObserve(oracle, observed)];
  o.inspect?.({ oracle, log });
  const ok = log.ops.filter((x) => x.result?.ok).length;
  Object.assign(stats, {
    nodes: nodeCount,
    clients: clientCount,
    events: world.events,
    committed: oracle.applied,
    grants: oracle.grants.length,
    multiGrantEntries: new Set(oracle.grants.filter((g) => g.token % 1024 > 0).map((g) => g.index)).size,
    setPermits: log.ops.filter((x) => x.kind === 'SetPermits' && x.result?.ok).length,
    fencedWrites: oracle.writes.length,
    ops: log.ops.length,
    opsOk: ok,
    acquired: log.ops.filter((x) => x.kind === 'Acquire' && x.result?.ok && x.result.res.acquired).length,
    staleWrites: log.ops.filter((x) => x.kind === 'Write' && x.stale).length,
    staleWritesAccepted: log.ops.filter((x) => x.kind === 'Write' && x.stale && x.result?.ok).length,
    waits: log.ops.filter((x) => x.wait).length,
    campaignsWon: log.ops.filter((x) => x.kind === 'Campaign' && x.result?.ok).length,
    proclaims: log.ops.filter((x) => x.kind === 'Proclaim' && x.result?.ok).length,
    cancelWaits: log.ops.filter((x) => x.kind === 'CancelWait' && x.result?.ok).length,
    leaseLosses: log.losses.length,
    faults: faultLog.length,
    observeStreams: observed.length,
    observedEvents: observed.reduce((n, x) => n + x.events.length, 0),
    resyncs: observed.reduce((n, x) => n + x.events.filter((e) => e.type === 'RESYNC').length, 0),
  });
  const digestText = [...oracle.appliedAt.keys()].length + '|' + log.ops.map((x) => `${x.kind}:${x.result?.ok ? 1 : x.result?.code}:${x.doneAt}`).join(',');
  return { seed: o.seed, ...(o.bug ? { bug: o.bug } : {}), violations, stats, digest: hashString(digestText).toString(16), faults: faultLog };
}
