// One node's view, as the page knows it: the `state` snapshot /events opens with, then every event
// after it applied in order. Nothing here is guessed: each field is a number the node published.
// Pure (no DOM, no network), so that it reads like the state machine it mirrors.

/** Rows kept per table; beyond them the page says the view is cut (the node's snapshot is cut at 200). */
export const MODEL_ROWS = 2000;
/** Entry terms remembered by index, to key the timeline by (term, index). */
const TERMS_KEPT = 4096;

export class NodeModel {
  constructor(node) {
    this.node = node;
    this.reset();
  }

  reset() {
    this.synced = false; // a state snapshot has arrived
    this.term = 0;
    this.role = 'unknown';
    this.leader = '';
    this.last = 0;
    this.commit = 0;
    this.applied = 0;
    this.now = 0;
    this.lastTick = undefined; // { index, elapsedMs }
    /** leaseId → { ttlMs, deadline } */
    this.leases = new Map();
    /**
     * name → { holders: { leaseId, token, shared, value }[] (grant order; a semaphore or shared readers: several),
     * queue: leaseId[], permits, election, delayUntil (logical ms, 0 = none) }
     */
    this.locks = new Map();
    /** key → { token, deleted, refused?: { token, highest, index } } */
    this.fence = new Map();
    this.cut = { leases: false, locks: false, fence: false };
    /** What the node's replayed history covered: { complete, count } (undefined: none received yet). */
    this.history = undefined;
    this.entryTerms = new Map();
    /** index → what that entry granted ("name → lease L, token T"), for the log strip. */
    this.grants = new Map();
    /** index → term of entries appended here and not yet applied, where an `appended` event said it (its last entry's). */
    this.appendedTerms = new Map();
    /** Leader only, about once a second: [{ id, match, next, state }] (undefined: not leader, or not heard yet). */
    this.progress = undefined;
    this.lost = 0;
    this.seq = 0;
    /** The node's worst event-loop delay and heartbeat gap (as leader) in its last reported second, ms. */
    this.loopLagMs = undefined;
    this.heartbeatGapMs = undefined;
    /** The node's Raft timing, ms: { tickMs, heartbeatMs, electionMs } (undefined: an older node said none). */
    this.timing = undefined;
  }

  /** The `state` event: replaces everything. */
  applyState(s) {
    this.reset();
    this.synced = true;
    this.seq = s.seq;
    this.term = s.term;
    this.role = s.role;
    this.leader = s.leader;
    this.last = s.lastIndex;
    this.commit = s.commit;
    this.applied = s.applied;
    if (s.timing && Number.isFinite(s.timing.electionMs))
      this.timing = { tickMs: s.timing.tickMs, heartbeatMs: s.timing.heartbeatMs, electionMs: s.timing.electionMs };
    const m = s.machine;
    this.now = m.now;
    for (const l of m.leases.rows) this.leases.set(l.leaseId, { ttlMs: l.ttlMs, deadline: l.deadline });
    for (const l of m.locks.rows)
      this.locks.set(l.name, {
        holders: l.holders.map((x) => ({ ...x })),
        queue: [...l.queue],
        permits: l.permits,
        election: l.election,
        delayUntil: l.delayUntil,
      });
    for (const f of m.fence.rows) this.fence.set(f.key, { token: f.token, deleted: f.deleted });
    this.cut = {
      leases: m.leases.total > m.leases.rows.length,
      locks: m.locks.total > m.locks.rows.length || m.locks.rows.some((l) => l.queueLength > l.queue.length),
      fence: m.fence.total > m.fence.rows.length,
    };
  }

  /**
   * The `history` event after the state: the node's recent decisions, which the state already
   * reflects (never applied again). What no table holds is read from them: each fenced key's last
   * refusal. Returns the events, for the timeline.
   */
  applyHistory(h) {
    const events = Array.isArray(h?.events) ? h.events : [];
    this.history = { complete: h?.complete === true, count: events.length };
    for (const ev of events) {
      if (ev.type !== 'fence' || ev.accepted) continue;
      const row = this.fence.get(ev.key);
      if (row) row.refused = { token: ev.token, highest: ev.highest, index: ev.index }; // the latest wins
    }
    return events;
  }

