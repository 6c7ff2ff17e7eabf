// Prometheus metrics of one node, read from its ObservedEvent stream (never counted a second time
// elsewhere). Counters count what THIS process applied or saw since it started (after a restart
// the log tail replayed past the snapshot is counted again, as any counter restarts). Two levels —
// live leases and queued waiters — are read from the state machine at scrape time instead: a level
// rebuilt from +1/-1 events would drift after a snapshot restore, whose contents arrive as no event.
// The replication counters (messages, Ready batches, LevelDB writes) are too hot for events: they
// are plain fields (loop-counters.ts) copied into their metrics at scrape time.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ObservedNode } from './node-view.js';
import type { EventBus } from './bus.js';
import type { ObservedEvent } from './observed-events.js';
import { MESSAGE_TYPES, type LoopCounters } from './loop-counters.js';
import { WATCH_MS } from './stall-watch.js';
import { admissionMetrics, type ObservedLimit } from './admission-metrics.js';
import { quotaMetrics } from './quota-metrics.js';

/** Events the metrics reader may fall behind by before it loses some (it never should: it only counts). */
const METRICS_QUEUE = 100_000;

export class NodeMetrics {
  readonly registry = new Registry();
  private readonly term: Gauge;
  private readonly isLeader: Gauge;
  private readonly leaderChanges: Counter;
  private readonly commitIndex: Gauge;
  private readonly appliedIndex: Gauge;
  private readonly committed: Counter;
  private readonly diskSync: Histogram;
  private readonly leaseExpired: Counter;
  private readonly grants: Counter;
  private readonly fenceRejected: Counter;
  private readonly lost: Counter;
  private lastCommit: number;
  private leadership = '';
  private readonly close_: () => void;

  /** `limits`: the client port's admission limits (api/admission/), when the node has them. */
  constructor(ctx: ObservedNode, bus: EventBus, limits?: () => readonly ObservedLimit[]) {
    const r = this.registry;
    r.setDefaultLabels({ node: ctx.config.id });
    collectDefaultMetrics({ register: r });
    const registers = [r];
    const st = ctx.driver.status();
    this.term = new Gauge({ name: 'lockd_raft_term', help: 'Current Raft term of this node.', registers });
    this.isLeader = new Gauge({ name: 'lockd_raft_is_leader', help: '1 if this node is the leader, else 0.', registers });
    this.leaderChanges = new Counter({
      name: 'lockd_raft_leader_changes_total',
      help: 'New leaderships (leader, term) this node learned of, itself included.',
      registers,
    });
    this.commitIndex = new Gauge({ name: 'lockd_raft_commit_index', help: 'Highest log index known committed on this node.', registers });
    this.appliedIndex = new Gauge({ name: 'lockd_raft_applied_index', help: 'Highest log index applied to the state machine on this node.', registers });
    this.committed = new Counter({ name: 'lockd_raft_proposals_committed_total', help: 'Log entries this node saw committed since it started.', registers });
    this.diskSync = new Histogram({
      name: 'lockd_disk_sync_duration_seconds',
      help: "Duration of the Raft loop's synced LevelDB writes (hard state, entries, snapshot).",
      buckets: [0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192],
      registers,
    });
    new Gauge({
      name: 'lockd_lease_active',
      help: "Live leases in this node's applied state.",
      registers,
      collect() {
        this.set(ctx.stateMachine.leaseCounts().live);
      },
    });
    this.leaseExpired = new Counter({ name: 'lockd_lease_expired_total', help: 'Leases expired by Ticks this node applied.', registers });
    this.grants = new Counter({
      name: 'lockd_lock_grants_total',
      help: 'Lock grants this node applied (direct acquires and hand-offs to a waiter).',
      labelNames: ['kind'],
      registers,
    });
    new Gauge({
      name: 'lockd_lock_waiters',
      help: "Leases queued waiting for a lock, in this node's applied state.",
      registers,
      collect() {
        this.set(ctx.stateMachine.leaseCounts().waiting);
      },
    });
    this.fenceRejected = new Counter({
      name: 'lockd_fence_rejected_total',
      help: "Fenced writes and deletes refused (reason stale: token below the key's highest).",
      labelNames: ['reason'],
      registers,
    });
    loopCounters(ctx.observe.source.counters, registers);
    loopTiming(ctx, registers);
    if (limits) admissionMetrics(limits, registers);
    quotaMetrics(ctx.stateMachine, registers);
    this.lost = new Counter({
      name: 'lockd_observe_events_lost_total',
      help: 'Observation events dropped because a reader fell behind.',
      labelNames: ['reader'],
      registers,
    });
    // Levels as of the start (a restored node begins at its snapshot); events move them from here.
    this.term.set(st.term);
    this.isLeader.set(ctx.driver.isLeader() ? 1 : 0);
    this.commitIndex.set(st.commit);
    this.appliedIndex.set(ctx.driver.appliedIndex());
    this.lastCommit = st.commit;
    this.grants.inc({ kind: 'acquire' }, 0);
    this.grants.inc({ kind: 'handoff' }, 0);
    this.fenceRejected.inc({ reason: 'stale' }, 0);
    const sub = bus.subscribe(METRICS_QUEUE, () => {
      const { events, lost } = sub.take();
      if (lost > 0) this.lostBy('metrics', lost);
      for (const ev of events) this.count(ev);
    });
    this.close_ = () => sub.close();
  }

  /** A reader of the stream (metrics itself, an /events client) dropped `n` events. */
  lostBy(reader: 'metrics' | 'events', n: number): void {
    this.lost.inc({ reader }, n);
  }

