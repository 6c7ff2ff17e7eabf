// Crowds on one name, as real users make them (lock-workload.ts): several sessions wait on a semaphore at
// once and one entry grants the queued together — SetPermits raising the permits by the number queued,
// the holders (who asked with a lock-delay) revoked, or their keepers paused until their leases expire, so
// the Tick that ends the delay grants the queue. A free mutex name is taken as a semaphore of 2 (a mixed
// recipe). Then one of the grants made together ends (its holder's Release) and its holder acts on with
// that token beside the others (a stale actor: lock-workload.ts staleDue), which must change nothing
// (test/support/grant-promises.ts). This is the path where two grants sharing a token (the third
// review's finding) let a paused holder write and release as the live one.
import type { Command } from '../../src/lockd/state-machine/index.js';
import type { Prng } from './prng.js';

export type CrowdTrigger = 'setPermits' | 'revoke' | 'expire';
const TRIGGERS: readonly CrowdTrigger[] = ['setPermits', 'revoke', 'expire'];

/** What a crowd reads of a session (lock-workload.ts Session). */
export interface CrowdMember {
  readonly id: number;
  readonly lease: number;
  readonly ttlMs: number;
  readonly pending?: unknown;
  readonly held: ReadonlyMap<string, number>;
  readonly waiting: ReadonlySet<string>;
  pausedUntilMs: number;
  /** A grant to end (Release), then act on with its token (set by the crowd; lock-workload.ts acts on it). */
  endDue?: string;
}

/** What the crowd needs from the workload. */
export interface CrowdHost {
  readonly rnd: Prng;
  readonly stepMs: number;
  readonly tickEvery: number;
  members(): readonly CrowdMember[];
  /** A name's permits now and whether it is free, or undefined when it is no candidate (a read-write lock; an election). */
  candidate(name: string): { permits: number; free: boolean; rw: boolean } | undefined;
  names(): readonly string[];
  /** Propose for a session (its one request in flight) or for the admin (s undefined). */
  propose(s: CrowdMember | undefined, cmd: Command, step: number): void;
}

interface Active {
  readonly name: string;
  readonly trigger: CrowdTrigger;
  readonly permits: number;
  readonly members: readonly CrowdMember[];
  readonly startStep: number;
  /** Those still queued when the trigger was proposed (undefined: not yet). */
  queued?: readonly CrowdMember[];
}

/** Per-step chance that a crowd gathers (when none is under way). */
const CROWD_RATE = 0.01;
/** The lock-delay a crowd asks with for the revoke and expire triggers (ms of logical time). */
const CROWD_DELAY_MS = { revoke: 300, expire: 2000 } as const;

export class Crowds {
  private active: Active | undefined;
  gathered = 0;
  triggered = 0;

  constructor(private readonly host: CrowdHost) {}

  step(step: number, nowMs: number): void {
    const h = this.host;
    const a = this.active;
    if (!a) {
      if (h.rnd.chance(CROWD_RATE)) this.gather(step);
      return;
    }
    const waitSteps = 3 * h.tickEvery + 4;
    if (!a.queued) {
      if (step - a.startStep >= waitSteps && a.members.every((m) => !m.pending)) this.trigger(a, step, nowMs);
    } else if (a.queued.every((m) => !m.waiting.has(a.name))) {
      // The queued ones granted by the trigger's entry: one of them lets go and acts on.
      const late = a.queued.filter((m) => m.held.has(a.name) && m.endDue === undefined);
      if (late.length > 0) h.rnd.pick(late).endDue = a.name;
      this.active = undefined;
    }
    if (this.active && step - a.startStep > 40 * h.tickEvery + 400) this.active = undefined; // give up
  }

  private gather(step: number): void {
    const h = this.host;
    const name = h.rnd.pick(h.names());
    const c = h.candidate(name);
    if (!c || c.rw || (c.permits < 2 && !c.free)) return;
    const permits = Math.max(2, c.permits);
    const free = h.members().filter((m) => m.lease !== 0 && !m.pending && !m.held.has(name) && !m.waiting.has(name) && m.endDue === undefined);
    if (free.length < 3) return;
    const members = h.rnd.shuffle([...free]).slice(0, permits + 2);
    const trigger = h.rnd.pick(TRIGGERS);
    const lockDelayMs = trigger === 'setPermits' ? 0 : CROWD_DELAY_MS[trigger];
    for (const m of members) h.propose(m, { type: 'Acquire', name, leaseId: m.lease, wait: true, permits, ...(lockDelayMs ? { lockDelayMs } : {}) }, step);
    this.active = { name, trigger, permits, members, startStep: step };
    this.gathered++;
  }

  private trigger(a: Active, step: number, nowMs: number): void {
    const h = this.host;
    a.queued = a.members.filter((m) => m.waiting.has(a.name));
    if (a.queued.length === 0) {
      this.active = undefined;
      return;
    }
    this.triggered++;
    const holders = a.members.filter((m) => m.held.has(a.name));
    if (a.trigger === 'setPermits') h.propose(undefined, { type: 'SetPermits', name: a.name, permits: a.permits + a.queued.length }, step);
    else if (a.trigger === 'revoke') for (const m of holders) h.propose(m, { type: 'Revoke', leaseId: m.lease }, step);
    else for (const m of holders) m.pausedUntilMs = nowMs + 3 * m.ttlMs + CROWD_DELAY_MS.expire;
  }
}
