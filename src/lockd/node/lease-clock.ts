// The lease clock (docs/design.md §4): the leader, and only the leader, proposes Tick entries that advance
// the replicated logical time and carry the keepalives received since the previous Tick. The node owns
// it (lockd-node.ts builds and closes it), so replicated time runs whatever services are registered;
// services hand it keepalives through NodeContext.leaseClock (LeaseRenewals) and never run it.
//  - elapsedMs is measured on the node's monotonic clock (performance.now(): node/clock.ts) and capped at maxElapsed (two intervals), so after
//    a stall time catches up slowly: logical time may run slower than real time, never faster;
//  - at most one Tick is in flight: the next is proposed only after the previous was applied;
//  - a renewal (or a cleanup backlog a bounded Tick left: lease-commands.ts) does not wait for the
//    interval: it prompts a Tick at once (after the current input, so the keepalives of one
//    event-loop turn share it), or, with a Tick in flight, as soon as
//    that one is applied (renewals arriving meanwhile ride the next). Ticks are never closer than
//    RENEWAL_TICK_GAP_MS apart, so a keepalive flood costs at most 1000 / RENEWAL_TICK_GAP_MS Ticks a
//    second (and, one at a time, at most one per commit round trip). Safety is unchanged: a renewal
//    still counts from the committed Tick's logical time, and a Tick proposed sooner only means
//    logical time lags real time by less (elapsed is still measured, floored, and capped);
//  - a new leader measures from its election: time without a leader does not count;
//  - no Tick while no lease is live and no keepalive waits (an idle cluster writes nothing).
// A keepalive is answered from the applied Tick that carried it, in log order with the other events.
//
// Nothing a client sends can stop this clock (docs/lessons.md 14):
//  - a renewal for a lease this leader's state does not hold never enters a Tick. Its id is the
//    index of the Grant entry that would have made it: at or below the applied index, the committed
//    log itself says the lease is gone (ended, or never granted there), so it is answered ttl 0 at
//    once. Beyond it, only a leader that still leads may say so: a deposed leader that does not know
//    it yet (paused, partitioned, short of checkQuorum) has not applied what the new leader granted,
//    and would tell a live holder its locks are gone (etcd #15247 is the same stale-leader class).
//    Those renewals are answered after one ReadIndex (for all that arrived before it), asked again
//    after CONFIRM_RETRY_MS if it has not settled; a lease that turns out live goes to the queue.
//    Before the leader has applied an entry of its own term its state may lag what clients were
//    told, so until then such renewals wait in the queue and are sorted out at that entry, or by
//    the Tick that carries them;
//  - the queue holds each lease once (later keepalives of a queued lease share its answer), in
//    arrival order; a Tick takes at most MAX_TICK_RENEWALS from its head and the rest roll into the
//    next Tick, which is proposed on time regardless;
//  - every Tick is checked with the state machine's own validateCommand before it is proposed (and the
//    widest one the timing allows, at construction): one it would refuse is a bug here, and stops the
//    node with a clear message rather than the clock;
//  - a Tick that is lost (leadership change) or refused puts its renewals back at the head of the
//    queue; the time it counted is dropped (slower, never faster) and the next Tick advances the clock.
import type { Logger } from 'pino';
import { InvariantError, type Entry } from '../../raft/types.js';
import {
  encodeCommand,
  leaderMargins,
  MAX_TICK_EXPIRY_WORK,
  MAX_TICK_RENEWALS,
  validateCommand,
  type ApplyOutput,
  type LockStateMachine,
  type TickCommand,
} from '../state-machine/index.js';
import { realClock, type Clock, type ClockTimer } from './clock.js';
import type { NodeConfig } from './config.js';
import type { RaftDriver } from './raft-driver.js';
import type { TestFaults } from './test-faults.js';
import { tickClusterVersion, tickExpiryWork } from './cluster-version.js';

/** Receives the lease's TTL once the Tick carrying its renewal is applied; 0 = the lease is gone. */
export type RenewalReply = (ttlMs: number) => void;

/** The lease clock aims at one Tick entry about every this many milliseconds (docs/design.md §4). */
export const LEASE_TICK_TARGET_MS = 100;

/** The clock's timing (the API's deadlines use the same: api/timing.ts). */
export interface LeaseClockTiming {
  /** Interval between Tick proposals: a whole number of node ticks, ~LEASE_TICK_TARGET_MS. */
  readonly leaseTickMs: number;
  /** Cap on one Tick's elapsedMs (two intervals), and the margin every deadline gets. */
  readonly maxElapsedMs: number;
}

