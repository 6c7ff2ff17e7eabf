// Random histories of every command with the request-id, lock-bound fence and Fence.Delete rules in
// play — ids reused across commands, leases and fields, made-up tokens and lease ids — applied to two
// replicas, one of which is restored from its own snapshot at random points. Both must give the same
// answers and events for every entry and the same state (what a follower that installed a snapshot
// must do), with the full invariant sweep after every apply. The lock simulator's workload does not
// send these commands, so this is where a restore that loses or reorders their state would show.
import { expect } from 'chai';
import { LockStateMachine, encodeCommand, type Command } from '../../../src/lockd/state-machine/index.js';
import { prng } from './harness.js';

const enc = new TextEncoder();
const NAMES = ['a', 'b', 'c'];
const KEYS = ['k1', 'k2', 'k3', 'k4'];

function history(seed: number, steps: number): { replays: number } {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)];
  const live = new LockStateMachine({ checkEveryApply: true });
  let restored = new LockStateMachine({ checkEveryApply: true });
  const leases: number[] = [];
  const tokens: number[] = [1];
  const rids: string[] = [];
  let replays = 0;
  for (let index = 1; index <= steps; index++) {
    const rid = (): string | undefined => {
      if (rnd(3) === 0) return undefined;
      if (rids.length > 0 && rnd(2) === 0) return pick(rids); // a retry, or the same id for another call
      const id = `r${rnd(40)}`;
      rids.push(id);
      return id;
    };
    const lease = () => (leases.length > 0 && rnd(8) > 0 ? pick(leases) : 1 + rnd(index));
    const token = () => (rnd(4) > 0 ? pick(tokens) : 1 + rnd(index));
    const lock = () => (rnd(2) === 0 ? undefined : pick(NAMES));
    let cmd: Command;
    switch (rnd(10)) {
      case 0:
        cmd = { type: 'Grant', ttlMs: 100 + rnd(500), marginMs: 0, requestId: rid() };
        break;
      case 1:
        cmd = { type: 'Tick', elapsedMs: rnd(150), marginMs: 0, renewed: leases.filter(() => rnd(2) === 0) };
        break;
      case 2:
      case 3:
        cmd = { type: 'Acquire', name: pick(NAMES), leaseId: lease(), wait: rnd(2) === 0, requestId: rid() };
        break;
      case 4:
        cmd = { type: 'Release', name: pick(NAMES), token: token(), requestId: rid() };
        break;
      case 5:
        cmd = { type: 'Revoke', leaseId: lease(), requestId: rid() };
        break;
      case 6:
        cmd = { type: 'CancelWait', name: pick(NAMES), leaseId: lease(), abandonedAtIndex: rnd(2) === 0 ? 0 : rnd(index + 3), requestId: rid() };
        break;
      case 7:
      case 8:
        cmd = { type: 'FenceWrite', key: pick(KEYS), value: enc.encode(`v${rnd(3)}`), token: token(), lock: lock(), requestId: rid() };
        break;
      default:
        cmd = { type: 'FenceDelete', key: pick(KEYS), token: token(), lock: lock(), requestId: rid() };
        break;
    }
    const entry = { index, term: 1, data: encodeCommand(cmd) };
    const a = live.apply(entry);
    const b = restored.apply(entry);
    expect(b, `seed ${seed}, entry ${index}: ${JSON.stringify(cmd)}`).to.deep.equal(a);
    const r = a.result;
    if (r?.ok && r.type === 'Grant' && !r.duplicate) leases.push(r.leaseId);
    if (r && !r.ok && r.message.includes("the answer to this request_id's first attempt")) replays++;
    for (const e of a.events) if (e.type === 'ACQUIRED') tokens.push(e.token);
    if (rnd(7) === 0) {
      restored = LockStateMachine.fromSnapshot(restored.snapshot(), { checkEveryApply: true });
      expect(restored.stateDigest(), `seed ${seed}, after entry ${index}`).to.equal(live.stateDigest());
    }
  }
  expect(restored.stateDigest()).to.equal(live.stateDigest());
  return { replays };
}

describe('state machine: random histories with request ids, lock-bound writes and deletes', () => {
  it('a replica restored from snapshots at random points answers every entry as one that never was', () => {
    let replays = 0;
    for (let seed = 1; seed <= 40; seed++) replays += history(seed, 300).replays;
    // The histories do reach the replay of a recorded refusal (not only first attempts).
    expect(replays).to.be.greaterThan(0);
  });
});