  /**
   * The last `n` entries of this node's log, oldest first, for the log strip: index, term (known when
   * applied here, or as the last entry of an append; undefined otherwise: appended before the page
   * connected, or inside an append of several terms), and whether it is committed and applied.
   */
  tail(n) {
    const out = [];
    for (let i = Math.max(1, this.last - n + 1); i <= this.last; i++) {
      out.push({
        index: i,
        term: this.entryTerms.get(i) ?? this.appendedTerms.get(i),
        committed: i <= this.commit,
        applied: i <= this.applied,
        ...(this.grants.has(i) ? { grants: this.grants.get(i) } : {}),
      });
    }
    return out;
  }

  /** The entry term of `index` when this node applied it (its current term otherwise). */
  termOf(index) {
    return this.entryTerms.get(index) ?? this.term;
  }

  /**
   * Apply one event; returns what the explanation needs that the event itself does not carry
   * (read from the view just before the event changed it), or undefined.
   */
  applyEvent(ev) {
    this.seq = ev.seq;
    this.term = Math.max(this.term, ev.term);
    switch (ev.type) {
      case 'role':
        this.role = ev.role;
        this.leader = ev.leader;
        if (ev.role !== 'leader') this.progress = undefined;
        return this.timing ? { timing: this.timing } : undefined;
      case 'progress':
        this.progress = ev.followers.map((id, k) => ({ id, match: ev.match[k], next: ev.next[k], state: ev.state[k], inflight: ev.inflight?.[k] }));
        return undefined;
      case 'leader-changed':
        this.leader = ev.leader;
        return undefined;
      case 'loop-lag':
        this.loopLagMs = ev.maxMs;
        this.heartbeatGapMs = ev.heartbeatGapMs;
        return undefined;
      case 'appended':
        this.last = ev.last; // a conflicting suffix may have been cut: last can go down
        for (const i of this.appendedTerms.keys()) if (i >= ev.first) this.appendedTerms.delete(i); // replaced
        this.appendedTerms.set(ev.last, ev.lastTerm);
        if (this.appendedTerms.size > TERMS_KEPT) this.appendedTerms.delete(this.appendedTerms.keys().next().value);
        return undefined;
      case 'committed':
        this.commit = Math.max(this.commit, ev.index);
        return undefined;
      case 'applied':
        this.applied = Math.max(this.applied, ev.index);
        this.entryTerms.set(ev.index, ev.entryTerm);
        this.appendedTerms.delete(ev.index);
        if (this.entryTerms.size > TERMS_KEPT) this.entryTerms.delete(this.entryTerms.keys().next().value);
        return undefined;
      case 'snapshot':
        // An installed snapshot replaced the whole state, and no event says with what: this view
        // is not the node's until a fresh `state` replaces it (main.js reconnects for one).
        if (ev.how === 'installed') this.synced = false;
        return undefined;
      case 'tick': {
        const before = this.now;
        // The deadlines of the leases this Tick expires, as they stood before it (their lease-ended events follow).
        const deadlines = ev.expired.map((id) => this.leases.get(id)?.deadline);
        this.now = ev.now;
        this.lastTick = { index: ev.index, elapsedMs: ev.elapsedMs };
        ev.renewed.forEach((id, k) => {
          const l = this.leases.get(id);
          if (l && ev.deadlines[k] > 0) l.deadline = ev.deadlines[k];
        });
        // A lock-delay ends at the first Tick whose now reaches it (no event of its own when nobody waits).
        for (const l of this.locks.values()) if (l.delayUntil !== 0 && l.delayUntil <= ev.now) l.delayUntil = 0;
        return { before, deadlines };
      }
      case 'lease-granted':
        this.put(this.leases, 'leases', ev.leaseId, { ttlMs: ev.ttlMs, deadline: ev.deadline });
        return { now: this.now };
      case 'lease-ended': {
        const l = this.leases.get(ev.leaseId);
        this.leases.delete(ev.leaseId);
        return { now: this.now, deadline: l?.deadline, ttlMs: l?.ttlMs };
      }
      case 'lock-granted': {
        this.grants.set(ev.index, [...(this.grants.get(ev.index) ?? []), `${ev.name} → lease ${ev.leaseId}, token ${ev.token}`]);
        if (this.grants.size > TERMS_KEPT) this.grants.delete(this.grants.keys().next().value);
        const prev = this.locks.get(ev.name);
        const queue = (prev?.queue ?? []).filter((id) => id !== ev.leaseId);
        // Mode fields until the entry's lock-mode event says them: exclusive, no value.
        const holders = [...(prev?.holders ?? []).filter((x) => x.leaseId !== ev.leaseId), { leaseId: ev.leaseId, token: ev.token, shared: false, value: '' }];
        this.put(this.locks, 'locks', ev.name, {
          holders,
          queue,
          permits: prev?.permits ?? 1,
          election: prev?.election ?? false,
          delayUntil: prev?.delayUntil ?? 0,
        });
        return undefined;
      }
      case 'lock-mode': {
        const l = this.locks.get(ev.name);
        if (!l) return undefined; // shown only while held or waited for
        l.permits = ev.permits;
        l.election = ev.election;
        l.delayUntil = ev.delayUntil;
        const at = new Map(ev.holders.map((id, k) => [id, k]));
        for (const x of l.holders) {
          const k = at.get(x.leaseId);
          if (k === undefined) continue;
          x.shared = ev.shared[k] === true;
          x.value = ev.values[k] ?? '';
        }
        return undefined;
      }
      case 'lock-freed': {
        const l = this.locks.get(ev.name);
        if (l) {
          l.holders = l.holders.filter((x) => x.leaseId !== ev.leaseId);
          // A lock is shown only while held or waited for (a lock-delay alone is not shown: no event ends it).
          if (l.holders.length === 0 && l.queue.length === 0) this.locks.delete(ev.name);
        }
        return { now: this.now, deadline: this.leases.get(ev.leaseId)?.deadline };
      }
      case 'waiter': {
        const l = this.locks.get(ev.name);
        if (!l) return undefined;
        if (ev.action === 'queued') {
          if (!l.queue.includes(ev.leaseId)) l.queue.push(ev.leaseId);
          const first = l.holders[0];
          return { position: l.queue.length, holder: first?.leaseId ?? 0, token: first?.token ?? 0, holders: l.holders.length };
        }
        l.queue = l.queue.filter((id) => id !== ev.leaseId);
        if (l.holders.length === 0 && l.queue.length === 0) this.locks.delete(ev.name);
        return undefined;
      }
      case 'release':
        return { holderToken: this.locks.get(ev.name)?.holders[0]?.token ?? 0 };
      case 'fence': {
        const cur = this.fence.get(ev.key);
        if (ev.accepted) {
          this.put(this.fence, 'fence', ev.key, { token: ev.highest, deleted: ev.op === 'delete' });
          return { before: cur?.token ?? 0 };
        }
        const row = cur ?? { token: ev.highest, deleted: false };
        if (ev.stale) row.token = Math.max(row.token, ev.highest);
        row.refused = { token: ev.token, highest: ev.highest, index: ev.index };
        if (ev.stale || cur) this.put(this.fence, 'fence', ev.key, row);
        return { before: cur?.token ?? 0 };
      }
      default:
        return undefined;
    }
  }

  put(map, table, key, value) {
    if (!map.has(key) && map.size >= MODEL_ROWS) {
      this.cut[table] = true;
      return;
    }
    map.set(key, value);
  }
}
