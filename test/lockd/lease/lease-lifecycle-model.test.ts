// The lease lifecycle of the real state machine (Grant, Revoke, Tick with renewals, snapshot restore)
// against a plain-map model of docs/design.md §4: every Tick must expire exactly the leases whose deadline has
// passed (never one early, never one late), renew exactly the live ones it names, and leave the expiry
// index consistent with the lease table, including across restores that rebuild the index.
import { expect } from 'chai';
import { LockStateMachine, MIN_TTL_MS, type Command } from '../../../src/lockd/state-machine/index.js';
import { Harness, prng } from '../state-machine/harness.js';

interface ModelLease {
  readonly ttl: number;
  deadline: number;
}

const allowance = (ttl: number, ppm: number | undefined): number => Math.ceil((ttl * (ppm ?? 0)) / 1e6);

describe('lease: the lifecycle against a plain-map model', function () {
  this.timeout(60_000);

  it('random Grant/Revoke/Tick/restore sequences: expiry, renewal and remaining time match the model exactly', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = prng(seed);
      let h = new Harness();
      const model = new Map<number, ModelLease>();
      let now = 0;
      const everGranted: number[] = [];
      const pickId = (): number => {
        const r = rnd(10);
        if (r < 7 && everGranted.length > 0) return everGranted[rnd(everGranted.length)]; // often a dead one
        if (r < 8) return h.next + rnd(5); // not granted yet
        return 1 + rnd(h.next + 10);
      };
      for (let step = 0; step < 400; step++) {
        const op = rnd(100);
        const where = `seed ${seed} step ${step}`;
        if (op < 25) {
          const ttl = MIN_TTL_MS + rnd(3) * rnd(2000); // ties between deadlines are common
          const margin = rnd(4) * 100;
          const ppm = rnd(3) === 0 ? undefined : rnd(3000);
          const cmd: Command = { type: 'Grant', ttlMs: ttl, marginMs: margin, ...(ppm === undefined ? {} : { driftPpm: ppm }) };
          const id = h.ok(cmd).leaseId;
          model.set(id, { ttl, deadline: now + ttl + margin + allowance(ttl, ppm) });
          everGranted.push(id);
        } else if (op < 35) {
          const id = pickId();
          const r = h.apply({ type: 'Revoke', leaseId: id }).result!;
          expect(r.ok, where).to.equal(model.delete(id));
        } else if (op < 93) {
          const elapsed = rnd(4) === 0 ? 0 : rnd(700);
          const margin = rnd(4) * 100;
          const ppm = rnd(3) === 0 ? undefined : rnd(3000);
          const renewed = Array.from({ length: rnd(6) }, pickId);
          const r = h.ok({ type: 'Tick', elapsedMs: elapsed, marginMs: margin, ...(ppm === undefined ? {} : { driftPpm: ppm }), renewed });
          now += elapsed;
          const wantRenewed: number[] = [];
          const wantGone: number[] = [];
          for (const id of new Set(renewed)) {
            const l = model.get(id);
            if (!l) {
              wantGone.push(id);
              continue;
            }
            l.deadline = Math.max(l.deadline, now + l.ttl + margin + allowance(l.ttl, ppm));
            wantRenewed.push(id);
          }
          const wantExpired = [...model]
            .filter(([, l]) => l.deadline <= now)
            .map(([id]) => id)
            .sort((a, b) => a - b);
          for (const id of wantExpired) model.delete(id);
          expect(r.now, where).to.equal(now);
          expect(
            r.renewed.map((x) => x.leaseId),
            where,
          ).to.deep.equal(wantRenewed);
          expect(r.gone, where).to.deep.equal(wantGone);
          expect(r.expired, where).to.deep.equal(wantExpired);
        } else if (op < 97) {
          h = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
        } else {
          h.noop();
        }
        // The whole table, remaining time included, after every entry.
        const view = h.sm.listLeases().map((v) => [v.leaseId, v.remainingMs]);
        const want = [...model].sort(([a], [b]) => a - b).map(([id, l]) => [id, l.deadline - now]);
        expect(view, where).to.deep.equal(want);
        expect(h.sm.hasLiveLeases(), where).to.equal(model.size > 0);
      }
    }
  });
});
