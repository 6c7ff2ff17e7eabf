// Simulated clients of the lock API, each an actor on its own clock (its owner id in the world, so
// a client can be paused like a process): a lease kept alive over Lease.KeepAlive, mutex Acquire
// (try and wait) / Release, Fence.Write with and without `lock`, Fence.Read; every call retried
// with its request id on UNAVAILABLE, at the leader a trailer names or another node; waits given up
// (cancelled) now and then; stale actors: a client paused past its lease that then goes on
// writing and releasing with the token it had; and mixed recipes: SetPermits on the election's name. What each client saw is recorded for checks.ts:
// when it trusted its lease (the first attempt's send time + ttl, renewed from each keepalive's
// send time: proto/lockd.proto LeaseGrantRequest), which grants it believed it held and when.
import * as grpc from '@grpc/grpc-js';
import { LEADER_TRAILER } from '../../../src/lockd/api/api-error.js';
import type { Prng } from '../prng.js';
import type { ClientStream, Rpc, UnaryResult } from './calls.js';
import type { NodeClock, World } from './world.js';

const P = {
  Grant: '/lockd.v1.Lease/Grant',
  KeepAlive: '/lockd.v1.Lease/KeepAlive',
  Revoke: '/lockd.v1.Lease/Revoke',
  Acquire: '/lockd.v1.Lock/Acquire',
  Release: '/lockd.v1.Lock/Release',
  Write: '/lockd.v1.Fence/Write',
  Read: '/lockd.v1.Fence/Read',
  SetPermits: '/lockd.v1.Lock/SetPermits',
  Campaign: '/lockd.v1.Election/Campaign',
  Proclaim: '/lockd.v1.Election/Proclaim',
  Resign: '/lockd.v1.Election/Resign',
  CancelWait: '/lockd.v1.Lock/CancelWait',
};

/** The election clients campaign in (a lock name of its own: Lock.Acquire on it is refused). */
export const ELECTION = 'e0';

/** A lock this client was told it holds, from when it heard it until it stopped trusting or released it. */
export interface Belief {
  readonly client: string;
  readonly name: string;
  readonly permits: number;
  readonly leaseId: number;
  readonly token: number;
  readonly from: number;
  to: number;
}

/** One logical operation (all attempts of one request id). */
export interface OpRecord {
  readonly client: string;
  readonly kind: 'Grant' | 'Acquire' | 'Release' | 'Write' | 'Read' | 'Revoke' | 'SetPermits' | 'Campaign' | 'Proclaim' | 'Resign' | 'CancelWait';
  readonly requestId: string;
  readonly sentAt: number;
  readonly deadline: number;
  readonly wait: boolean;
  readonly req: Record<string, unknown>;
  doneAt?: number;
  result?: UnaryResult<Record<string, unknown>>;
  attempts: number;
  /** The client wrote with a grant it no longer trusted (a stale actor). */
  stale?: boolean;
  /** Answers of every attempt (a retried Grant must name one lease). */
  readonly answers: Array<Record<string, unknown>>;
  /** The lease the client acted for (Acquire, Write, Release). */
  readonly leaseId?: number;
}

export interface LeaseLoss {
  readonly client: string;
  readonly leaseId: number;
  /** When the client heard ttl 0, and what it trusted then. */
  readonly at: number;
  readonly trust: number;
}

export interface ClientLog {
  readonly beliefs: Belief[];
  readonly ops: OpRecord[];
  readonly losses: LeaseLoss[];
  /** Each client's own pauses [from, to): its calls may not be answered meanwhile. */
  readonly pauses: Map<string, Array<readonly [number, number]>>;
}

/** A lock clients take: a mutex (permits 1) or a semaphore, with or without lock-delay. */
export interface LockSpec {
  readonly name: string;
  /** What clients ask (SetPermits changes it: clients learn the new value as a deployment's config would tell them). */
  permits: number;
  readonly lockDelayMs: number;
  /** SetPermits moves it between these (a semaphore whose permits change). */
  readonly permitRange?: readonly [number, number];
}

export interface ClientSettings {
  readonly locks: readonly LockSpec[];
  readonly ttlMs: readonly [number, number];
  /** Chance, per held lock, that the client pauses past its lease before going on (a stale actor). */
  readonly stalePause: number;
  /** Chance a waiting Acquire is given up (cancelled) before it is answered. */
  readonly abandon: number;
  /** Chance the client pauses past its lease while a waiting Acquire of it is out. */
  readonly pauseInWait: number;
}

interface Lease {
  readonly id: number;
  trust: number;
  gone: boolean;
  beliefs: Belief[];
}