  close(): void {
    this.close_();
  }

  private count(ev: ObservedEvent): void {
    this.term.set(ev.term);
    switch (ev.type) {
      case 'role':
        this.isLeader.set(ev.role === 'leader' ? 1 : 0);
        return;
      case 'leader-changed': {
        // A leadership is (leader, term): the same node elected again in a later term is a change;
        // the same leader heard from again after a moment of none is not.
        const leadership = `${ev.leader}@${ev.term}`;
        if (ev.leader !== '' && leadership !== this.leadership) this.leaderChanges.inc();
        if (ev.leader !== '') this.leadership = leadership;
        return;
      }
      case 'committed':
        if (ev.index > this.lastCommit) this.committed.inc(ev.index - this.lastCommit);
        this.lastCommit = Math.max(this.lastCommit, ev.index);
        this.commitIndex.set(this.lastCommit);
        return;
      case 'applied':
        this.appliedIndex.set(ev.index);
        return;
      case 'snapshot':
        if (ev.how === 'installed') this.appliedIndex.set(ev.index);
        return;
      case 'disk-sync':
        this.diskSync.observe(ev.ms / 1000);
        return;
      case 'lease-ended':
        if (ev.why === 'expired') this.leaseExpired.inc();
        return;
      case 'lock-granted':
        this.grants.inc({ kind: ev.handoff ? 'handoff' : 'acquire' });
        return;
      case 'fence':
        if (!ev.accepted) this.fenceRejected.inc({ reason: ev.stale ? 'stale' : 'other' });
        return;
      default:
        return;
    }
  }
}

/** Buckets for the loop's delays: a healthy loop sits in the first ones; an election timeout is 0.4 s to seconds. */
const DELAY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8];

/** The event loop's delay per watchdog turn (stall-watch.ts) and the gaps between the heartbeats this leader sends. */
function loopTiming(ctx: ObservedNode, registers: Registry[]): void {
  const delay = new Histogram({
    name: 'lockd_event_loop_delay_seconds',
    help: `How late the event loop ran a timer due every ${WATCH_MS} ms, per turn (perf_hooks' loop delay included): a stall of the whole node.`,
    buckets: DELAY_BUCKETS,
    registers,
  });
  const gap = new Histogram({
    name: 'lockd_raft_heartbeat_gap_seconds',
    help: 'Time between consecutive heartbeats this node sent one peer as leader (same term): what its followers waited.',
    buckets: DELAY_BUCKETS,
    registers,
  });
  const apply = new Histogram({
    name: 'lockd_apply_seconds',
    help: "Time the state machine took to apply one committed entry, by command type (Tick, Acquire, ...; noop and config for the core's own entries). Every replica applies every entry on its event loop.",
    labelNames: ['type'],
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  ctx.observe.source.onApplyTime = (type, seconds) => apply.observe({ type }, seconds);
  ctx.observe.stalls.onDelay = (ms) => delay.observe(ms / 1000);
  ctx.observe.source.heartbeats.onGap = (ms) => gap.observe(ms / 1000);
}

/**
 * The replication counters, each set from its LoopCounters field when scraped. A counter is only
 * ever moved up (inc by the difference), so it stays a valid Prometheus counter.
 */
function loopCounters(c: LoopCounters, registers: Registry[]): void {
  const counter = (name: string, help: string, read: () => number) => {
    let last = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const v = read();
        this.inc(v - last);
        last = v;
      },
    });
  };
  const perType = (name: string, help: string, byType: Record<string, number>) => {
    const last: Record<string, number> = {};
    new Counter({
      name,
      help,
      labelNames: ['type'],
      registers,
      collect() {
        for (const t of MESSAGE_TYPES) {
          this.inc({ type: t }, byType[t] - (last[t] ?? 0));
          last[t] = byType[t];
        }
      },
    });
  };
  perType('lockd_raft_messages_sent_total', 'Raft messages this node sent, by type (App, AppResp, Heartbeat, ...).', c.sent);
  perType('lockd_raft_messages_received_total', 'Raft messages this node received, by type.', c.received);
  counter('lockd_raft_app_entries_sent_total', 'Log entries carried by the App messages this node sent.', () => c.appEntriesSent);
  counter('lockd_raft_app_empty_sent_total', 'App messages this node sent with no entries (a probe, or a commit index alone).', () => c.emptyAppsSent);
  counter('lockd_raft_ready_batches_total', 'Ready batches the Raft loop handled (persist, send, apply).', () => c.readies);
  counter('lockd_raft_ready_batches_with_entries_total', 'Ready batches that appended at least one entry.', () => c.readiesWithEntries);
  counter('lockd_raft_ready_entries_total', 'Entries appended by Ready batches (on the leader: its proposals).', () => c.readyEntries);
  counter('lockd_raft_ready_committed_entries_total', 'Committed entries Ready batches handed to the state machine.', () => c.committedEntries);
  counter(
    'lockd_disk_synced_writes_total',
    'Synced LevelDB writes of the Raft loop (batches with entries, term, vote or snapshot; compactions).',
    () => c.syncedWrites,
  );
  counter('lockd_disk_synced_entries_total', 'Log entries written by synced LevelDB writes (per write: entries per persist).', () => c.syncedEntries);
  counter('lockd_disk_unsynced_writes_total', 'Unsynced LevelDB writes of the Raft loop (a commit-only hard state).', () => c.unsyncedWrites);
}
