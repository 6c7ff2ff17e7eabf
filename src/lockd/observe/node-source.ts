// Turns what the node already produces into ObservedEvents on the bus: the driver's loop facts
// (DriverEvent), its role changes and applies (the state machine's results and LockEvents, read as
// they are, never recomputed), and the votes in peer messages. Nothing here decides anything.
import { performance } from 'node:perf_hooks';
import type { Entry, Message, NodeId, Ready } from '../../raft/types.js';
import type { DriverEvent } from './driver-events.js';
import { decodeCommand, type ApplyOutput, type Command, type LockStateMachine, type StateEvent } from '../state-machine/index.js';
import type { EventBus } from './bus.js';
import { HeartbeatGaps } from './heartbeat-gaps.js';
import { LoopCounters } from './loop-counters.js';

export class NodeSource {
  /** Messages, Ready batches and LevelDB writes, counted in place (read by metrics.ts at scrape time). */
  readonly counters = new LoopCounters();
  /** Gaps between the heartbeats this node sends as leader (metrics.ts, stall-watch.ts). */
  readonly heartbeats = new HeartbeatGaps();
  private leader: NodeId = '';
  /** Term and commit as last published (start: as on disk). */
  private term: number;
  private commit: number;
  /** performance.now() when the synced write in progress began; undefined when none is. */
  private syncSince: number | undefined;
  /** The Tick this node proposed last, as leader (one is in flight at a time): its term, bytes and measured time. */
  private proposedTick: { readonly term: number; readonly data: Uint8Array; readonly measuredMs: number } | undefined;

  constructor(
    private readonly bus: EventBus,
    private readonly self: NodeId,
    start: { readonly term: number; readonly commit: number } = { term: 0, commit: 0 },
    /** The applied state, read (right after an entry's apply) for the lease deadlines the results do not carry. */
    private readonly machine?: Pick<LockStateMachine, 'now' | 'timeToLive' | 'lockMode'>,
  ) {
    this.term = start.term;
    this.commit = start.commit;
  }

  /** Each applied entry's apply time in seconds, by command type ('noop', 'config' for the core's own): metrics.ts's lockd_apply_seconds. */
  onApplyTime?: (type: string, seconds: number) => void;

  /** Run the state machine's apply of `e`, timed (a histogram, not an event: it runs once per entry). */
  timedApply(e: Pick<Entry, 'type' | 'data'>, apply: () => ApplyOutput): ApplyOutput {
    const t0 = performance.now();
    const out = apply();
    this.onApplyTime?.(out.result?.type ?? (e.type === 'config' ? 'config' : 'noop'), (performance.now() - t0) / 1000);
    return out;
  }

  /** How long the synced write in progress has been outstanding (0: none): /livez's disk bound. */
  syncOutstandingMs(): number {
    return this.syncSince === undefined ? 0 : performance.now() - this.syncSince;
  }

  /** RaftDriverOptions.observer. */
  readonly driverEvent = (ev: DriverEvent): void => {
    switch (ev.kind) {
      case 'sync-started':
        this.syncSince = performance.now();
        return;
      case 'synced':
        this.syncSince = undefined;
        this.counters.write(true, ev.entries);
        this.bus.publish({ type: 'disk-sync', ms: ev.ms, entries: ev.entries });
        return;
      case 'unsynced':
        this.counters.write(false, 0);
        return;
      case 'persisted':
        this.counters.ready(ev.rd);
        return this.persisted(ev.rd);
      case 'snapshot-taken':
        this.bus.publish({ type: 'snapshot', how: 'taken', index: ev.index, bytes: ev.bytes });
        return;
    }
  };