export class SimClient {
  readonly clock: NodeClock;
  private leader: string;
  private seq = 0;
  private lease: Lease | undefined;
  private stopped = false;
  /** Draws for the mixed-recipe moves (a stream apart from `prng`). */
  private readonly mixed: Prng;

  constructor(
    readonly id: string,
    private readonly world: World,
    private readonly rpc: Rpc,
    private readonly nodes: readonly string[],
    private readonly prng: Prng,
    private readonly settings: ClientSettings,
    private readonly log: ClientLog,
  ) {
    this.clock = rpc.clockOf(id);
    this.leader = prng.pick(nodes);
    this.mixed = prng.split('mixed');
  }

  private get now(): number {
    return this.world.now;
  }

  /** A process pause (GC, a stopped VM): nothing of this client runs for `ms`. */
  private pause(ms: number): void {
    if (ms <= 0) return;
    this.world.pause(this.id, this.now + ms);
    let list = this.log.pauses.get(this.id);
    if (!list) this.log.pauses.set(this.id, (list = []));
    list.push([this.now, this.now + ms]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => this.clock.after(ms, r));
  }

  stop(): void {
    this.stopped = true;
  }

  /** End of the run: what it still believes ends where its trust does. */
  finish(): void {
    if (this.lease) this.lapse(this.lease, Math.min(this.now, this.lease.trust));
  }

  /** The client's life: a lease, then locks under it, until stopped. */
  async run(until: number): Promise<void> {
    await this.sleep(this.prng.range(0, 300));
    while (!this.stopped && this.now < until) {
      const lease = await this.grant();
      if (!lease) {
        await this.sleep(this.prng.range(50, 300));
        continue;
      }
      this.lease = lease;
      void this.keepAlive(lease);
      while (!this.stopped && !lease.gone && this.trusts(lease) && this.now < until) await this.useLock(lease);
      this.lapse(lease, Math.min(this.now, lease.trust));
      const revoke = !lease.gone && this.prng.chance(0.3);
      lease.gone = true; // its own Revoke's ttl 0 is no loss
      if (revoke) await this.op('Revoke', { leaseId: lease.id }, 5000);
    }
  }

  private trusts(lease: Lease): boolean {
    return !lease.gone && this.now <= lease.trust;
  }

  /** The client stops believing in its grants at `at` (trust ran out, release sent, lease gone). */
  private lapse(lease: Lease, at: number): void {
    const end = Math.min(at, lease.trust); // trust ends on its own, whenever the client notices
    for (const b of lease.beliefs) if (b.to === Infinity) b.to = Math.max(b.from, end);
    lease.beliefs = [];
  }

  private rid(): string {
    return `${this.id}-${++this.seq}`;
  }

  /** One operation: attempts with one request id until an answer other than UNAVAILABLE, or the deadline. */
  private async op(kind: OpRecord['kind'], req: Record<string, unknown>, budgetMs: number, wait = false, stale = false, leaseId?: number): Promise<OpRecord> {
    const requestId = kind === 'Read' || kind === 'Proclaim' || kind === 'CancelWait' ? '' : this.rid(); // these take none
    const body = requestId ? { ...req, requestId } : req;
    const rec: OpRecord = {
      client: this.id,
      kind,
      requestId,
      sentAt: this.now,
      deadline: this.now + budgetMs,
      wait,
      req: body,
      attempts: 0,
      answers: [],
      ...(stale ? { stale } : {}),
      ...(leaseId ? { leaseId } : {}),
    };
    this.log.ops.push(rec);
    const abandonAt = wait && this.prng.chance(this.settings.abandon) ? this.now + this.prng.range(100, budgetMs) : Infinity;
    if (wait && abandonAt === Infinity && this.lease && this.prng.chance(this.settings.pauseInWait)) {
      const lease = this.lease;
      // Paused while its wait is out: the lease ends meanwhile, and the server must answer NOT_FOUND.
      this.clock.after(this.prng.range(50, 500), () => this.pause(Math.max(0, lease.trust - this.now) + this.prng.range(500, 3000)));
    }
    for (;;) {
      rec.attempts++;
      // Most calls go where the client last heard the leader is; some (a load balancer) to any node.
      const to = this.prng.chance(0.3) ? this.prng.pick(this.nodes) : this.leader;
      const call = this.rpc.unary<Record<string, unknown>>(this.id, to, P[kind], body, this.clock.wallMs() + (rec.deadline - this.now));
      if (abandonAt < Infinity) this.clock.after(abandonAt - this.now, call.cancel);
      const r = await call.result;
      if (r.ok) rec.answers.push(r.res);
      const retry = !r.ok && (r.code === grpc.status.UNAVAILABLE || (r.code === grpc.status.DEADLINE_EXCEEDED && this.now < rec.deadline));
      if (!retry || this.now >= rec.deadline - 20 || this.stopped) {
        rec.result = r;
        rec.doneAt = this.now;
        return rec;
      }
      const named = r.trailers[LEADER_TRAILER];
      const hinted = named ? named.replace(/\.sim:\d+$/, '') : undefined;
      this.leader = hinted && this.nodes.includes(hinted) && hinted !== to ? hinted : this.prng.pick(this.nodes);
      await this.sleep(this.prng.range(20, 150));
    }
  }

