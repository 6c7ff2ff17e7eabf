// Seeded random histories: invariants after every entry, replicas (one restored from snapshots along
// the way) agreeing on every entry, and the lock safety properties read off the event stream.

import { expect } from 'chai';
import type { ApplyOutput, Command } from '../../../src/lockd/state-machine/index.js';
import { LockStateMachine, encodeCommand, tokenIndex } from '../../../src/lockd/state-machine/index.js';
import { prng } from './harness.js';

const NAMES = ['a', 'b', 'c', 'd'];

function generator(seed: number) {
  const rnd = prng(seed);
  const live: number[] = [];
  const crashed: number[] = [];
  const dead: number[] = [];
  const current = new Map<string, number>();
  const holder = new Map<string, number>();
  const tokens: number[] = [];
  /** Recent Acquire entries answered acquired or queued: what a cleanup must name exactly. */
  const acquires: { name: string; leaseId: number; index: number; requestId?: string }[] = [];
  let sent: Command | 'noop' = 'noop';
  const pick = <T>(xs: T[]): T => xs[rnd(xs.length)];
  // A small id pool: retries (same id, same request) and misuse (same id, other request) both happen.
  const rid = () => (rnd(3) === 0 ? `r${rnd(150)}` : undefined);
  return {
    observe(out: ApplyOutput) {
      const r = out.result;
      if (sent !== 'noop' && sent.type === 'Acquire' && r?.type === 'Acquire' && r.ok && (r.status === 'acquired' || r.status === 'queued'))
        acquires.splice(0, Math.max(0, acquires.length - 29), { name: sent.name, leaseId: sent.leaseId, index: out.index, requestId: sent.requestId });
      for (const e of out.events) {
        // A quarter of the clients "crash" at once: they never send a keepalive.
        if (e.type === 'LEASE_GRANTED') (rnd(4) ? live : crashed).push(e.leaseId);
        if (e.type === 'LEASE_EXPIRED' || e.type === 'LEASE_REVOKED') {
          for (const xs of [live, crashed]) if (xs.includes(e.leaseId)) xs.splice(xs.indexOf(e.leaseId), 1);
          dead.push(e.leaseId);
        }
        if (e.type === 'ACQUIRED') {
          tokens.push(e.token);
          current.set(e.name, e.token);
          holder.set(e.name, e.leaseId);
        }
        if (e.type === 'RELEASED' || e.type === 'EXPIRED') {
          current.delete(e.name);
          holder.delete(e.name);
        }
      }
    },
    next(index: number): Command | 'noop' {
      return (sent = this.make(index));
    },
    make(index: number): Command | 'noop' {
      const lease = () => {
        const r = rnd(10);
        if (r < 6 && live.length) return pick(live);
        if (r < 8 && crashed.length) return pick(crashed);
        if (r < 9 && dead.length) return pick(dead);
        return 1 + rnd(index);
      };
      const token = (name: string) => {
        const r = rnd(10);
        if (r < 6 && current.has(name)) return current.get(name)!;
        if (r < 9 && tokens.length) return pick(tokens);
        return 1 + rnd(index);
      };
      switch (rnd(11)) {
        case 0:
        case 1:
          return { type: 'Grant', ttlMs: 100 + rnd(600), marginMs: rnd(200), requestId: rid() };
        case 2:
        case 3:
        case 4:
          return { type: 'Acquire', name: pick(NAMES), leaseId: lease(), wait: rnd(3) > 0, requestId: rid() };
        case 5: {
          const name = pick(NAMES);
          return { type: 'Release', name, token: token(name) };
        }
        case 6:
        case 7: {
          const renewed = [...live.filter(() => rnd(3) > 0), ...dead.filter(() => rnd(20) === 0)];
          return { type: 'Tick', elapsedMs: rnd(150), marginMs: rnd(100), renewed };
        }
        case 8: {
          if (!rnd(4)) return { type: 'Revoke', leaseId: lease() };
          const name = pick(NAMES);
          // Half of them are an abandoned call's cleanup: naming a recent Acquire entry (the real
          // thing, when it is still the lease's last), else bounded a little before this entry.
          if (rnd(2)) return { type: 'CancelWait', name, leaseId: lease() };
          if (rnd(2) && acquires.length) {
            const holding = acquires.filter((x) => holder.get(x.name) === x.leaseId);
            const a = pick(holding.length && rnd(2) ? holding : acquires);
            return { type: 'CancelWait', name: a.name, leaseId: a.leaseId, abandonedAtIndex: a.index, acquireRequestId: a.requestId };
          }
          const leaseId = holder.has(name) && rnd(2) ? holder.get(name)! : lease();
          return { type: 'CancelWait', name, leaseId, abandonedAtIndex: Math.max(0, index - 1 - rnd(20)) };
        }
        case 9:
          return { type: 'FenceWrite', key: pick(['k1', 'k2']), value: new Uint8Array([rnd(256)]), token: token(pick(NAMES)) };
        default:
          return 'noop';
      }
    },
  };
}