  private persisted(rd: Ready): void {
    const hs = rd.hardState;
    if (hs && hs.term !== this.term) {
      const from = this.term;
      this.term = hs.term;
      this.bus.publish({ type: 'term-changed', from, vote: hs.vote });
    }
    if (rd.snapshot) this.bus.publish({ type: 'snapshot', how: 'installed', index: rd.snapshot.metadata.index, bytes: rd.snapshot.data.length });
    if (rd.entries.length > 0) {
      const last = rd.entries[rd.entries.length - 1];
      this.bus.publish({ type: 'appended', first: rd.entries[0].index, last: last.index, lastTerm: last.term });
    }
    if (hs && hs.commit > this.commit) {
      this.commit = hs.commit;
      this.bus.publish({ type: 'committed', index: hs.commit });
    }
  }

  /** RaftDriver.onRoleChange. */
  readonly roleChanged = (role: 'follower' | 'precandidate' | 'candidate' | 'leader', leader: NodeId): void => {
    this.bus.publish({ type: 'role', role, leader });
    if (leader !== this.leader) {
      const previous = this.leader;
      this.leader = leader;
      this.bus.publish({ type: 'leader-changed', leader, previous });
    }
  };

  /** Every message sent or received (counted); votes: a VoteResp/PreVoteResp received (someone's answer to us) or sent (ours to a candidate). */
  readonly message = (m: Message): void => {
    this.counters.message(m, m.to !== this.self);
    if (m.type === 'Heartbeat' && m.to !== this.self) this.heartbeats.sent(m.to, m.term);
    if (m.type !== 'VoteResp' && m.type !== 'PreVoteResp') return;
    const received = m.to === this.self;
    this.bus.publish({
      type: 'vote',
      voter: received ? m.from : this.self,
      candidate: received ? this.self : m.to,
      granted: !m.reject,
      pre: m.type === 'PreVoteResp',
      voteTerm: m.term,
    });
  };

  /** LeaseClock's onTickProposed: the applied Tick with these bytes in this term gets `measuredMs` in its event. */
  readonly tickProposed = (term: number, data: Uint8Array, measuredMs: number): void => {
    this.proposedTick = { term, data, measuredMs };
  };

  /** The time measured for Tick `entry` when this node proposed it (undefined: another node's, or unknown). */
  private measuredFor(entry: Entry): number | undefined {
    const p = this.proposedTick;
    if (!p || p.term !== entry.term || Buffer.compare(p.data, entry.data) !== 0) return undefined;
    this.proposedTick = undefined;
    return p.measuredMs;
  }

  /** RaftDriver.onApplied. */
  readonly applied = (entry: Entry, out: ApplyOutput): void => {
    const bus = this.bus;
    const r = out.result;
    // The command is decoded again only for the facts a result does not carry (names, tokens).
    const cmd: Command | undefined =
      r && (r.type === 'Tick' || r.type === 'Release' || r.type === 'FenceWrite' || r.type === 'FenceDelete') ? decodeCommand(entry.data) : undefined;
    bus.publish(
      r === undefined
        ? { type: 'applied', index: entry.index, entryTerm: entry.term, command: 'noop', ok: true }
        : r.ok
          ? { type: 'applied', index: entry.index, entryTerm: entry.term, command: r.type, ok: true }
          : { type: 'applied', index: entry.index, entryTerm: entry.term, command: r.type, ok: false, error: r.error, message: r.message },
    );
    if (r?.type === 'Tick' && r.ok && cmd?.type === 'Tick') {
      const renewed = r.renewed.map((x) => x.leaseId);
      const measuredMs = this.measuredFor(entry);
      bus.publish({
        type: 'tick',
        index: entry.index,
        now: r.now,
        elapsedMs: cmd.elapsedMs,
        ...(measuredMs === undefined ? {} : { measuredMs }),
        renewed,
        deadlines: renewed.map((id) => this.deadline(id)),
        expired: r.expired,
      });
    }
    if (r?.type === 'Grant' && r.ok && !r.duplicate)
      bus.publish({ type: 'lease-granted', index: entry.index, leaseId: r.leaseId, ttlMs: r.ttlMs, deadline: this.deadline(r.leaseId) });
    if (r?.type === 'Release' && cmd?.type === 'Release' && r.ok)
      bus.publish({ type: 'release', index: entry.index, name: cmd.name, token: cmd.token, ok: r.released });
    if ((cmd?.type === 'FenceWrite' || cmd?.type === 'FenceDelete') && r) {
      const op = cmd.type === 'FenceWrite' ? 'write' : 'delete';
      if (r.ok && (r.type === 'FenceWrite' || r.type === 'FenceDelete'))
        bus.publish({ type: 'fence', index: entry.index, op, key: cmd.key, token: cmd.token, accepted: true, stale: false, highest: r.highestToken });
      else if (!r.ok) {
        // A stale token is refused with the key's highest token: "33 < 34"; other refusals carry only their message.
        const stale = r.highestToken !== undefined;
        const highest = r.highestToken ?? 0;
        bus.publish({
          type: 'fence',
          index: entry.index,
          op,
          key: cmd.key,
          token: cmd.token,
          accepted: false,
          stale,
          highest,
          reason: stale ? `${cmd.token} < ${highest}` : r.message,
        });
      }
    }
    this.lockEvents(out.events);
  };