  private async grant(): Promise<Lease | undefined> {
    const ttl = this.prng.range(this.settings.ttlMs[0], this.settings.ttlMs[1]);
    const sent = this.now;
    const rec = await this.op('Grant', { ttlMs: ttl }, 5000);
    if (!rec.result?.ok) return undefined;
    const id = Number(rec.result.res.leaseId);
    // Trusted from the FIRST attempt's send time (proto: LeaseGrantRequest.request_id).
    return { id, trust: sent + Number(rec.result.res.ttlMs), gone: false, beliefs: [] };
  }

  /** Renew over one KeepAlive stream at a time, a request in flight at a time, every ttl/4. */
  private async keepAlive(lease: Lease): Promise<void> {
    const every = Math.max(50, Math.floor((lease.trust - this.now) / 4));
    while (!lease.gone && !this.stopped) {
      const to = this.leader;
      const s: ClientStream = this.rpc.stream(this.id, to, P.KeepAlive, undefined);
      let sentAt = 0;
      let waiting: ((ttl: number | undefined) => void) | undefined;
      s.on('data', (m: { leaseId: number; ttlMs: number }) => {
        if (Number(m.leaseId) !== lease.id) return;
        const ttl = Number(m.ttlMs);
        if (waiting) {
          const w = waiting;
          waiting = undefined;
          w(ttl);
        } else if (ttl === 0) this.lost(lease); // unsolicited: the lease ended
      });
      s.on('error', () => {});
      s.on('status', (st: { trailers?: unknown; metadata?: grpc.Metadata }) => {
        const named = st.metadata?.getMap()[LEADER_TRAILER];
        if (typeof named === 'string') {
          const n = named.replace(/\.sim:\d+$/, '');
          if (this.nodes.includes(n)) this.leader = n;
        }
        const w = waiting;
        waiting = undefined;
        w?.(undefined);
      });
      for (;;) {
        if (lease.gone || this.stopped || s.finished) break;
        sentAt = this.now;
        const answer = new Promise<number | undefined>((r) => (waiting = r));
        s.write({ leaseId: lease.id });
        const ttl = await answer;
        if (ttl === undefined) break; // the stream ended
        if (ttl === 0) {
          this.lost(lease);
          break;
        }
        const trust = sentAt + ttl;
        // Trust that ran out before this answer came lapsed then (the client could not know it held).
        if (this.now > lease.trust) this.lapse(lease, lease.trust);
        lease.trust = Math.max(lease.trust, trust);
        await this.sleep(every);
      }
      if (!s.finished) s.cancel();
      if (lease.gone || this.stopped) return;
      this.leader = this.prng.pick(this.nodes);
      await this.sleep(this.prng.range(20, 100));
    }
  }

  private lost(lease: Lease): void {
    if (lease.gone) return;
    this.log.losses.push({ client: this.id, leaseId: lease.id, at: this.now, trust: lease.trust });
    lease.gone = true;
    this.lapse(lease, this.now);
  }

  /** Campaign, proclaim and fence as the leader, resign (or not): Election on top of the lock state. */
  private async campaign(lease: Lease): Promise<void> {
    const rec = await this.op('Campaign', { name: ELECTION, leaseId: lease.id, value: `${this.id}:0` }, this.prng.range(3000, 12000), true, false, lease.id);
    const r = rec.result;
    if (!r?.ok) {
      await this.sleep(this.prng.range(20, 300));
      return;
    }
    const key = r.res.leader as { name: string; leaseId: number; fencingToken: number };
    const token = Number(key.fencingToken);
    const belief: Belief = { client: this.id, name: ELECTION, permits: 1, leaseId: lease.id, token, from: this.now, to: Infinity };
    if (this.trusts(lease)) {
      this.log.beliefs.push(belief);
      lease.beliefs.push(belief);
    }
    // Mixed recipes: the leader asks for more permits of its election (refused: one leader at most).
    if (this.mixed.chance(0.3)) await this.op('SetPermits', { name: ELECTION, permits: this.mixed.range(2, 3) }, 5000);
    for (let k = this.prng.range(1, 3); k > 0; k--) {
      if (this.prng.chance(this.settings.stalePause)) {
        this.pause(lease.trust - this.now + this.prng.range(200, 2000));
        await this.sleep(1);
      }
      if (!this.trusts(lease)) this.lapse(lease, Math.min(this.now, lease.trust));
      const stale = !this.trusts(lease);
      if (this.prng.chance(0.5)) await this.op('Proclaim', { leader: key, value: `${this.id}:${this.now}` }, 5000, false, stale, lease.id);
      else
        await this.op(
          'Write',
          { key: `k-${ELECTION}`, value: Buffer.from(`${this.id}@${this.now}`), fencingToken: token, lock: ELECTION },
          5000,
          false,
          stale,
          lease.id,
        );
      await this.sleep(this.prng.range(10, 200));
    }
    if (this.prng.chance(0.85)) {
      for (const b of lease.beliefs) if (b.name === ELECTION && b.to === Infinity) b.to = Math.max(b.from, Math.min(this.now, lease.trust));
      lease.beliefs = lease.beliefs.filter((b) => b.name !== ELECTION);
      await this.op('Resign', { leader: key }, 5000, false, !this.trusts(lease), lease.id);
    }
  }