export function leaseClockTiming(config: Pick<NodeConfig, 'tickMs'>): LeaseClockTiming {
  const leaseTickMs = config.tickMs * Math.max(1, Math.round(LEASE_TICK_TARGET_MS / config.tickMs));
  return { leaseTickMs, maxElapsedMs: 2 * leaseTickMs };
}

/** What the clock uses of the node (NodeContext has this shape). */
export interface LeaseClockDeps {
  readonly driver: RaftDriver<ApplyOutput>;
  readonly stateMachine: LockStateMachine;
  readonly logger: Logger;
  /** --unsafe-test-faults: its clock jumps apply to this clock. */
  readonly testFaults?: TestFaults;
  /** The node's time and timers (realClock unless given: the simulator gives its own). */
  readonly clock?: Clock;
  /** The cluster version as this node knows it (PeerDirectory.clusterVersion); absent: Ticks never state one. */
  readonly clusterVersion?: () => { readonly version: string; readonly complete: boolean };
  /**
   * Told of each Tick proposed: its term and bytes, and the time measured for it before the cap
   * (the Tick carries only what it counted): the observation stream shows both (NodeSource.tickProposed).
   */
  readonly onTickProposed?: (term: number, data: Uint8Array, measuredMs: number) => void;
}

/** What a service may use of the node's lease clock: hand it keepalives, read its state. Its lifecycle is the node's. */
export type LeaseRenewals = Pick<LeaseClock, 'renew' | 'running' | 'proposed' | 'queued' | 'unconfirmedCount'>;

/** Renewals by lease id, in arrival order (a Map iterates in insertion order). */
type Batch = Map<number, RenewalReply[]>;

interface InFlight {
  readonly batch: Batch;
  readonly epoch: number;
}

/**
 * Ticks prompted by renewals are at least this far apart (measured between proposals): at most 500
 * a second under a keepalive flood, on top of which the interval timer adds its ~10 a second.
 */
export const RENEWAL_TICK_GAP_MS = 2;

/** A ReadIndex for unknown leases not settled after this long (a read context lost) is asked again. */
export const CONFIRM_RETRY_MS = 1000;

/** The `where` of the clock's InvariantError: its Ticks are ones its own state machine accepts (a refused one is a bug in lockd, never a client's doing). */
export const LEASE_CLOCK = 'lockd lease clock';

export class LeaseClock {
  /** Bumped on every leadership change: results of an older leadership are ignored. */
  private epoch = 0;
  private leaderTerm = 0;
  /** The cluster version this leader's Ticks last stated in its term (cluster-version.ts tickClusterVersion). */
  private statedVersion: string | undefined;
  /** True once an entry of this leader's term was applied: from then on the state holds every lease a client was told of. */
  private caughtUp = false;
  private timer: ClockTimer | undefined;
  private readonly clock: Clock;
  /** clock.monoMs() up to which elapsed time has been counted. */
  private lastMark = 0;
  private inflight: InFlight | undefined;
  private pending: Batch = new Map();
  /** Renewals of ids beyond the applied index, waiting for the next ReadIndex (confirmGone). */
  private unconfirmed: Batch = new Map();
  /** The ReadIndex in flight for unknown leases, if any: its renewals and when it was asked. */
  private confirming: { readonly batch: Batch; readonly at: number } | undefined;
  private ticksProposed = 0;
  /** this.now() at the last Tick proposal (the gap between renewal-prompted Ticks counts from it). */
  private lastProposedAt = -Infinity;
  /** The epoch a prompted Tick is scheduled for (at most one scheduled), or -1. */
  private promptEpoch = -1;
  private promptTimer: ClockTimer | undefined;
  private readonly logger: Logger;
  /** clock.monoMs(), or with --unsafe-test-faults performance.now() plus any injected clock jump. */
  private readonly now: () => number;

  constructor(
    private readonly ctx: LeaseClockDeps,
    private readonly timing: LeaseClockTiming,
  ) {
    this.logger = ctx.logger;
    const faults = ctx.testFaults;
    const clock = (this.clock = ctx.clock ?? realClock);
    this.now = faults ? () => faults.now() : () => clock.monoMs();
    // The largest Tick this clock can build, as the state machine will judge it: refused means a
    // configuration this build cannot run (a tick cap beyond MAX_MARGIN_MS), so refuse to start.
    const widest = validateCommand({ type: 'Tick', elapsedMs: timing.maxElapsedMs, ...leaderMargins(timing.maxElapsedMs), renewed: [] });
    if (widest) throw new InvariantError(LEASE_CLOCK, 'widest-tick-accepted', `its timing gives Ticks the state machine refuses: ${widest.message}`);
  }

