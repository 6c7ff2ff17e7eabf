// The lock app's properties, checked on every entry every node applies (and every snapshot it installs):
//  - Lock Replica Agreement: two replicas at the same applied index have the same stateDigest() and produced the
//    same result and events for that entry;
//  - Token Names Its Entry: every ACQUIRED token names the entry producing it (tokenIndex(token) = its index),
//    and every event's index is that entry's;
//  - Fencing Token Order: per lock name, ACQUIRED tokens strictly increase along the committed history, so each
//    is unique per lock (grants of one name by one entry too);
//  - Single Live Holder: a name is granted only when free, only to a live lease, released only by its holder,
//    and a lease that ends holds nothing; after each apply, every touched lock's holder has a live lease
//    (remaining time > 0) and is not also queued;
//  - Fenced Store: an accepted write never carries a token below the highest accepted for its key, and a
//    refused one without a lock always does (one naming its lock may also be refused by the sequencer check);
//  - Lease Timing: a model of docs/design.md §4 (logical now = sum of Tick elapsed; deadline = now + ttl + margin at the
//    Grant, pushed out, never in, by a renewal; a Tick expires exactly the leases whose deadline <= now) agrees
//    with every Tick's result: no lease expires early or late;
//  - Waiter Order: waiters are granted first-in first-out, and after each entry no queue's head could be
//    granted (it does not fit beside the holders, or a lock-delay runs);
//  - Holder Limit: at most `permits` exclusive holders of a name, and never an exclusive holder
//    beside a shared one (permits as the committed Acquires and SetPermits set them);
//  - Permits Agreement: an Acquire with other permits than a held or waited-on name's is refused;
//  - Lock Delay: no grant of a name while a lock-delay runs on it (started when a holder's lease expired or
//    was revoked: now + that grant's lock_delay_ms, on the modelled logical clock).
// The state machine's own assertions (InvariantError, where STATE_MACHINE) are reported as Lock Invariant (lock-app.ts).

import { decodeCommand, MAX_PERMITS, tokenIndex, type ApplyOutput, type Command } from '../../src/lockd/state-machine/index.js';
import type { Entry, NodeId } from '../../src/raft/types.js';
import { fail } from './checkers.js';
import { describeCommand } from './lock-app.js';
import type { SimNode } from './sim-node.js';

/** The clock-drift allowance of a deadline (docs/design.md §4), computed here apart from the code under test. */
const drift = (ttlMs: number, ppm = 0): number => Math.ceil((ttlMs * ppm) / 1e6);

export interface LockStats {
  entries: number;
  ticks: number;
  grants: number;
  /** ACQUIRED by an Acquire entry (a free name), and by a hand-off to the first waiter. */
  acquired: number;
  handoffs: number;
  /** Hand-offs made by a Tick: the holder's lease expired and the waiter got the lock in the same entry. */
  expiryHandoffs: number;
  tryHeld: number;
  queued: number;
  releases: number;
  staleReleases: number;
  leaseExpiries: number;
  lockExpiries: number;
  revokes: number;
  waiterRemovals: number;
  waitCancels: number;
  fenceWrites: number;
  staleFenceRejected: number;
  duplicates: number;
  notFound: number;
  digestChecks: number;
  /** Recipes: grants beside another holder (semaphore or shared), downgrades, SetPermits applied, delays started, grants at a delay's end. */
  sharedGrants: number;
  semaphoreGrants: number;
  downgrades: number;
  setPermits: number;
  delaysStarted: number;
  delayGrants: number;
  agreementRefusals: number;
}

export function emptyLockStats(): LockStats {
  return {
    entries: 0,
    ticks: 0,
    grants: 0,
    acquired: 0,
    handoffs: 0,
    expiryHandoffs: 0,
    tryHeld: 0,
    queued: 0,
    releases: 0,
    staleReleases: 0,
    leaseExpiries: 0,
    lockExpiries: 0,
    revokes: 0,
    waiterRemovals: 0,
    waitCancels: 0,
    fenceWrites: 0,
    staleFenceRejected: 0,
    duplicates: 0,
    notFound: 0,
    digestChecks: 0,
    sharedGrants: 0,
    semaphoreGrants: 0,
    downgrades: 0,
    setPermits: 0,
    delaysStarted: 0,
    delayGrants: 0,
    agreementRefusals: 0,
  };
}

