// The lock app's traffic, drawn from the seed: client sessions that grant leases, acquire (try and wait),
// release, write the fenced store (also with stale tokens, as a client waking from a pause would), cancel
// waits, revoke and retry with request ids; and the leader's lease clock, which proposes Tick entries on a
// schedule in virtual time (docs/design.md §4: elapsed capped at two intervals, margin = the cap, one Tick in flight,
// a new leader counts from its election, keepalives batched into the next Tick and dropped on step-down).
// Some sessions keep their leases alive, others let them expire, so expiry hand-offs and waiter removals happen.
// Sessions learn outcomes from the committed history (the first application of each entry), like an oracle.
// Recipes: each name is a mutex, a semaphore (permits 2-3, changed now and then by SetPermits,
// and sometimes asked with the wrong permits) or a read-write lock (shared and exclusive asks, downgrades,
// refused upgrades); Acquires carry lock-delays drawn from the mix, so expiries and revokes start delays.
// Crowds (lock-crowd.ts) make one entry grant several waiters of one name. Stale actors act with a token
// whose grant has ended (Release with and without the lease, lock-bound Fence.Write/Delete, Proclaim), and
// every answer is judged by the proto's promises (test/support/grant-promises.ts): an ended grant never
// acts (Stale Actor), and a token names one grant of its lock (Token Unique).

import { MIN_TTL_MS, decodeCommand, type ApplyOutput, type Command, type StateEvent } from '../../src/lockd/state-machine/index.js';
import { DRIFT_BOUND_PPM } from '../../src/lockd/state-machine/deadline-margin.js';
import { MAX_TICK_EXPIRY_WORK } from '../../src/lockd/state-machine/limits.js';
import { tickExpiryWork } from '../../src/lockd/node/cluster-version.js';
import { staleActBroken, TokenOwners, type GrantAct } from '../support/grant-promises.js';
import { fail } from './checkers.js';
import { Crowds, type CrowdHost } from './lock-crowd.js';
import type { Entry } from '../../src/raft/types.js';
import type { Prng } from './prng.js';
import type { SimNode } from './sim-node.js';

/** A proposal handed to a node's driver loop: where it went (once the loop ran it), or that it was refused. */
export interface Proposal {
  at?: { readonly index: number; readonly term: number };
  refused?: boolean;
}

/** What the workload needs from the runner. */
export interface LockDriver {
  leader(): SimNode | undefined;
  /** A node picked at random among those up (a client that has not found the leader). */
  anyUp(): SimNode | undefined;
  /** Propose on `node`; the runner traces it. */
  proposeCommand(node: SimNode, cmd: Command, who: string): Proposal;
}

export interface LockMix {
  /** Virtual milliseconds per simulation step. */
  readonly stepMs: number;
  /** The leader's tick interval, in steps. */
  readonly tickEvery: number;
  readonly sessions: number;
  readonly names: readonly string[];
  /** Per-step chance that some session acts. */
  readonly actRate: number;
  /** Share of sessions that keep their leases alive. */
  readonly keeperShare: number;
  /** Per-step chance that a keeper stops renewing for a while (a GC pause): its lease may expire under it. */
  readonly pauseRate: number;
  readonly ttls: readonly number[];
  /** Per name: its recipe (permits; rw = read-write lock). */
  readonly kinds: Readonly<Record<string, { readonly permits: number; readonly rw: boolean }>>;
  /** Lock-delays an Acquire may carry (ms of logical time). */
  readonly delays: readonly number[];
}