  /** Lease `id`'s deadline in the state as applied so far (0: not live, or no state to read). */
  private deadline(id: number): number {
    const ttl = this.machine?.timeToLive(id);
    return ttl && this.machine ? this.machine.now + ttl.remainingMs : 0;
  }

  private lockEvents(events: readonly StateEvent[]): void {
    const freed = new Set<string>();
    const touched = new Map<string, number>(); // name → the entry's index
    for (const ev of events) {
      if (ev.name !== '') touched.set(ev.name, ev.index);
      switch (ev.type) {
        case 'ACQUIRED':
          this.bus.publish({ type: 'lock-granted', index: ev.index, name: ev.name, leaseId: ev.leaseId, token: ev.token, handoff: freed.has(ev.name) });
          break;
        case 'RELEASED':
        case 'EXPIRED':
          freed.add(ev.name);
          this.bus.publish({
            type: 'lock-freed',
            index: ev.index,
            name: ev.name,
            leaseId: ev.leaseId,
            token: ev.token,
            why: ev.type === 'RELEASED' ? 'released' : 'expired',
          });
          break;
        case 'QUEUED':
          this.bus.publish({ type: 'waiter', index: ev.index, name: ev.name, leaseId: ev.leaseId, action: 'queued' });
          break;
        case 'WAITER_REMOVED':
          this.bus.publish({ type: 'waiter', index: ev.index, name: ev.name, leaseId: ev.leaseId, action: 'removed' });
          break;
        case 'WAIT_CANCELLED':
          this.bus.publish({ type: 'waiter', index: ev.index, name: ev.name, leaseId: ev.leaseId, action: 'cancelled' });
          break;
        case 'LEASE_GRANTED':
          break; // published from the Grant result, which carries the TTL
        case 'LEASE_EXPIRED':
        case 'LEASE_REVOKED':
          this.bus.publish({ type: 'lease-ended', index: ev.index, leaseId: ev.leaseId, why: ev.type === 'LEASE_EXPIRED' ? 'expired' : 'revoked' });
          break;
      }
    }
    // Each touched lock's mode after the entry (permits, shared/exclusive, lock-delay, election value):
    // what its grants alone do not tell a viewer. A lock that no longer exists has none to tell.
    if (!this.machine) return;
    for (const [name, index] of touched) {
      const m = this.machine.lockMode(name);
      if (!m) continue;
      this.bus.publish({
        type: 'lock-mode',
        index,
        name,
        permits: m.permits,
        election: m.election,
        delayUntil: m.delayUntil,
        holders: m.holders.map((h) => h.leaseId),
        shared: m.holders.map((h) => h.shared),
        values: m.election ? m.holders.map((h) => h.value) : [],
      });
    }
  }
}