export class LockChecker {
  /** index → stateDigest() after applying it, and the entry's result and events (canonical JSON). */
  private readonly digests: string[] = [];
  private readonly outputs: string[] = [];
  /** Along the committed history: the last token per name, the holder per name, the live leases, the fence. */
  private readonly lastToken = new Map<string, number>();
  /** name → lease → its grant (token, shared, lock-delay). */
  private readonly holders = new Map<string, Map<number, Grant>>();
  /** name → permits (while held or waited on), and the running lock-delays' ends. */
  private readonly permits = new Map<string, number>();
  private readonly delayUntil = new Map<string, number>();
  /** `${lease}/${name}` → what a queued lease asked for. */
  private readonly asks = new Map<string, Ask>();
  private readonly liveLeases = new Set<number>();
  private readonly fenceHighest = new Map<string, number>();
  /** The lease model (Lease Timing) and the wait queues (Waiter Order), along the committed history. */
  private now = 0;
  private readonly leaseModel = new Map<number, { ttlMs: number; deadline: number }>();
  private readonly queues = new Map<string, number[]>();
  readonly stats = emptyLockStats();

  /**
   * `node` just applied `e`, which produced `out`. Returns the decoded command when this is the first application
   * of e.index anywhere (the committed history, which arrives in index order), else undefined.
   */
  applied(node: SimNode, e: Entry, out: ApplyOutput): { cmd: Command | undefined } | undefined {
    const id = node.id;
    for (const ev of out.events) {
      if (ev.index !== e.index || (ev.type === 'ACQUIRED' && tokenIndex(ev.token) !== e.index)) {
        fail('Token Names Its Entry', id, `entry ${e.index} emitted ${ev.type} ${ev.name} lease ${ev.leaseId} with token ${ev.token}, index ${ev.index}`);
      }
    }
    this.checkTouchedLocks(node, e.index, out);
    const digest = node.lock!.digest();
    const sig = JSON.stringify([out.result ?? null, out.events]);
    this.stats.digestChecks++;
    const known = this.digests[e.index];
    if (known !== undefined) {
      if (known !== digest) {
        fail(
          'Lock Replica Agreement',
          id,
          `after applying entry ${e.index} (${describeEntry(e)}) its lock state digest is ${digest}; ` + `another replica had ${known} there`,
        );
      }
      if (this.outputs[e.index] !== sig) {
        fail('Lock Replica Agreement', id, `entry ${e.index} (${describeEntry(e)}) gave ${sig}; another replica got ${this.outputs[e.index]}`);
      }
      return undefined;
    }
    this.digests[e.index] = digest;
    this.outputs[e.index] = sig;
    const cmd = e.data.length > 0 && e.type !== 'config' ? decodeCommand(e.data) : undefined; // a config entry is the core's, not a command
    this.history(id, e.index, cmd, out);
    return { cmd };
  }

  /** A snapshot installed at `index` must hold exactly the state some replica reached by applying up to it. */
  restored(node: SimNode, index: number): void {
    const known = this.digests[index];
    const digest = node.lock!.digest();
    if (node.lock!.machine.appliedIndex !== index) {
      fail('Lock Replica Agreement', node.id, `snapshot at ${index} restored a lock state applied up to ${node.lock!.machine.appliedIndex}`);
    }
    if (known === undefined) fail('Lock Replica Agreement', node.id, `snapshot at ${index} restored, but no replica applied ${index}`);
    if (known !== digest) fail('Lock Replica Agreement', node.id, `snapshot at ${index} restored to digest ${digest}; replicas had ${known} there`);
  }