  /** Follow the driver's role changes and applies: from now on the clock runs whenever this node leads. Once. */
  run(): void {
    const driver = this.ctx.driver;
    driver.onRoleChange((role, _leader, term) => (role === 'leader' ? this.start(term) : this.stop()));
    driver.onApplied((entry, out) => this.applied(entry, out));
    if (driver.isLeader()) this.start(driver.status().term);
  }

  /**
   * Leader only: carry `leaseId` in a coming Tick; `reply` runs when it is applied. A lease the state
   * does not hold is answered 0 before this returns. False if not leading (`reply` never runs).
   */
  renew(leaseId: number, reply: RenewalReply): boolean {
    if (!this.timer) return false;
    const sm = this.ctx.stateMachine;
    const replies = this.pending.get(leaseId) ?? this.unconfirmed.get(leaseId);
    if (replies) replies.push(reply);
    else if (!this.caughtUp || sm.hasLease(leaseId)) {
      this.pending.set(leaseId, [reply]);
      this.prompt();
    } else if (leaseId <= sm.appliedIndex) this.answerGone(leaseId, [reply]);
    else {
      this.unconfirmed.set(leaseId, [reply]);
      if (!this.confirming) this.confirmGone();
    }
    return true;
  }

  /** For status and tests. */
  get running(): boolean {
    return this.timer !== undefined;
  }

  get proposed(): number {
    return this.ticksProposed;
  }

  /** Distinct leases waiting for a Tick (status, tests). */
  get queued(): number {
    return this.pending.size;
  }

  /** Distinct unknown leases waiting for a ReadIndex to be answered (status, tests). */
  get unconfirmedCount(): number {
    return this.unconfirmed.size + (this.confirming?.batch.size ?? 0);
  }

  private start(term: number): void {
    if (this.timer && term === this.leaderTerm) return;
    this.stop();
    this.epoch++;
    this.leaderTerm = term;
    this.statedVersion = undefined;
    this.caughtUp = false;
    this.lastMark = this.now();
    this.timer = this.clock.every(this.timing.leaseTickMs, () => this.tick());
    this.logger.info(
      { event: 'lease clock started', term, intervalMs: this.timing.leaseTickMs, maxElapsedMs: this.timing.maxElapsedMs },
      'lease clock started',
    );
  }

  private stop(): void {
    if (!this.timer) return;
    this.timer.clear();
    this.timer = undefined;
    this.promptTimer?.clear();
    this.promptTimer = undefined;
    this.promptEpoch = -1;
    this.epoch++;
    this.inflight = undefined;
    // Renewals not yet committed are dropped unanswered: the keepalive streams end on step-down and
    // their clients resend to the new leader.
    const dropped = this.pending.size + this.unconfirmedCount;
    this.pending = new Map();
    this.unconfirmed = new Map();
    this.confirming = undefined;
    this.logger.info({ event: 'lease clock stopped', term: this.leaderTerm, droppedRenewals: dropped }, 'lease clock stopped');
  }

  private tick(): void {
    const now = this.now();
    if (this.confirming && now - this.confirming.at > CONFIRM_RETRY_MS) {
      // Not settled in time (its read context lost?): ask again, for these and every later arrival.
      this.unconfirmed = mergeBehind(this.confirming.batch, this.unconfirmed);
      this.confirming = undefined;
    }
    if (!this.confirming && this.unconfirmed.size > 0) this.confirmGone();
    this.proposeTick(now);
  }

  /**
   * Queued renewals, or leases a bounded Tick left past their deadline (their cleanup pending), want
   * a Tick now: schedule one (once) for after the current input, or after the gap since the last
   * proposal. With a Tick in flight, nothing: its answer() prompts again. So a backlog of 100,000
   * due leases is cleaned up by Ticks back to back, not one per interval.
   */
  private prompt(): void {
    if (!this.timer || this.inflight || this.promptEpoch === this.epoch || !this.wantsTick()) return;
    const epoch = (this.promptEpoch = this.epoch);
    const fire = () => {
      if (this.promptEpoch !== epoch) return; // stepped down (or re-elected) since
      this.promptEpoch = -1;
      this.promptTimer = undefined;
      if (this.wantsTick()) this.proposeTick(this.now());
    };
    const wait = this.lastProposedAt + RENEWAL_TICK_GAP_MS - this.now();
    if (wait > 0) this.promptTimer = this.clock.after(Math.ceil(wait), fire);
    else this.clock.soon(fire);
  }

