// The nemesis: one fault at a time, chosen by a seeded PRNG (kind, target, duration, gaps), until
// its deadline; then everything is healed, resumed and restarted. Network faults hit peer links
// (node→node) and client links (clients→node); a hang or a delay holds bytes and releases them later,
// in order, so requests land after their caller retried them: delayed duplicates on real TCP. "The leader" is looked up when the
// fault starts, so the schedule is the seed's and the victims are whoever leads at that moment.
import type { ProcessCluster } from '../support/process-cluster.js';
import type { Prng } from '../sim/prng.js';
import { oneWayLinks, ringLinks, splitLinks, type ProxyMesh } from './network.js';
import type { ClientHandle, ClientPool } from './client-pool.js';
import type { LazyFs } from './lazyfs/lazyfs.js';

export const FAULT_KINDS = [
  'kill-node',
  'kill-leader',
  'pause-node',
  'pause-leader',
  'kill-all',
  'isolate-leader',
  'split',
  'ring',
  'one-way',
  'asym-link',
  'pause-client',
  'kill-client',
  'delay-client',
  'hold-client',
  'delay-link',
  'power-cut',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * What a run without --kinds draws from: every kind but power-cut, which needs the nodes' data dirs
 * on lazyfs (named in --kinds, the runner mounts it). Runs without --kinds keep the schedule their
 * seed always gave.
 */
export const DEFAULT_KINDS: readonly FaultKind[] = FAULT_KINDS.filter((k) => k !== 'power-cut');

/** Relative frequencies; client pauses are the scenario the control needs, so they come often. */
const WEIGHTS: Record<FaultKind, number> = {
  'kill-node': 2,
  'kill-leader': 2,
  'pause-node': 2,
  'pause-leader': 2,
  'kill-all': 1,
  'isolate-leader': 2,
  split: 2,
  ring: 1,
  'one-way': 1,
  'asym-link': 1,
  'pause-client': 4,
  'kill-client': 1,
  'delay-client': 3,
  'hold-client': 2,
  'delay-link': 2,
  'power-cut': 2,
};

export interface FaultRecord {
  kind: FaultKind;
  target: string;
  /** ms since the run's origin. */
  start: number;
  end: number;
  detail: string;
}

export interface NemesisDeps {
  readonly cluster: ProcessCluster;
  readonly mesh: ProxyMesh;
  readonly pool: ClientPool;
  readonly rng: Prng;
  readonly now: () => number;
  /** ms on the run clock at which to stop starting faults. */
  readonly until: number;
  readonly electionTimeoutMs: number;
  readonly ttlMs: number;
  /** A workload client's attempt timeout: delays are sized around it, so requests land after their retry. */
  readonly attemptMs: number;
  /** Start a client to replace one the nemesis killed. */
  readonly replaceClient: (killed: ClientHandle) => void;
  readonly log: (msg: string) => void;
  /** Restrict the kinds (e.g. a client-pause-only control run). */
  readonly kinds?: readonly FaultKind[];
  /** Each node's disk, for power-cut: its data dir is on this lazyfs mount (lazyfs/). */
  readonly disks?: ReadonlyMap<string, LazyFs>;
}

/** What the power cuts took, over the run. */
export interface PowerCutStats {
  cuts: number;
  /** Node power cuts (a cut of all 5 nodes counts 5). */
  nodesCut: number;
  /** Unsynced writes dropped (files counted once per node cut). */
  files: number;
  bytes: number;
  torn: number;
}

export class Nemesis {
  readonly faults: FaultRecord[] = [];
  readonly powerCuts: PowerCutStats = { cuts: 0, nodesCut: 0, files: 0, bytes: 0, torn: 0 };
  private readonly pausedNodes = new Set<string>();
  private aborted = false;
  private wake: (() => void) | undefined;

  constructor(private readonly d: NemesisDeps) {}

  /** Stop early (a failure elsewhere); the running fault ends at its next step. */
  abort(): void {
    this.aborted = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }

  private get over(): boolean {
    return this.aborted || this.d.now() >= this.d.until;
  }

  private pickKind(): FaultKind {
    const kinds = this.d.kinds ?? DEFAULT_KINDS;
    const total = kinds.reduce((s, k) => s + WEIGHTS[k], 0);
    let x = this.d.rng.float() * total;
    for (const k of kinds) if ((x -= WEIGHTS[k]) < 0) return k;
    return kinds[kinds.length - 1];
  }

  private async leader(): Promise<string> {
    const sts = await this.d.cluster.statuses();
    const leaders = sts.filter((s) => s.role === 'leader').sort((a, b) => b.term - a.term);
    return leaders[0]?.nodeId ?? this.d.rng.pick(this.d.cluster.nodes.map((n) => n.id));
  }

  async run(): Promise<void> {
    try {
      while (!this.over) {
        await this.sleep(this.d.rng.range(500, 2000));
        if (this.over) break;
        const kind = this.pickKind();
        const start = this.d.now();
        const { target, detail } = await this.inject(kind);
        this.faults.push({ kind, target, start, end: this.d.now(), detail });
        this.d.log(`fault ${kind} on ${target}: ${detail} (${(this.d.now() - start).toFixed(0)} ms)`);
      }
    } finally {
      await this.healAll();
    }
  }

  /** One fault, start to end (healed before returning). */
  private async inject(kind: FaultKind): Promise<{ target: string; detail: string }> {
    const { cluster, mesh, rng, electionTimeoutMs: et } = this.d;
    const ids = cluster.nodes.map((n) => n.id);
    switch (kind) {
      case 'kill-node':
      case 'kill-leader': {
        const id = kind === 'kill-leader' ? await this.leader() : rng.pick(ids);
        await cluster.kill(id);
        const down = rng.range(200, 3 * et);
        await this.sleep(down);
        cluster.startNode(id);
        return { target: id, detail: `kill -9, restarted after ${down} ms` };
      }
      case 'power-cut': {
        // Power lost on one node, a majority or all of them: each dies (kill -9) and its disk
        // loses every write it had not fsynced (sometimes torn: a prefix of them lands), then it
        // boots again. A whole-cluster cut loses whatever no node had synced.
        const { disks } = this.d;
        if (!disks) return { target: '-', detail: 'no lazyfs disks (the runner mounts them when --kinds names power-cut), skipped' };
        const x = rng.float();
        const victims = x < 0.4 ? ids : x < 0.7 ? rng.shuffle([...ids]).slice(0, Math.floor(ids.length / 2) + 1) : [rng.pick(ids)];
        const torn = rng.chance(0.3);
        await Promise.all(victims.map((id) => cluster.kill(id)));
        let files = 0;
        let bytes = 0;
        for (const id of victims) {
          const lost = await disks.get(id)!.crash(torn ? rng.u32() : undefined);
          files += lost.files;
          bytes += lost.bytes;
        }
        Object.assign(this.powerCuts, {
          cuts: this.powerCuts.cuts + 1,
          nodesCut: this.powerCuts.nodesCut + victims.length,
          files: this.powerCuts.files + files,
          bytes: this.powerCuts.bytes + bytes,
          torn: this.powerCuts.torn + (torn ? 1 : 0),
        });
        const down = rng.range(200, 1500);
        await this.sleep(down);
        for (const id of victims) cluster.startNode(id);
        const target = victims.length === ids.length ? 'all' : victims.join('+');
        return {
          target,
          detail: `power cut: kill -9, ${bytes} unsynced bytes in ${files} files ${torn ? "torn (a random prefix of each file's landed)" : 'dropped'}, restarted after ${down} ms`,
        };
      }
      case 'pause-node':
      case 'pause-leader': {
        const id = kind === 'pause-leader' ? await this.leader() : rng.pick(ids);
        const ms = rng.range(Math.floor(et / 2), 3 * et);
        if (!cluster.isRunning(id)) return { target: id, detail: 'not running, skipped' };
        cluster.signal(id, 'SIGSTOP');
        this.pausedNodes.add(id);
        await this.sleep(ms);
        cluster.signal(id, 'SIGCONT');
        this.pausedNodes.delete(id);
        return { target: id, detail: `SIGSTOP for ${ms} ms` };
      }
      case 'kill-all': {
        await Promise.all(ids.map((id) => cluster.kill(id)));
        const down = rng.range(200, 1500);
        await this.sleep(down);
        for (const id of ids) cluster.startNode(id);
        return { target: 'all', detail: `kill -9 of every node, restarted after ${down} ms` };
      }
      case 'isolate-leader':
      case 'split':
      case 'ring':
      case 'one-way':
      case 'asym-link': {
        const mode = rng.chance(0.5) ? 'hang' : 'reset';
        let links;
        let target: string;
        if (kind === 'isolate-leader') {
          target = await this.leader();
          links = splitLinks([[target], ids.filter((i) => i !== target)]);
        } else if (kind === 'split') {
          const order = rng.shuffle([...ids]);
          const minority = order.slice(0, Math.floor(ids.length / 2));
          target = `${minority.join('+')} | ${order.slice(minority.length).join('+')}`;
          links = splitLinks([minority, order.slice(minority.length)]);
        } else if (kind === 'ring') {
          const order = rng.shuffle([...ids]);
          target = order.join('-');
          links = ringLinks(order);
        } else if (kind === 'one-way') {
          const inbound = rng.chance(0.5);
          target = `${await this.leader()} ${inbound ? 'deaf' : 'mute'}`;
          links = oneWayLinks(target.split(' ')[0], ids, inbound);
        } else {
          const [a, b] = rng.shuffle([...ids]);
          target = `${a}→${b}`;
          links = [[a, b] as const];
        }
        mesh.cut(links, mode);
        const ms = rng.range(et, 6 * et);
        await this.sleep(ms);
        mesh.heal();
        return { target, detail: `${links.length} links ${mode} for ${ms} ms` };
      }
      case 'delay-client':
      case 'hold-client': {
        // Clients' calls to one node are held. Either long enough that a request lands after the
        // caller timed out and retried elsewhere (and maybe after its next call), or only so long
        // that the request is applied but its answer comes after the deadline (the retry then
        // meets a grant that may have ended meanwhile).
        const id = rng.chance(0.5) ? await this.leader() : rng.pick(ids);
        const { attemptMs: a } = this.d;
        if (kind === 'delay-client') {
          const late = rng.chance(0.5);
          // Answers late: the round trip (2 × delay) just misses the deadline, leaving the longest time
          // between the grant and the retry.
          const delay = late ? a + rng.range(30, 300) : Math.floor(a / 2) + rng.range(10, 300);
          const ms = rng.range(2000, 8000);
          // Resets now and then (and at the end) make every call whose answer is still held fail at
          // once: waits are retried too (a wait's own deadline is not), into whatever happened since
          // their grant.
          const resets = !late && rng.chance(0.5);
          mesh.cutClients([id], 'delay', delay);
          const until = this.d.now() + ms;
          while (resets && !this.over && this.d.now() + 2 * delay < until) {
            await this.sleep(rng.range(delay + 100, 2 * delay));
            mesh.cutClients([id], 'reset');
            mesh.cutClients([id], 'delay', delay);
          }
          await this.sleep(until - this.d.now());
          if (resets) mesh.cutClients([id], 'reset');
          mesh.heal();
          const how = late ? 'requests land after their retry' : 'answers come after the deadline';
          return {
            target: `clients→${id}`,
            detail: `every byte held ${delay} ms (${how}) for ${ms} ms, ${resets ? 'reset now and then and at the end' : 'then the rest released at once'}`,
          };
        }
        const ms = a + rng.range(-200, 800);
        mesh.cutClients([id], 'hang');
        await this.sleep(ms);
        mesh.heal();
        return { target: `clients→${id}`, detail: `held (hang) for ${ms} ms, then everything released at once` };
      }
      case 'delay-link': {
        // A node's outbound peer links are slow: calls it forwards to the leader land late (a
        // forwarding follower), or the leader's appends and heartbeats do.
        const leader = await this.leader();
        const id = rng.chance(0.7) ? rng.pick(ids.filter((i) => i !== leader)) : leader;
        const links = oneWayLinks(id, ids);
        const delay = rng.range(Math.floor(et / 2), 4 * et);
        const ms = rng.range(2 * et, 10 * et);
        mesh.cut(links, 'delay', delay);
        await this.sleep(ms);
        mesh.heal();
        return { target: `${id}${id === leader ? ' (leader)' : ''} →*`, detail: `${links.length} links hold every byte ${delay} ms, for ${ms} ms` };
      }
      case 'pause-client': {
        const { pool } = this.d;
        // Alternate between fenced and control clients so both paths see the scenario.
        const wantPlain = this.faults.filter((f) => f.kind === 'pause-client').length % 2 === 1;
        const live = pool.workers().filter((c) => !c.paused);
        const group = live.filter((c) => (c.config.mode === 'plain') === wantPlain);
        const cands = group.length ? group : live;
        if (!cands.length) return { target: '-', detail: 'no client running, skipped' };
        const c = rng.pick(cands);
        const ms = this.d.ttlMs + rng.range(300, 2500);
        if (!(await pool.waitForHold(c, 3000))) return { target: c.config.id, detail: 'never held a lock within 3 s, skipped' };
        pool.pause(c);
        const lock = c.holding;
        await this.sleep(ms);
        pool.resume(c);
        return { target: c.config.id, detail: `SIGSTOP while holding ${lock} for ${ms} ms (TTL ${this.d.ttlMs} ms)` };
      }
      case 'kill-client': {
        const { pool } = this.d;
        const live = pool.workers().filter((c) => !c.paused);
        if (!live.length) return { target: '-', detail: 'no client running, skipped' };
        const c = rng.pick(live);
        if (!(await pool.waitForHold(c, 3000))) return { target: c.config.id, detail: 'never held a lock within 3 s, skipped' };
        const lock = c.holding;
        await pool.kill(c);
        this.d.replaceClient(c);
        return { target: c.config.id, detail: `kill -9 while holding ${lock}; replaced` };
      }
    }
  }

  /** Heal the network, resume paused nodes and clients, restart dead nodes. */
  async healAll(): Promise<void> {
    const { cluster, mesh, pool } = this.d;
    mesh.heal();
    for (const id of this.pausedNodes) if (cluster.isRunning(id)) cluster.signal(id, 'SIGCONT');
    this.pausedNodes.clear();
    for (const c of pool.running()) pool.resume(c);
    for (const n of cluster.nodes) if (!cluster.isRunning(n.id)) cluster.startNode(n.id);
  }
}