  /** After the apply, on this replica: each lock the entry touched has one holder, with a live lease, not also waiting. */
  private checkTouchedLocks(node: SimNode, index: number, out: ApplyOutput): void {
    const sm = node.lock!.machine;
    let last = '';
    for (const ev of out.events) {
      if (ev.name === '' || ev.name === last) continue;
      last = ev.name;
      const view = sm.inspectLock(ev.name);
      for (const h of view.holders) {
        const lease = sm.timeToLive(h.leaseId);
        if (!lease || lease.remainingMs <= 0) {
          fail(
            'Single Live Holder',
            node.id,
            `after entry ${index}, ${ev.name} is held by lease ${h.leaseId} (token ${h.token}), ` +
              `which is ${lease ? `past its deadline (remaining ${lease.remainingMs} ms)` : 'not live'}`,
          );
        }
        if (!lease.locks.includes(ev.name))
          fail('Single Live Holder', node.id, `after entry ${index}, lease ${h.leaseId} holds ${ev.name} but does not list it`);
        if (view.waitingLeaseIds.includes(h.leaseId))
          fail('Single Live Holder', node.id, `after entry ${index}, ${ev.name} holder ${h.leaseId} is also queued`);
      }
      if (new Set(view.waitingLeaseIds).size !== view.waitingLeaseIds.length) {
        fail('Single Live Holder', node.id, `after entry ${index}, ${ev.name} has waiters ${view.waitingLeaseIds.join(',')}`);
      }
    }
  }