export function drawLockMix(prng: Prng): LockMix {
  const names = ['a', 'b', 'c'].slice(0, prng.range(1, 3));
  return {
    stepMs: prng.pick([5, 10, 20]),
    tickEvery: prng.pick([2, 4, 6, 10]),
    sessions: prng.range(3, 6),
    names,
    actRate: prng.pick([0.05, 0.15, 0.3]),
    keeperShare: prng.pick([0.3, 0.6, 0.9]),
    pauseRate: prng.pick([0, 0.002, 0.01]),
    ttls: [MIN_TTL_MS, 200, 400, 800, 1500],
    kinds: Object.fromEntries(
      names.map((n) => {
        const k = prng.pick(['mutex', 'semaphore', 'rw'] as const);
        return [n, { permits: k === 'semaphore' ? prng.range(2, 3) : 1, rw: k === 'rw' }];
      }),
    ),
    delays: prng.pick([[0], [0, 0, 100], [0, 100, 400]]),
  };
}

export function describeLockMix(m: LockMix): string {
  return (
    `lock app: ${m.sessions} sessions on ${m.names.length} names, ${m.stepMs} ms/step, tick every ${m.tickEvery} steps, ` +
    `act ${m.actRate}, keepers ${m.keeperShare}, pauses ${m.pauseRate}, ` +
    `recipes ${m.names.map((n) => `${n}:${m.kinds[n].rw ? 'rw' : m.kinds[n].permits > 1 ? `sem${m.kinds[n].permits}` : 'mutex'}`).join(' ')}, delays ${m.delays.join('/')}`
  );
}

interface Pending {
  readonly proposal: Proposal;
  readonly cmd: Command;
  readonly step: number;
  /** A stale actor's call: the ended grant it acts with (its answer must show it changed nothing). */
  readonly stale?: { readonly act: GrantAct; readonly grant: EndedGrant };
}

/** A grant a session learned had ended (its RELEASED or EXPIRED event): what a client waking from a pause still holds. */
interface EndedGrant {
  readonly name: string;
  readonly token: number;
  readonly lease: number;
}

interface Session {
  readonly id: number;
  readonly keeper: boolean;
  readonly ttlMs: number;
  lease: number;
  /** The one request in flight (a client waits for its answer). */
  pending?: Pending;
  /** Names held → token, and names waited on, as the committed history says. */
  readonly held: Map<string, number>;
  readonly waiting: Set<string>;
  /** Tokens it held and lost (most recent last): what a client waking from a pause would still use. */
  readonly stale: EndedGrant[];
  /** A crowd's grant to let go (lock-crowd.ts), then the ended grant to act on at once, how many times. */
  endDue?: string;
  staleDue?: { grant: EndedGrant; times: number };
  crowdEnding?: string;
  /** A name just acquired: write the fenced store with it next. */
  writeDue?: string;
  /** The last Grant/Acquire with a request id, for a retry. */
  lastWithId?: Command;
  nextRenewMs: number;
  pausedUntilMs: number;
  seq: number;
}

const decodeCommandOf = (e: Entry): Command | undefined => (e.data.length > 0 ? decodeCommand(e.data) : undefined);

/** Give up on an answer after this many steps (the entry may never commit). */
const PENDING_STEPS = 400;

export class LockWorkload {
  private readonly sessions: Session[];
  private readonly maxElapsedMs: number;
  /** The permits each name has, as the committed history says (SetPermits changes them). */
  private readonly permits = new Map<string, number>();
  /** The lease clock of the current leader (node, term, incarnation); reset on any leadership change. */
  private clock:
    | {
        node: SimNode;
        term: number;
        incarnation: number;
        lastMarkMs: number;
        nextTickStep: number;
        inflight?: { proposal: Proposal; renewed: readonly number[] };
        renewals: Set<number>;
      }
    | undefined;
  ticksProposed = 0;
  /** Stale actors' calls answered, and crowds (gathered; triggered with waiters queued). */
  staleCalls = 0;
  readonly crowds: Crowds;
  private readonly owners = new TokenOwners();

