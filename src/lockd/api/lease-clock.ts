// The lease clock (DESIGN §4): the leader, and only the leader, proposes Tick entries that advance
// the replicated logical time and carry the keepalives received since the previous Tick.
//  - elapsedMs is measured on performance.now() and capped at maxElapsed (two intervals), so after
//    a stall time catches up slowly: logical time may run slower than real time, never faster;
//  - at most one Tick is in flight: the next is proposed only after the previous was applied;
//  - a new leader measures from its election: time without a leader does not count;
//  - no Tick while no lease is live and no keepalive waits (an idle cluster writes nothing).
// A keepalive is answered from the applied Tick that carried it, in log order with the other events.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { NodeContext } from '../node/node-context.js';
import type { Entry } from '../../raft/types.js';
import { encodeCommand, type ApplyOutput, type TickCommand } from '../state-machine/index.js';
import type { ApiTiming } from './timing.js';

/** Receives the lease's TTL once the Tick carrying its renewal is applied; 0 = the lease is gone. */
export type RenewalReply = (ttlMs: number) => void;

type Batch = Map<number, RenewalReply[]>;

interface InFlight {
  readonly batch: Batch;
  readonly epoch: number;
}

export class LeaseClock {
  /** Bumped on every leadership change: results of an older leadership are ignored. */
  private epoch = 0;
  private leaderTerm = 0;
  private timer: NodeJS.Timeout | undefined;
  /** performance.now() up to which elapsed time has been counted. */
  private lastMark = 0;
  private inflight: InFlight | undefined;
  private pending: Batch = new Map();
  private ticksProposed = 0;
  private readonly logger: Logger;

  constructor(
    private readonly ctx: NodeContext,
    private readonly timing: ApiTiming,
  ) {
    this.logger = ctx.logger;
    ctx.driver.onRoleChange((role, _leader, term) => (role === 'leader' ? this.start(term) : this.stop()));
    ctx.driver.onApplied((entry, out) => this.applied(entry, out));
    if (ctx.driver.isLeader()) this.start(ctx.driver.status().term);
  }

  /** Leader only: carry `leaseId` in the next Tick; `reply` runs when it is applied. False if not leading. */
  renew(leaseId: number, reply: RenewalReply): boolean {
    if (!this.timer) return false;
    const replies = this.pending.get(leaseId);
    if (replies) replies.push(reply);
    else this.pending.set(leaseId, [reply]);
    return true;
  }

  /** For status and tests. */
  get running(): boolean {
    return this.timer !== undefined;
  }

  get proposed(): number {
    return this.ticksProposed;
  }

  private start(term: number): void {
    if (this.timer && term === this.leaderTerm) return;
    this.stop();
    this.epoch++;
    this.leaderTerm = term;
    this.lastMark = performance.now();
    this.timer = setInterval(() => this.tick(), this.timing.leaseTickMs);
    this.logger.info({ event: 'lease clock started', term, intervalMs: this.timing.leaseTickMs, maxElapsedMs: this.timing.maxElapsedMs }, 'lease clock started');
  }

  private stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.epoch++;
    this.inflight = undefined;
    // Renewals not yet committed are dropped unanswered: the keepalive streams end on step-down and
    // their clients resend to the new leader.
    const dropped = this.pending.size;
    this.pending = new Map();
    this.logger.info({ event: 'lease clock stopped', term: this.leaderTerm, droppedRenewals: dropped }, 'lease clock stopped');
  }

  private tick(): void {
    if (this.inflight) return;
    const now = performance.now();
    if (this.pending.size === 0 && !this.ctx.stateMachine.hasLiveLeases()) {
      this.lastMark = now; // idle: nothing to expire, nothing to count
      return;
    }
    const raw = now - this.lastMark;
    const elapsedMs = Math.floor(Math.min(raw, this.timing.maxElapsedMs));
    // Time beyond the cap is dropped (slower, never faster); below it the fraction carries over.
    this.lastMark = raw > this.timing.maxElapsedMs ? now : this.lastMark + elapsedMs;
    const batch = this.pending;
    this.pending = new Map();
    const cmd: TickCommand = { type: 'Tick', elapsedMs, marginMs: this.timing.maxElapsedMs, renewed: [...batch.keys()] };
    const flight: InFlight = { batch, epoch: this.epoch };
    this.inflight = flight;
    this.ticksProposed++;
    this.ctx.driver.propose(encodeCommand(cmd)).then(
      ({ result: out }) => {
        // Normally applied() has answered it already; this covers a Tick that landed in another term.
        if (this.inflight !== flight) return;
        this.answer(flight, out);
      },
      (e: unknown) => {
        if (this.inflight !== flight) return;
        this.inflight = undefined;
        // Still leading (else stop() ran): carry the renewals in the next Tick.
        for (const [id, replies] of batch) this.pending.set(id, [...replies, ...(this.pending.get(id) ?? [])]);
        this.logger.debug({ event: 'tick not applied', err: e, renewals: batch.size }, 'tick not applied; renewals carried over');
      },
    );
  }

  /** Every applied entry: a Tick of this leader's term is the one in flight (one at a time). */
  private applied(entry: Entry, out: ApplyOutput): void {
    if (out.result?.type !== 'Tick' || !this.inflight || entry.term !== this.leaderTerm || this.inflight.epoch !== this.epoch) return;
    this.answer(this.inflight, out);
  }

  private answer(flight: InFlight, out: ApplyOutput): void {
    this.inflight = undefined;
    const r = out.result;
    if (r?.type !== 'Tick' || !r.ok) {
      this.logger.error({ event: 'tick refused', index: out.index, result: r }, 'tick refused by the state machine');
      for (const [id, replies] of flight.batch) this.pending.set(id, [...replies, ...(this.pending.get(id) ?? [])]);
      return;
    }
    const ttl = new Map(r.renewed.map((x) => [x.leaseId, x.ttlMs]));
    for (const [id, replies] of flight.batch) {
      for (const reply of replies) {
        try {
          reply(ttl.get(id) ?? 0);
        } catch (e) {
          this.logger.error({ event: 'keepalive reply failed', err: e, leaseId: id }, 'keepalive reply failed');
        }
      }
    }
    if (r.expired.length > 0) this.logger.debug({ event: 'tick', index: out.index, now: r.now, expired: r.expired }, 'tick expired leases');
  }

  close(): void {
    this.stop();
  }
}