  /** The committed history, entry by entry in index order: tokens, holders, leases, fence, and the statistics. */
  private history(node: NodeId, index: number, cmd: Command | undefined, out: ApplyOutput): void {
    const st = this.stats;
    st.entries++;
    this.agreement(node, index, cmd, out);
    this.leaseTiming(node, index, cmd, out);
    for (const ev of out.events) {
      switch (ev.type) {
        case 'LEASE_GRANTED':
          this.liveLeases.add(ev.leaseId);
          break;
        case 'LEASE_EXPIRED':
        case 'LEASE_REVOKED': {
          if (!this.liveLeases.delete(ev.leaseId)) fail('Single Live Holder', node, `entry ${index}: ${ev.type} for lease ${ev.leaseId}, which was not live`);
          for (const [name, hs] of this.holders) {
            const h = hs.get(ev.leaseId);
            if (h) fail('Single Live Holder', node, `entry ${index}: lease ${ev.leaseId} ended (${ev.type}) still holding ${name} (token ${h.token})`);
          }
          if (ev.type === 'LEASE_EXPIRED') st.leaseExpiries++;
          else st.revokes++;
          break;
        }
        case 'ACQUIRED': {
          const prev = this.lastToken.get(ev.name) ?? 0;
          // Strictly, within one entry too: a token is unique per lock (several grants of one name by one entry differ).
          if (ev.token <= prev)
            fail(
              'Fencing Token Order',
              node,
              `entry ${index} granted ${ev.name} with token ${ev.token}, not above the earlier token ${prev} (tokens are unique per lock)`,
            );
          this.lastToken.set(ev.name, ev.token);
          const hs = this.holders.get(ev.name) ?? new Map<number, Grant>();
          if (hs.has(ev.leaseId)) fail('Single Live Holder', node, `entry ${index} granted ${ev.name} to lease ${ev.leaseId}, which already held it`);
          if (!this.liveLeases.has(ev.leaseId)) fail('Single Live Holder', node, `entry ${index} granted ${ev.name} to lease ${ev.leaseId}, which is not live`);
          const until = this.delayUntil.get(ev.name) ?? 0;
          if (until > this.now)
            fail('Lock Delay', node, `entry ${index} granted ${ev.name} to lease ${ev.leaseId} at ${this.now} ms, during its lock-delay (until ${until} ms)`);
          if (until > 0) st.delayGrants++;
          this.delayUntil.delete(ev.name);
          const queue = this.queues.get(ev.name);
          let ask: Ask;
          if (queue) {
            // With waiters, every grant is the queue head's (FIFO: nobody is granted ahead of it).
            if (queue[0] !== ev.leaseId)
              fail('Waiter Order', node, `entry ${index} granted ${ev.name} to lease ${ev.leaseId}; the queue was ${queue.join(',')}`);
            queue.shift();
            if (queue.length === 0) this.queues.delete(ev.name);
            ask =
              this.asks.get(`${ev.leaseId}/${ev.name}`) ??
              fail('Waiter Order', node, `entry ${index}: lease ${ev.leaseId} granted ${ev.name} from the queue, asking nothing known`);
            this.asks.delete(`${ev.leaseId}/${ev.name}`);
          } else {
            if (cmd?.type !== 'Acquire' || cmd.name !== ev.name || cmd.leaseId !== ev.leaseId)
              fail('Waiter Order', node, `entry ${index} granted ${ev.name} to lease ${ev.leaseId} with nobody waiting, by no Acquire of it`);
            const a = cmd as Extract<Command, { type: 'Acquire' }>;
            if (hs.size === 0) this.permits.set(ev.name, Math.max(1, a.permits ?? 1));
            ask = { shared: a.shared ?? false, lockDelayMs: a.lockDelayMs ?? 0 };
          }
          if (hs.size > 0) {
            if (ask.shared) st.sharedGrants++;
            else st.semaphoreGrants++;
          }
          hs.set(ev.leaseId, { token: ev.token, ...ask });
          this.holders.set(ev.name, hs);
          if (cmd?.type === 'Acquire') st.acquired++;
          else {
            st.handoffs++;
            if (cmd?.type === 'Tick') st.expiryHandoffs++;
          }
          break;
        }
        case 'RELEASED':
        case 'EXPIRED': {
          const hs = this.holders.get(ev.name);
          const h = hs?.get(ev.leaseId);
          if (!hs || !h || h.token !== ev.token) {
            fail(
              'Single Live Holder',
              node,
              `entry ${index}: ${ev.type} ${ev.name} by lease ${ev.leaseId} token ${ev.token}, ` +
                `but the holders were ${hs ? [...hs].map(([l, g]) => `lease ${l} token ${g.token}`).join(', ') : 'nobody'}`,
            );
          }
          // A token names one grant: a Release frees the grant its token (and lease, when named) names, none other.
          if (ev.type === 'RELEASED' && cmd?.type === 'Release' && (ev.token !== cmd.token || (cmd.leaseId ? cmd.leaseId !== ev.leaseId : false)))
            fail(
              'Single Live Holder',
              node,
              `entry ${index}: Release of ${cmd.name} token ${cmd.token}${cmd.leaseId ? ` lease ${cmd.leaseId}` : ''} released lease ${ev.leaseId}'s grant (token ${ev.token})`,
            );
          hs.delete(ev.leaseId);
          if (hs.size === 0) this.holders.delete(ev.name);
          // A grant lost with its lease (expiry, or a Revoke entry's releases) starts its lock-delay.
          if ((ev.type === 'EXPIRED' || cmd?.type === 'Revoke') && h.lockDelayMs > 0) {
            this.delayUntil.set(ev.name, Math.max(this.delayUntil.get(ev.name) ?? 0, this.now + h.lockDelayMs));
            st.delaysStarted++;
          }
          if (ev.type === 'EXPIRED') st.lockExpiries++;
          else st.releases++;
          break;
        }
        case 'QUEUED': {
          if (!this.liveLeases.has(ev.leaseId)) fail('Single Live Holder', node, `entry ${index} queued lease ${ev.leaseId} on ${ev.name}, which is not live`);
          const hs = this.holders.get(ev.name);
          if (hs?.has(ev.leaseId)) fail('Waiter Order', node, `entry ${index} queued lease ${ev.leaseId} on ${ev.name}, which it holds`);
          if (cmd?.type !== 'Acquire' || cmd.name !== ev.name || cmd.leaseId !== ev.leaseId)
            fail('Waiter Order', node, `entry ${index} queued lease ${ev.leaseId} on ${ev.name} by no Acquire of it`);
          const a = cmd as Extract<Command, { type: 'Acquire' }>;
          const queue = this.queues.get(ev.name) ?? [];
          if (!hs && queue.length === 0) this.permits.set(ev.name, Math.max(1, a.permits ?? 1));
          this.asks.set(`${ev.leaseId}/${ev.name}`, { shared: a.shared ?? false, lockDelayMs: a.lockDelayMs ?? 0 });
          if (queue.includes(ev.leaseId)) fail('Waiter Order', node, `entry ${index} queued lease ${ev.leaseId} on ${ev.name} twice`);
          queue.push(ev.leaseId);
          this.queues.set(ev.name, queue);
          st.queued++;
          break;
        }
        case 'WAITER_REMOVED':
        case 'WAIT_CANCELLED': {
          const queue = this.queues.get(ev.name) ?? [];
          const i = queue.indexOf(ev.leaseId);
          if (i < 0) fail('Waiter Order', node, `entry ${index}: ${ev.type} lease ${ev.leaseId} from ${ev.name}, where it was not waiting`);
          queue.splice(i, 1);
          if (queue.length === 0) this.queues.delete(ev.name);
          this.asks.delete(`${ev.leaseId}/${ev.name}`);
          if (ev.type === 'WAITER_REMOVED') st.waiterRemovals++;
          else st.waitCancels++;
          break;
        }
      }
    }
    const r = out.result;
    if (cmd?.type === 'SetPermits' && r?.type === 'SetPermits' && r.ok) {
      this.permits.set(cmd.name, cmd.permits);
      st.setPermits++;
    }
    // A downgrade: the exclusive holder's shared Acquire, answered with its grant.
    if (cmd?.type === 'Acquire' && cmd.shared && r?.type === 'Acquire' && r.ok && r.status === 'acquired') {
      const h = this.holders.get(cmd.name)?.get(cmd.leaseId);
      if (h && !h.shared) {
        h.shared = true;
        st.downgrades++;
      }
    }
    this.recipes(node, index);
    if (!cmd || !r) return;
    if (r.type === 'Tick') st.ticks++;
    if (r.type === 'Grant' && r.ok) st.grants++;
    if (!r.ok && r.error === 'NOT_FOUND') st.notFound++;
    if ((r.type === 'Grant' || r.type === 'Acquire') && r.ok && r.duplicate) st.duplicates++;
    if (r.type === 'Acquire' && r.ok && r.status === 'held') st.tryHeld++;
    if (r.type === 'Release' && r.ok && !r.released) st.staleReleases++;
    if (cmd.type === 'FenceWrite' || cmd.type === 'FenceDelete')
      this.fence(
        node,
        index,
        cmd.key,
        cmd.token,
        r.ok,
        r.ok ? undefined : r.error,
        !!cmd.lock,
        r.type === 'FenceDelete' && r.ok ? (r.deleted ? 'deleted' : 'absent') : undefined,
      );
  }

