// Test driver for the state machine: numbers entries, encodes commands, and narrows results.

import { expect } from 'chai';
import type { ApplyOutput, ApplyResult, Command, Failure, StateEvent, Success } from '../../../src/lockd/state-machine/index.js';
import { LockStateMachine, MAX_TICK_EXPIRY_WORK, encodeCommand, grantToken } from '../../../src/lockd/state-machine/index.js';

export class Harness {
  readonly outputs: ApplyOutput[] = [];

  constructor(readonly sm: LockStateMachine = new LockStateMachine({ checkEveryApply: true })) {}

  /** Index the next entry will get. */
  get next(): number {
    return this.sm.appliedIndex + 1;
  }

  apply(cmd: Command): ApplyOutput {
    const out = this.sm.apply({ index: this.next, term: 1, data: encodeCommand(cmd) });
    this.outputs.push(out);
    return out;
  }

  noop(): ApplyOutput {
    const out = this.sm.apply({ index: this.next, term: 1, data: new Uint8Array(0) });
    this.outputs.push(out);
    return out;
  }

  /** Apply and return the result, asserting success of the expected type. */
  ok<T extends Command['type']>(cmd: Command & { type: T }): Extract<Success, { type: T }> {
    const r = this.apply(cmd).result;
    expect(r, JSON.stringify(r)).to.include({ ok: true, type: cmd.type });
    return r as Extract<Success, { type: T }>;
  }

  /** Apply and return the failure, asserting it failed. */
  fail(cmd: Command): Failure {
    const r = this.apply(cmd).result as ApplyResult;
    expect(r.ok, JSON.stringify(r)).to.equal(false);
    return r as Failure;
  }

  grant(ttlMs = 1000, marginMs = 0, requestId?: string): number {
    return this.ok({ type: 'Grant', ttlMs, marginMs, requestId }).leaseId;
  }

  acquire(name: string, leaseId: number, wait = false, requestId?: string) {
    return this.ok({ type: 'Acquire', name, leaseId, wait, requestId });
  }

  /** A Tick as a 0.2.0 leader sends it: expiry bounded by MAX_TICK_EXPIRY_WORK (expiryWork undefined: unbounded, as 0.1.0). */
  tick(elapsedMs: number, renewed: number[] = [], marginMs = 0, expiryWork: number | undefined = MAX_TICK_EXPIRY_WORK) {
    return this.ok({ type: 'Tick', elapsedMs, marginMs, renewed, ...(expiryWork === undefined ? {} : { expiryWork }) });
  }

  /** Events of the last applied entry, as compact tuples [type, name, leaseId, token]. */
  lastEvents(): [string, string, number, number][] {
    return compact(this.outputs[this.outputs.length - 1].events);
  }
}

export function compact(events: readonly StateEvent[]): [string, string, number, number][] {
  return events.map((e) => [e.type, e.name, e.leaseId, e.token]);
}

/** Deterministic PRNG (mulberry32) for seeded workloads. */
export function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) >>> 0;
  };
}

/** The fencing token of the `ordinal`-th grant of one lock by the entry at `index` (the state machine's own rule). */
export const tok = (index: number, ordinal = 0): number => grantToken(index, ordinal);