  constructor(
    readonly mix: LockMix,
    private readonly rnd: Prng,
    private readonly driver: LockDriver,
  ) {
    this.maxElapsedMs = 2 * mix.tickEvery * mix.stepMs;
    this.sessions = Array.from({ length: mix.sessions }, (_, i) => ({
      id: i + 1,
      keeper: rnd.chance(mix.keeperShare),
      ttlMs: rnd.pick(mix.ttls),
      lease: 0,
      held: new Map(),
      waiting: new Set(),
      stale: [],
      nextRenewMs: 0,
      pausedUntilMs: 0,
      seq: 0,
    }));
    const host: CrowdHost = {
      rnd,
      stepMs: mix.stepMs,
      tickEvery: mix.tickEvery,
      members: () => this.sessions,
      names: () => mix.names,
      candidate: (name) => {
        const view = this.driver.leader()?.lock?.machine.inspectLock(name);
        if (!view || view.election) return undefined;
        const free = !view.held && view.waitingLeaseIds.length === 0;
        return { permits: free ? mix.kinds[name].permits : view.permits, free, rw: mix.kinds[name].rw || view.holders.some((x) => x.shared) };
      },
      propose: (s, cmd, step) => {
        const target = this.driver.leader();
        if (!target) return;
        const proposal = this.driver.proposeCommand(target, cmd, s ? `s${s.id}` : 'admin');
        if (s) (s as Session).pending = { proposal, cmd, step };
      },
    };
    this.crowds = new Crowds(host);
  }

  /** One step of client traffic and of the leader's lease clock. */
  step(step: number): void {
    const nowMs = step * this.mix.stepMs;
    this.runClock(step, nowMs);
    this.crowds.step(step, nowMs);
    for (const s of this.sessions) {
      if (s.pending && (s.pending.proposal.refused || step - s.pending.step > PENDING_STEPS)) s.pending = undefined;
      if (s.lease === 0 || nowMs < s.pausedUntilMs) continue;
      if (s.keeper && this.rnd.chance(this.mix.pauseRate)) {
        s.pausedUntilMs = nowMs + this.rnd.range(s.ttlMs / 2, 3 * s.ttlMs);
        continue;
      }
      if (s.keeper && nowMs >= s.nextRenewMs && this.clock) {
        // A keepalive reaches the leader's lease clock; it rides in the next Tick.
        this.clock.renewals.add(s.lease);
        s.nextRenewMs = nowMs + Math.max(this.mix.stepMs, Math.floor(s.ttlMs / 3));
      }
    }
    if (!this.rnd.chance(this.mix.actRate)) return;
    const s = this.rnd.pick(this.sessions);
    if (s.pending || nowMs < s.pausedUntilMs) return;
    const { cmd, stale } = this.nextMove(s);
    const target = this.rnd.chance(0.1) ? this.driver.anyUp() : this.driver.leader();
    if (!target) return;
    s.pending = { proposal: this.driver.proposeCommand(target, cmd, `s${s.id}`), cmd, step, ...(stale ? { stale } : {}) };
  }