  /** Before the entry's events: an Acquire that disagrees with a held or waited-on name's permits must be refused. */
  private agreement(node: NodeId, index: number, cmd: Command | undefined, out: ApplyOutput): void {
    const r = out.result;
    if (cmd?.type !== 'Acquire' || !r || r.type !== 'Acquire') return;
    if (!this.holders.has(cmd.name) && !this.queues.has(cmd.name)) return;
    const asked = Math.max(1, cmd.permits ?? 1);
    const has = this.permits.get(cmd.name) ?? 1;
    if (asked === has || (r.ok && r.duplicate)) return;
    if (r.ok) fail('Permits Agreement', node, `entry ${index}: Acquire ${cmd.name} with permits ${asked} answered ${r.status}; the name has permits ${has}`);
    this.stats.agreementRefusals++;
  }

  /** After each entry: the holder limits, and no queue head left waiting that could be granted. */
  private recipes(node: NodeId, index: number): void {
    for (const [name, hs] of this.holders) {
      const grants = [...hs.values()];
      const shared = grants.filter((g) => g.shared).length;
      const permits = this.permits.get(name) ?? 1;
      if (shared > 0 && shared < grants.length)
        fail('Holder Limit', node, `after entry ${index}, ${name} has ${grants.length - shared} exclusive holders beside ${shared} shared ones`);
      if (shared === 0 && grants.length > permits) fail('Holder Limit', node, `after entry ${index}, ${name} has ${grants.length} holders; permits ${permits}`);
    }
    for (const [name, queue] of this.queues) {
      const ask = this.asks.get(`${queue[0]}/${name}`);
      const grants = [...(this.holders.get(name)?.values() ?? [])];
      const delayed = (this.delayUntil.get(name) ?? 0) > this.now;
      const fits =
        !delayed &&
        ask !== undefined &&
        (ask.shared
          ? grants.length < MAX_PERMITS && grants.every((g) => g.shared)
          : grants.length < (this.permits.get(name) ?? 1) && grants.every((g) => !g.shared));
      if (fits)
        fail(
          'Waiter Order',
          node,
          `after entry ${index}, lease ${queue[0]} waits first for ${name}, which it would fit (holders ${grants.length}, permits ${this.permits.get(name) ?? 1})`,
        );
    }
    for (const name of [...this.permits.keys()]) if (!this.holders.has(name) && !this.queues.has(name)) this.permits.delete(name);
    for (const [name, until] of [...this.delayUntil]) if (until <= this.now && !this.queues.has(name)) this.delayUntil.delete(name);
  }