  private wantsTick(): boolean {
    return this.pending.size > 0 || this.ctx.stateMachine.cleanupPending();
  }

  /** Propose the next Tick (none while one is in flight, or when idle). */
  private proposeTick(now: number): void {
    if (this.inflight || !this.timer) return;
    if (this.pending.size === 0 && !this.ctx.stateMachine.hasLiveLeases()) {
      this.lastMark = now; // idle: nothing to expire, nothing to count
      return;
    }
    const raw = now - this.lastMark;
    const elapsedMs = Math.floor(Math.min(raw, this.timing.maxElapsedMs));
    // Time beyond the cap is dropped (slower, never faster); below it the fraction carries over.
    // Prompted by a renewal or by the interval, a Tick counts only time measured since the previous
    // mark: early Ticks split that time finer and add none, and the deadline of a renewal in this
    // batch (which arrived before now) counts from here, after its client sent it. So "the client
    // stops trusting first" holds as it did with interval Ticks (docs/design.md §4).
    this.lastMark = raw > this.timing.maxElapsedMs ? now : this.lastMark + elapsedMs;
    const batch = this.takeBatch();
    // The cluster version, once every member decodes the field (cluster-version.ts): an older replica refuses it.
    const cv = this.ctx.clusterVersion?.();
    const clusterVersion = cv ? tickClusterVersion(cv, this.statedVersion) : undefined;
    const expiryWork = tickExpiryWork(cv, MAX_TICK_EXPIRY_WORK);
    const cmd: TickCommand = {
      type: 'Tick',
      elapsedMs,
      ...leaderMargins(this.timing.maxElapsedMs),
      renewed: [...batch.keys()],
      ...(clusterVersion ? { clusterVersion } : {}),
      ...(expiryWork ? { expiryWork } : {}),
    };
    const problem = validateCommand(cmd);
    if (problem) throw new InvariantError(LEASE_CLOCK, 'tick-accepted', `it built a Tick its state machine refuses (${problem.message}): a bug in lockd`);
    const flight: InFlight = { batch, epoch: this.epoch };
    this.inflight = flight;
    this.ticksProposed++;
    this.lastProposedAt = now;
    const data = encodeCommand(cmd);
    this.ctx.onTickProposed?.(this.leaderTerm, data, Math.round(raw));
    this.ctx.driver.propose(data).then(
      ({ index, result: out }) => {
        if (clusterVersion && flight.epoch === this.epoch) {
          this.statedVersion = clusterVersion;
          this.logger.info(
            { event: 'cluster version stated', clusterVersion, index, term: this.leaderTerm },
            `cluster version ${clusterVersion} stated in the log at ${index} (every member runs it or newer)`,
          );
        }
        // Normally applied() has answered it already; this covers a Tick that landed in another term.
        if (this.inflight !== flight) return;
        this.answer(flight, out);
      },
      (e: unknown) => {
        if (this.inflight !== flight) return;
        this.inflight = undefined;
        // Still leading (else stop() ran): carry the renewals in the next Tick.
        this.requeue(batch);
        this.logger.debug({ event: 'tick not applied', err: e, renewals: batch.size }, 'tick not applied; renewals carried over');
      },
    );
  }

  /**
   * Up to MAX_TICK_RENEWALS queued leases, oldest first, taken off the queue. Once caught up, a lease
   * that ended while queued is answered here instead (ttl 0): the Tick carries only live leases.
   */
  private takeBatch(): Batch {
    const batch: Batch = new Map();
    for (const [id, replies] of this.pending) {
      if (batch.size >= MAX_TICK_RENEWALS) break;
      this.pending.delete(id);
      if (this.caughtUp && !this.ctx.stateMachine.hasLease(id)) this.answerGone(id, replies);
      else batch.set(id, replies);
    }
    return batch;
  }

  /** Put a Tick's renewals back at the head of the queue (later arrivals of the same lease join them). */
  private requeue(batch: Batch): void {
    this.pending = mergeBehind(batch, this.pending);
  }

