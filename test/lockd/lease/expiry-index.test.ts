// The expiry index: alone against a naive model, and inside the state machine (renewals, revokes,
// expiry order, restore from a snapshot that does not store it).
import { expect } from 'chai';
import { ExpiryIndex } from '../../../src/lockd/state-machine/expiry-index.js';
import { LockStateMachine } from '../../../src/lockd/state-machine/index.js';
import { Harness, prng } from '../state-machine/harness.js';

describe('lease: the expiry index', () => {
  it('agrees with a plain map under a random mix of inserts, moves both ways and deletes', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const rnd = prng(seed);
      const index = new ExpiryIndex();
      const model = new Map<number, number>();
      for (let step = 0; step < 2000; step++) {
        const id = 1 + rnd(300);
        const op = rnd(10);
        if (op < 6) {
          const d = rnd(5000); // ties are common: the order must not depend on them
          index.set(id, d);
          model.set(id, d);
        } else if (op < 9) expect(index.delete(id)).to.equal(model.delete(id));
        else {
          const now = rnd(5000);
          const want = [...model]
            .filter(([, d]) => d <= now)
            .map(([i]) => i)
            .sort((a, b) => a - b);
          expect(index.due(now), `seed ${seed} step ${step}`).to.deep.equal(want);
        }
        expect(index.breach(), `seed ${seed} step ${step}`).to.equal(undefined);
        expect(index.size).to.equal(model.size);
      }
      for (const [id, d] of model) expect(index.deadlineOf(id)).to.equal(d);
      const min = Math.min(...model.values());
      expect(index.peek()?.deadline).to.equal(model.size ? min : undefined);
    }
  });

  it('lists the due leases ascending by id, whatever their deadlines, and keeps them until deleted', () => {
    const index = new ExpiryIndex();
    index.set(9, 100);
    index.set(3, 300);
    index.set(5, 200);
    index.set(7, 900);
    expect(index.due(99)).to.deep.equal([]);
    expect(index.due(300)).to.deep.equal([3, 5, 9]);
    expect(index.due(300)).to.deep.equal([3, 5, 9]); // not consumed
    expect(index.delete(5)).to.equal(true);
    expect(index.delete(5)).to.equal(false);
    expect(index.due(1000)).to.deep.equal([3, 7, 9]);
  });

  it('moves a renewed lease behind the others (a later deadline) and an earlier one back in front', () => {
    const index = new ExpiryIndex();
    for (let id = 1; id <= 8; id++) index.set(id, id * 100);
    index.set(1, 5000); // renewed: it was first
    expect(index.peek()).to.deep.equal({ id: 2, deadline: 200 });
    expect(index.due(800)).to.deep.equal([2, 3, 4, 5, 6, 7, 8]);
    index.set(8, 50);
    expect(index.peek()).to.deep.equal({ id: 8, deadline: 50 });
    expect(index.breach()).to.equal(undefined);
  });
});

describe('lease: the expiry index inside the state machine', () => {
  it('a renewal moves a lease out of the way: the lease granted later but not renewed expires first', () => {
    const h = new Harness();
    const a = h.grant(1000); // deadline 1000
    const b = h.grant(1500); // deadline 1500
    expect(h.tick(900, [a]).expired).to.deep.equal([]); // a -> 1900
    expect(h.tick(600).expired).to.deep.equal([b]); // now 1500: b is due, a is not
    expect(h.sm.hasLease(a)).to.equal(true);
    expect(h.tick(399).expired).to.deep.equal([]);
    expect(h.tick(1).expired).to.deep.equal([a]);
  });

  it('leases that come due in the same Tick end in id order, regardless of their deadlines', () => {
    const h = new Harness();
    const a = h.grant(900);
    const b = h.grant(300);
    const c = h.grant(600);
    h.acquire('x', b);
    h.acquire('x', c, true); // c waits for b
    const r = h.tick(1000);
    expect(r.expired).to.deep.equal([a, b, c]);
    // All three die before any lock is handed on: x goes to nobody (c dies in the same entry).
    expect(h.sm.inspectLock('x').held).to.equal(false);
  });

  it('a lease revoked while indexed is gone from the index: a later Tick does not expire it again', () => {
    const h = new Harness();
    const a = h.grant(500);
    const b = h.grant(500);
    h.ok({ type: 'Revoke', leaseId: a });
    const r = h.tick(500);
    expect(r.expired).to.deep.equal([b]);
    expect(h.outputs[h.outputs.length - 1].events.map((e) => [e.type, e.leaseId])).to.deep.equal([['LEASE_EXPIRED', b]]);
    h.sm.checkInvariants();
  });

  it('is rebuilt on restore: the restored replica expires the same leases at the same Ticks', () => {
    const h = new Harness();
    const ids = [h.grant(3000), h.grant(1000), h.grant(2000), h.grant(1500)];
    h.tick(800, [ids[1]]); // ids[1] -> 1800
    const restored = LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true });
    const r = new Harness(restored);
    // now 1300, 1800 (ids[3] at 1500 and the renewed ids[1] at 1800), 2300, 2800, 3800.
    const expected = [[], [ids[1], ids[3]], [ids[2]], [], [ids[0]]];
    [500, 500, 500, 500, 1000].forEach((step, k) => {
      expect(h.tick(step).expired, `original, step ${k}`).to.deep.equal(expected[k]);
      expect(r.tick(step).expired, `restored, step ${k}`).to.deep.equal(expected[k]);
    });
    expect(restored.stateDigest()).to.equal(h.sm.stateDigest());
    expect(restored.hasLiveLeases()).to.equal(false);
  });

  it('the invariant sweep catches an index that disagrees with a lease deadline', () => {
    const h = new Harness();
    h.grant(1000);
    // Reach into the state as a bug would: a deadline moved without the index.
    const state = (h.sm as unknown as { s: { leases: Map<number, { deadline: number }> } }).s;
    for (const l of state.leases.values()) l.deadline = 5000;
    expect(() => h.sm.checkInvariants()).to.throw(/expiry-index/);
  });
});