  /** Take a lock, use it through the fence, release it (or not); now and then campaign instead. */
  private async useLock(lease: Lease): Promise<void> {
    if (this.prng.chance(0.15)) return this.campaign(lease);
    const spec = this.prng.pick(this.settings.locks);
    const name = spec.name;
    if (spec.permitRange && this.prng.chance(0.2)) {
      // Grow or shrink the semaphore: growing grants the waiters that now fit in one entry.
      const permits = this.prng.range(spec.permitRange[0], spec.permitRange[1]);
      // Mixed recipes: now and then the election's name instead (the proto refuses it: one leader at
      // most). Drawn from a stream of its own, so the seeds' other draws stay as they were.
      if (this.mixed.chance(0.3)) {
        await this.op('SetPermits', { name: ELECTION, permits: Math.max(2, permits) }, 5000);
        return;
      }
      const r = await this.op('SetPermits', { name, permits }, 5000);
      if (r.result?.ok) spec.permits = permits;
      return;
    }
    const wait = this.prng.chance(0.6);
    const rec = await this.op(
      'Acquire',
      { name, leaseId: lease.id, wait, permits: spec.permits, lockDelayMs: spec.lockDelayMs },
      wait ? this.prng.range(3000, 12000) : 5000,
      wait,
      false,
      lease.id,
    );
    const r = rec.result;
    let token = r?.ok && r.res.acquired ? Number(r.res.fencingToken) : 0;
    if (wait && r && !r.ok && r.code === grpc.status.CANCELLED && this.prng.chance(0.5)) {
      // It gave the wait up; it leaves the queue itself (Lock.CancelWait): granted meanwhile, the lock is its own to use or release.
      const c = await this.op('CancelWait', { name, leaseId: lease.id }, 5000, false, false, lease.id);
      if (c.result?.ok) token = Number(c.result.res.fencingToken);
    }
    if (token === 0) {
      await this.sleep(this.prng.range(20, 300));
      return;
    }
    const belief: Belief = { client: this.id, name, permits: spec.permits, leaseId: lease.id, token, from: this.now, to: Infinity };
    if (this.trusts(lease)) {
      this.log.beliefs.push(belief);
      lease.beliefs.push(belief);
    }
    const uses = this.prng.range(1, 3);
    for (let k = 0; k < uses; k++) {
      if (this.prng.chance(this.settings.stalePause)) {
        // A stale actor: paused (GC, a stopped VM) past its lease, then it goes on as if it held the lock.
        this.pause(lease.trust - this.now + this.prng.range(200, 2000));
        await this.sleep(1);
      }
      if (!this.trusts(lease)) this.lapse(lease, Math.min(this.now, lease.trust));
      const stale = !this.trusts(lease);
      const withLock = this.prng.chance(0.7);
      await this.op(
        'Write',
        { key: `k-${name}`, value: Buffer.from(`${this.id}@${this.now}`), fencingToken: token, lock: withLock ? name : '' },
        5000,
        false,
        stale,
        lease.id,
      );
      if (this.prng.chance(0.3)) await this.op('Read', { key: `k-${name}` }, 5000);
      await this.sleep(this.prng.range(10, 200));
    }
    if (this.prng.chance(0.85)) {
      // It stops relying on the lock as it sends the release (every belief in that grant: an Acquire of a held lock answers the same grant).
      for (const b of lease.beliefs) if (b.name === name && b.to === Infinity) b.to = Math.max(b.from, Math.min(this.now, lease.trust));
      lease.beliefs = lease.beliefs.filter((b) => b.name !== name);
      await this.op('Release', { name, fencingToken: token, leaseId: this.prng.chance(0.5) ? lease.id : 0 }, 5000, false, !this.trusts(lease), lease.id);
    }
  }
}