  /**
   * Answer the renewals of leases beyond the applied index once a ReadIndex shows this node still
   * leads: the state then holds every lease granted before they arrived, so one still unknown is
   * gone (never granted). Renewals arriving meanwhile wait for the next ReadIndex, asked when this
   * one settles (or from tick(), after a failure or CONFIRM_RETRY_MS).
   */
  private confirmGone(): void {
    const asked = { batch: this.unconfirmed, at: this.now() };
    this.unconfirmed = new Map();
    this.confirming = asked;
    this.ctx.driver.readBarrier().then(
      () => {
        if (this.confirming !== asked) return; // stepped down, or given up on and asked again
        this.confirming = undefined;
        for (const [id, replies] of asked.batch) {
          if (!this.ctx.stateMachine.hasLease(id)) this.answerGone(id, replies);
          else joinQueue(this.pending, id, replies); // granted after all (its id guessed before its Grant applied)
        }
        this.prompt();
        if (this.unconfirmed.size > 0) this.confirmGone();
      },
      (e: unknown) => {
        if (this.confirming !== asked) return;
        this.confirming = undefined;
        // Still leading (else stop() ran): tick() asks again.
        this.unconfirmed = mergeBehind(asked.batch, this.unconfirmed);
        this.logger.debug(
          { event: 'unknown leases not confirmed', err: e, renewals: asked.batch.size },
          'read barrier for unknown leases failed; asking again',
        );
      },
    );
  }

  /** Every applied entry: the first of this leader's term catches it up; a Tick of its term is the one in flight (one at a time). */
  private applied(entry: Entry, out: ApplyOutput): void {
    if (!this.timer || entry.term !== this.leaderTerm) return;
    if (!this.caughtUp) this.catchUp();
    if (out.result?.type !== 'Tick' || !this.inflight || this.inflight.epoch !== this.epoch) return;
    this.answer(this.inflight, out);
  }

  /** The state now holds every lease granted before this leadership: answer the queued renewals of the others. */
  private catchUp(): void {
    this.caughtUp = true;
    let gone = 0;
    for (const [id, replies] of this.pending) {
      if (this.ctx.stateMachine.hasLease(id)) continue;
      this.pending.delete(id);
      this.answerGone(id, replies);
      gone++;
    }
    this.logger.debug(
      { event: 'lease clock caught up', term: this.leaderTerm, answeredGone: gone, queued: this.pending.size },
      'lease clock caught up with the log',
    );
  }

  private answer(flight: InFlight, out: ApplyOutput): void {
    this.inflight = undefined;
    const r = out.result;
    if (r?.type !== 'Tick' || !r.ok) {
      this.logger.error({ event: 'tick refused', index: out.index, result: r }, 'tick refused by the state machine');
      this.requeue(flight.batch);
      return;
    }
    const ttl = new Map(r.renewed.map((x) => [x.leaseId, x.ttlMs]));
    for (const [id, replies] of flight.batch) this.reply(id, replies, ttl.get(id) ?? 0);
    if (r.expired.length > 0) this.logger.debug({ event: 'tick', index: out.index, now: r.now, expired: r.expired }, 'tick expired leases');
    // Renewals that arrived while this Tick was in flight ride the next, now (or after the gap), and
    // a cleanup backlog this Tick left (bounded expiry) is worked off the same way.
    // Not after a refused or lost Tick: those retry on the interval, so a failing log is not hammered.
    this.prompt();
  }

  private answerGone(id: number, replies: RenewalReply[]): void {
    this.reply(id, replies, 0);
  }

  private reply(id: number, replies: RenewalReply[], ttlMs: number): void {
    for (const reply of replies) {
      try {
        reply(ttlMs);
      } catch (e) {
        this.logger.error({ event: 'keepalive reply failed', err: e, leaseId: id }, 'keepalive reply failed');
      }
    }
  }

  close(): void {
    this.stop();
  }
}

/** `first`, then the renewals of `later` (those of a lease already in `first` join its replies): a new map. */
function mergeBehind(first: Batch, later: Batch): Batch {
  const out: Batch = new Map(first);
  for (const [id, replies] of later) joinQueue(out, id, replies);
  return out;
}

/** Queue `replies` for `id` in `batch`, behind those already there. */
function joinQueue(batch: Batch, id: number, replies: RenewalReply[]): void {
  const head = batch.get(id);
  if (!head) batch.set(id, replies);
  else for (const r of replies) head.push(r); // no spread: a lease may have very many
}