  /** The lease clock: the leader proposes a Tick every `tickEvery` steps, one at a time, while leases live. */
  private runClock(step: number, nowMs: number): void {
    const leader = this.driver.leader();
    const c = this.clock;
    if (!leader) {
      this.clock = undefined;
      return;
    }
    if (!c || c.node !== leader || c.term !== leader.term || c.incarnation !== leader.incarnation) {
      // A new leadership counts from its election; keepalives sent to the old one are dropped unanswered.
      this.clock = {
        node: leader,
        term: leader.term,
        incarnation: leader.incarnation,
        lastMarkMs: nowMs,
        nextTickStep: step + this.mix.tickEvery,
        renewals: new Set(),
      };
      return;
    }
    const inflight = c.inflight;
    if (inflight?.proposal.refused) {
      // Refused (leadership being handed over): its keepalives ride in the next Tick.
      for (const id of inflight.renewed) c.renewals.add(id);
      c.inflight = undefined;
    } else if (inflight?.proposal.at && leader.app.index >= inflight.proposal.at.index) c.inflight = undefined;
    if (step < c.nextTickStep || c.inflight !== undefined) return;
    c.nextTickStep = step + this.mix.tickEvery;
    if (c.renewals.size === 0 && !leader.lock!.machine.hasLiveLeases()) {
      c.lastMarkMs = nowMs; // idle: nothing to expire, nothing to count
      return;
    }
    const raw = nowMs - c.lastMarkMs;
    const elapsedMs = Math.min(raw, this.maxElapsedMs);
    c.lastMarkMs = raw > this.maxElapsedMs ? nowMs : c.lastMarkMs + elapsedMs;
    // Bounded expiry as production's lease clock sets it (lease-clock.ts: every member runs this build here).
    const expiryWork = tickExpiryWork(undefined, MAX_TICK_EXPIRY_WORK);
    const cmd: Command = {
      type: 'Tick',
      elapsedMs,
      marginMs: this.maxElapsedMs,
      driftPpm: DRIFT_BOUND_PPM,
      renewed: [...c.renewals].sort((a, b) => a - b),
      ...(expiryWork ? { expiryWork } : {}),
    };
    c.renewals = new Set();
    c.inflight = { proposal: this.driver.proposeCommand(leader, cmd, 'clock'), renewed: cmd.renewed };
    this.ticksProposed++;
  }

  /** The session's next call: a crowd's release or stale act when one is due, else a drawn command. */
  private nextMove(s: Session): { cmd: Command; stale?: Pending['stale'] } {
    if (s.endDue !== undefined) {
      const name = s.endDue;
      s.endDue = undefined;
      const token = s.held.get(name);
      if (token !== undefined && s.lease !== 0) {
        s.crowdEnding = name;
        return { cmd: { type: 'Release', name, token, leaseId: s.lease } };
      }
    }
    if (s.staleDue) {
      const due = s.staleDue;
      if (--due.times <= 0) s.staleDue = undefined;
      return this.staleMove(s, due.grant);
    }
    if (s.stale.length > 0 && s.lease !== 0 && this.rnd.chance(0.08)) return this.staleMove(s, this.rnd.pick(s.stale));
    return { cmd: this.nextCommand(s) };
  }

  /** A client that missed its loss acts with the ended grant g (lock-bound, so only its grant's token can pass). */
  private staleMove(s: Session, g: EndedGrant): { cmd: Command; stale?: Pending['stale'] } {
    const rnd = this.rnd;
    const r = rnd.float();
    const key = `stale/${g.name}`;
    const as = (act: GrantAct, cmd: Command) => ({ cmd, stale: { act, grant: g } });
    if (r < 0.3) return as('release', { type: 'Release', name: g.name, token: g.token });
    if (r < 0.5) return as('release', { type: 'Release', name: g.name, token: g.token, leaseId: g.lease });
    if (r < 0.8) return as('fenceWrite', { type: 'FenceWrite', key, value: new TextEncoder().encode(`s${s.id}@${g.token}`), token: g.token, lock: g.name });
    if (r < 0.9) return as('fenceDelete', { type: 'FenceDelete', key, token: g.token, lock: g.name });
    return as('proclaim', { type: 'Proclaim', name: g.name, token: g.token, value: `stale${s.id}`, leaseId: g.lease });
  }