  /** The lease model: replay the spec's arithmetic on each command and compare with what the entry did. */
  private leaseTiming(node: NodeId, index: number, cmd: Command | undefined, out: ApplyOutput): void {
    const r = out.result;
    if (!cmd || !r || !r.ok) return;
    const model = this.leaseModel;
    if (r.type === 'Grant' && cmd.type === 'Grant' && !r.duplicate) {
      model.set(r.leaseId, { ttlMs: cmd.ttlMs, deadline: this.now + cmd.ttlMs + cmd.marginMs + drift(cmd.ttlMs, cmd.driftPpm) });
    } else if (r.type === 'Revoke') {
      model.delete(r.leaseId);
    } else if (r.type === 'Tick' && cmd.type === 'Tick') {
      this.now += cmd.elapsedMs;
      if (r.now !== this.now) fail('Lease Timing', node, `Tick at ${index} reached now = ${r.now} ms; the elapsed times add up to ${this.now}`);
      for (const id of new Set(cmd.renewed)) {
        const l = model.get(id);
        if (l) l.deadline = Math.max(l.deadline, this.now + l.ttlMs + cmd.marginMs + drift(l.ttlMs, cmd.driftPpm));
      }
      const due = [...model]
        .filter(([, l]) => l.deadline <= this.now)
        .map(([id]) => id)
        .sort((a, b) => a - b);
      if (due.join(',') !== r.expired.join(',')) {
        fail(
          'Lease Timing',
          node,
          `Tick at ${index} (now ${this.now} ms) expired [${r.expired.join(',')}]; by their deadlines [${due.join(',')}] were due ` +
            `(${[...model].map(([id, l]) => `${id}:${l.deadline}`).join(' ')})`,
        );
      }
      for (const id of due) model.delete(id);
    }
  }

  /** bound: the write names its lock, so it may also be refused for a token that is no live grant's (the sequencer check). */
  private fence(
    node: NodeId,
    index: number,
    key: string,
    token: number,
    ok: boolean,
    error: string | undefined,
    bound: boolean,
    del: 'deleted' | 'absent' | undefined,
  ): void {
    const highest = this.fenceHighest.get(key) ?? 0;
    if (ok) {
      if (token < highest)
        fail('Fenced Store', node, `entry ${index} accepted a ${del ? 'delete' : 'write'} of ${key} with token ${token} below the accepted ${highest}`);
      // A delete that found no key leaves the highest as it was; one that deleted leaves its token as a tombstone.
      if (del !== 'absent') this.fenceHighest.set(key, token);
      if (!del) this.stats.fenceWrites++;
    } else if (error === 'FAILED_PRECONDITION' && !bound) {
      if (token >= highest) fail('Fenced Store', node, `entry ${index} refused a write to ${key} with token ${token}, not below the accepted ${highest}`);
      this.stats.staleFenceRejected++;
    }
  }
}

interface Ask {
  readonly shared: boolean;
  readonly lockDelayMs: number;
}

interface Grant {
  readonly token: number;
  shared: boolean;
  readonly lockDelayMs: number;
}

function describeEntry(e: Entry): string {
  return e.data.length === 0 ? 'no-op' : e.type === 'config' ? 'config entry' : describeCommand(decodeCommand(e.data));
}