function runSeed(seed: number, steps: number) {
  const gen = generator(seed);
  const primary = new LockStateMachine({ checkEveryApply: true });
  let replica = new LockStateMachine();
  const lastToken = new Map<string, number>();
  const counts = new Map<string, number>();
  for (let index = 1; index <= steps; index++) {
    const c = gen.next(index);
    const entry = { index, data: c === 'noop' ? new Uint8Array(0) : encodeCommand(c) };
    const out = primary.apply(entry);
    const rep = replica.apply(entry);
    gen.observe(out);
    expect(rep, `seed ${seed} entry ${index}: replica answered differently`).to.deep.equal(out);
    expect(replica.stateDigest(), `seed ${seed} entry ${index}: replicas diverged`).to.equal(primary.stateDigest());
    if (index % 37 === 0) replica = LockStateMachine.fromSnapshot(replica.snapshot());

    const r = out.result;
    const count = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
    if (r) count(r.ok ? `${r.type}:ok` : `${r.type}:${r.error}`);
    if (r?.type === 'CancelWait' && r.ok && r.released) count('CancelWait:released');
    for (const e of out.events) {
      count(e.type);
      if (e.type !== 'ACQUIRED') continue;
      expect(tokenIndex(e.token), `seed ${seed}: token ${e.token} of ${e.name} at ${index}`).to.equal(index);
      expect(e.token).to.be.greaterThan(lastToken.get(e.name) ?? 0);
      lastToken.set(e.name, e.token);
    }
    // One live holder per name, and it is the one the last ACQUIRED named.
    for (const name of NAMES) {
      const v = primary.inspectLock(name);
      if (!v.held) continue;
      expect(primary.hasLease(v.holderLeaseId)).to.equal(true);
      expect(v.token).to.equal(lastToken.get(name));
      for (const w of v.waitingLeaseIds) expect(primary.hasLease(w)).to.equal(true);
    }
  }
  return { digest: primary.stateDigest(), counts };
}

describe('state machine: seeded random histories', () => {
  for (const seed of [1, 2, 3, 42, 2024]) {
    it(`seed ${seed}: invariants hold, replicas agree, tokens only increase`, () => {
      const { counts } = runSeed(seed, 1500);
      // The history must actually exercise the interesting paths, or the checks above prove little.
      for (const k of ['ACQUIRED', 'RELEASED', 'EXPIRED', 'QUEUED', 'WAITER_REMOVED', 'LEASE_EXPIRED', 'Acquire:NOT_FOUND', 'CancelWait:released'])
        expect(counts.get(k) ?? 0, `${k} in ${JSON.stringify([...counts])}`).to.be.greaterThan(0);
    });
  }

  it('the same seed gives the same final state (determinism)', () => {
    expect(runSeed(7, 600).digest).to.equal(runSeed(7, 600).digest);
  });
});