  private nextCommand(s: Session): Command {
    const rnd = this.rnd;
    const rid = (kind: string) => (rnd.chance(0.3) ? `${kind}${s.id}.${++s.seq}` : undefined);
    if (s.lease === 0) {
      if (s.lastWithId?.type === 'Grant' && rnd.chance(0.2)) return s.lastWithId;
      const requestId = rid('g');
      const cmd: Command = { type: 'Grant', ttlMs: s.ttlMs, marginMs: this.maxElapsedMs, driftPpm: DRIFT_BOUND_PPM, ...(requestId ? { requestId } : {}) };
      if (requestId) s.lastWithId = cmd;
      return cmd;
    }
    if (s.writeDue !== undefined && s.held.has(s.writeDue)) {
      const name = s.writeDue;
      s.writeDue = undefined;
      return this.write(s, name, s.held.get(name)!);
    }
    // What a client with a lease may do next, weighted; only the choices that make sense now are offered.
    const held = [...s.held.keys()];
    const choices: [number, () => Command][] = [];
    if (s.stale.length > 0) {
      // A client that missed its loss still uses its old token.
      choices.push([
        10,
        () => {
          // Unbound writes are judged by the fenced store's order (lock-checkers.ts), lock-bound ones by staleMove.
          const old = rnd.pick(s.stale);
          return rnd.chance(0.6) ? this.write(s, old.name, old.token) : { type: 'Release', name: old.name, token: old.token };
        },
      ]);
    }
    if (held.length > 0) {
      const name = rnd.pick(held);
      const token = s.held.get(name)!;
      // Every grant has a token of its own: with or without the lease named, a Release frees only this grant.
      const release: Command = { type: 'Release', name, token, ...(rnd.chance(0.8) ? { leaseId: s.lease } : {}) };
      choices.push([18, () => release], [10, () => this.write(s, name, token)]);
      // A read-write lock's holder asks shared: a downgrade if it holds exclusive (and else a re-assertion).
      if (this.mix.kinds[name].rw) choices.push([4, () => ({ type: 'Acquire', name, leaseId: s.lease, wait: false, shared: true })]);
      // An election's leader (a mutex holder) proclaims a new value; a stale token is refused.
      else if (this.mix.kinds[name].permits === 1) choices.push([3, () => ({ type: 'Proclaim', name, token, value: `s${s.id}.${++s.seq}` })]);
    }
    const sem = this.mix.names.filter((n) => this.mix.kinds[n].permits > 1);
    if (sem.length > 0) choices.push([2, () => ({ type: 'SetPermits', name: rnd.pick(sem), permits: rnd.range(1, 4) })]);
    if (s.waiting.size > 0) choices.push([8, () => ({ type: 'CancelWait', name: rnd.pick([...s.waiting]), leaseId: s.lease })]);
    const retry = s.lastWithId?.type === 'Acquire' && s.lastWithId.leaseId === s.lease ? s.lastWithId : undefined;
    if (retry) choices.push([6, () => retry]);
    choices.push([2, () => ({ type: 'Revoke', leaseId: s.lease })]);
    choices.push([
      45,
      () => {
        const requestId = rid('a');
        const name = rnd.pick(this.mix.names);
        const kind = this.mix.kinds[name];
        // The permits the name has now (or, rarely, a wrong value: FAILED_PRECONDITION).
        const permits = rnd.chance(0.05) ? rnd.range(1, 4) : (this.permits.get(name) ?? kind.permits);
        const shared = kind.rw && rnd.chance(0.6);
        const lockDelayMs = rnd.pick(this.mix.delays);
        const cmd: Command = {
          type: 'Acquire',
          name,
          leaseId: s.lease,
          wait: rnd.chance(0.6),
          ...(permits > 1 && !shared ? { permits } : {}),
          ...(shared ? { shared } : {}),
          ...(lockDelayMs > 0 ? { lockDelayMs } : {}),
          ...(kind.permits === 1 && !kind.rw && rnd.chance(0.3) ? { value: `s${s.id}` } : {}),
          ...(requestId ? { requestId } : {}),
        };
        if (requestId) s.lastWithId = cmd;
        return cmd;
      },
    ]);
    let r = rnd.float() * choices.reduce((a, [w]) => a + w, 0);
    for (const [w, make] of choices) {
      if (r < w) return make();
      r -= w;
    }
    return choices[choices.length - 1][1]();
  }

  private write(s: Session, key: string, token: number): Command {
    return { type: 'FenceWrite', key, value: new TextEncoder().encode(`s${s.id}@${token}`), token };
  }

  /** An entry applied for the first time anywhere (the committed history, in index order). */
  committed(e: Entry, out: ApplyOutput): void {
    for (const s of this.sessions) {
      const p = s.pending;
      if (!p || p.proposal.at?.index !== e.index) continue;
      s.pending = undefined;
      if (p.proposal.at.term !== e.term) continue; // lost: another entry was committed there
      const r = out.result;
      if (!r) continue;
      if (p.stale) this.judgeStale(s, p.stale, r, e.index);
      if (r.type === 'Grant' && r.ok) {
        s.lease = r.leaseId;
        s.nextRenewMs = 0;
      } else if (!r.ok && r.error === 'NOT_FOUND' && (r.type === 'Acquire' || r.type === 'Revoke')) {
        this.leaseGone(s, p.cmd.type === 'Acquire' || p.cmd.type === 'Revoke' ? p.cmd.leaseId : s.lease);
      }
    }
    if (out.result?.type === 'SetPermits' && out.result.ok) {
      const cmd = decodeCommandOf(e);
      if (cmd?.type === 'SetPermits') this.permits.set(cmd.name, out.result.permits);
    }
    if (out.result?.type === 'Tick' && out.result.ok) {
      for (const id of out.result.gone) for (const s of this.sessions) if (s.lease === id) this.leaseGone(s, id);
    }
    for (const ev of out.events) this.event(ev);
  }

  /** A stale actor's answer: anything but "changed nothing" breaks the proto's promise. */
  private judgeStale(s: Session, st: NonNullable<Pending['stale']>, r: NonNullable<ApplyOutput['result']>, index: number): void {
    this.staleCalls++;
    if (!r.ok) return;
    const answer = r.type === 'Release' ? { released: r.released } : {};
    const broken = staleActBroken(st.act, answer, `session s${s.id}'s ended grant (${st.grant.name}, lease ${st.grant.lease}, token ${st.grant.token})`);
    if (broken) fail('Stale Actor', undefined, `entry ${index}: ${broken}`);
  }

  private event(ev: StateEvent): void {
    if (ev.type === 'ACQUIRED') {
      const broken = this.owners.add({ name: ev.name, lease: ev.leaseId, token: ev.token });
      if (broken) fail('Token Unique', undefined, broken);
    }
    const s = this.sessions.find((x) => x.lease === ev.leaseId && x.lease !== 0);
    if (!s) return;
    switch (ev.type) {
      case 'ACQUIRED':
        s.held.set(ev.name, ev.token);
        s.waiting.delete(ev.name);
        if (this.rnd.chance(0.8)) s.writeDue = ev.name;
        return;
      case 'RELEASED':
      case 'EXPIRED': {
        s.held.delete(ev.name);
        const g = { name: ev.name, token: ev.token, lease: ev.leaseId };
        s.stale.push(g);
        if (s.stale.length > 4) s.stale.shift();
        // A crowd's grant let go: act on with it at once, while the others granted with it hold.
        if (s.crowdEnding === ev.name) {
          s.crowdEnding = undefined;
          s.staleDue = { grant: g, times: this.rnd.range(1, 3) };
        }
        return;
      }
      case 'QUEUED':
        s.waiting.add(ev.name);
        return;
      case 'WAITER_REMOVED':
      case 'WAIT_CANCELLED':
        s.waiting.delete(ev.name);
        return;
      case 'LEASE_EXPIRED':
      case 'LEASE_REVOKED':
        this.leaseGone(s, ev.leaseId);
        return;
      default:
        return;
    }
  }

  private leaseGone(s: Session, id: number): void {
    if (s.lease !== id) return;
    s.lease = 0;
    s.held.clear();
    s.waiting.clear();
    s.writeDue = undefined;
  }

  /** A harmless command for the liveness phase (a short lease nobody keeps). */
  static livenessCommand(): Command {
    return { type: 'Grant', ttlMs: MIN_TTL_MS, marginMs: 0 };
  }
}
