// The recipe checkers on hand-made histories: each accepts a clean history and refuses
// the same history with one planted violation.
import { expect } from 'chai';
import { op, type Op, type OpStatus } from './history.js';
import { checkRecipes } from './recipe-check.js';

let seq = 0;
const TTL = 10_000; // leases trusted long enough that only releases end holds, unless a test says otherwise
const lease = (id: number, at = 0, ttlMs = TTL): Op => op(seq++, `c${id}`, 'grant', { ttlMs }, at, at + 1, 'ok', { leaseId: id });
const acq = (l: number, name: string, token: number, t0: number, t1: number, a: { permits?: number; shared?: boolean; lockDelayMs?: number } = {}): Op =>
  op(
    seq++,
    `c${l}`,
    'racquire',
    { name, leaseId: l, wait: true, permits: a.permits ?? 0, shared: a.shared ?? false, lockDelayMs: a.lockDelayMs ?? 0, requestId: `q${seq}` },
    t0,
    t1,
    'ok',
    {
      acquired: true,
      token,
      holder: l,
      delayRemainingMs: 0,
    },
  );
const rel = (l: number, name: string, token: number, t0: number, t1: number): Op =>
  op(seq++, `c${l}`, 'rrelease', { name, leaseId: l, token, requestId: `q${seq}` }, t0, t1, 'ok', { released: true });
const revoke = (l: number, t0: number, t1: number): Op => op(seq++, `c${l}`, 'revoke', { leaseId: l }, t0, t1, 'ok', {});
const setPermits = (permits: number, t0: number, t1: number, status: OpStatus = 'ok'): Op =>
  op(seq++, 'admin', 'setpermits', { name: 'sem', permits, requestId: `q${seq}` }, t0, t1, status, status === 'ok' ? { previous: 2, granted: 0 } : undefined);
const campaign = (l: number, value: string, token: number, t0: number, t1: number): Op =>
  op(seq++, `c${l}`, 'campaign', { name: 'e', leaseId: l, value, requestId: `q${seq}` }, t0, t1, 'ok', { token });
const proclaim = (l: number, token: number, value: string, t0: number, t1: number): Op =>
  op(seq++, `c${l}`, 'proclaim', { name: 'e', leaseId: l, token, value }, t0, t1, 'ok', {});
const resign = (l: number, token: number, t0: number, t1: number): Op =>
  op(seq++, `c${l}`, 'resign', { name: 'e', leaseId: l, token, requestId: `q${seq}` }, t0, t1, 'ok', { resigned: true });
const leader = (t0: number, t1: number, who?: { lease: number; token: number; value: string }): Op =>
  who
    ? op(seq++, 'reader', 'leader', { name: 'e' }, t0, t1, 'ok', { leaseId: who.lease, token: who.token, value: who.value })
    : op(seq++, 'reader', 'leader', { name: 'e' }, t0, t1, 'fail', { code: 'NOT_FOUND' });
const seen = (stream: string, at: number, who?: { lease: number; token: number; value: string }): Op =>
  op(seq++, 'watcher', 'observe', { name: 'e', stream }, at, at, 'ok', {
    hasLeader: !!who,
    leaseId: who?.lease ?? 0,
    token: who?.token ?? 0,
    value: who?.value ?? '',
  });

/** A history in invoke order, as assembleOps gives it. */
const history = (...ops: Op[]): Op[] => ops.sort((a, b) => a.invoke - b.invoke).map((o, index) => ({ ...o, index }));
const checkers = (ops: Op[]) => checkRecipes(ops).violations.map((v) => v.checker);

describe('faults: recipe checkers', () => {
  describe('semaphore: Holder Limit', () => {
    // Permits 2: leases 1 and 2 hold at once; lease 3 gets it after lease 1 released.
    const base = [lease(1), lease(2), lease(3), acq(1, 'sem', 10, 10, 20, { permits: 2 }), acq(2, 'sem', 11, 15, 25, { permits: 2 })];

    it('accepts two holders of a 2-permit semaphore and a third after one released', () => {
      const ops = history(
        ...base,
        rel(1, 'sem', 10, 100, 110),
        acq(3, 'sem', 12, 90, 120, { permits: 2 }),
        rel(2, 'sem', 11, 200, 210),
        rel(3, 'sem', 12, 220, 230),
      );
      const r = checkRecipes(ops);
      expect(r.violations).to.deep.equal([]);
      expect(r.maxHolders.sem).to.equal(2);
      expect(r.grants.semaphore).to.equal(3);
    });

    it('refuses a third holder while both others still held it', () => {
      const ops = history(...base, acq(3, 'sem', 12, 90, 120, { permits: 2 }), rel(1, 'sem', 10, 150, 160));
      expect(checkers(ops)).to.deep.equal(['Holder Limit']);
    });

    it('takes a SetPermits that may have landed during the grant as the limit, and not one answered before the Acquire began', () => {
      const during = history(...base, setPermits(3, 80, 100), acq(3, 'sem', 12, 90, 120, { permits: 2 }));
      expect(checkers(during)).to.deep.equal([]);
      // Answered before lease 3 asked with 2: its Acquire then found 3 (if held) and would have been refused.
      const before = history(...base, setPermits(3, 60, 70), acq(3, 'sem', 12, 90, 120, { permits: 2 }));
      expect(checkers(before)).to.deep.equal(['Holder Limit']);
      const refused = history(...base, setPermits(3, 80, 100, 'fail'), acq(3, 'sem', 12, 90, 120, { permits: 2 }));
      expect(checkers(refused)).to.deep.equal(['Holder Limit']);
    });

    it('does not count a holder whose lease may have expired', () => {
      const ops = history(
        lease(1, 0, 50),
        lease(2),
        lease(3),
        acq(1, 'sem', 10, 10, 20, { permits: 2 }),
        acq(2, 'sem', 11, 15, 25, { permits: 2 }),
        acq(3, 'sem', 12, 90, 120, { permits: 2 }),
      );
      expect(checkers(ops)).to.deep.equal([]);
    });
  });

  describe('read-write lock: Read-Write Exclusion', () => {
    const readers = [lease(1), lease(2), lease(3), acq(1, 'rw', 10, 10, 20, { shared: true }), acq(2, 'rw', 11, 15, 25, { shared: true })];

    it('accepts shared holders together, then a writer after both left', () => {
      const ops = history(...readers, rel(1, 'rw', 10, 100, 110), rel(2, 'rw', 11, 100, 110), acq(3, 'rw', 12, 90, 130));
      expect(checkers(ops)).to.deep.equal([]);
      expect(checkRecipes(ops).maxHolders.rw).to.equal(2);
    });

    it('refuses a writer granted beside a reader that still held it', () => {
      const ops = history(...readers, rel(1, 'rw', 10, 100, 110), acq(3, 'rw', 12, 90, 130), rel(2, 'rw', 11, 200, 210));
      expect(checkers(ops)).to.deep.equal(['Read-Write Exclusion', 'Holder Limit']);
    });

    it('accepts a reader joining after the writer downgraded, and refuses one granted before the downgrade began', () => {
      const writer = [lease(1), lease(2), acq(1, 'rw', 10, 10, 20)];
      const joined = history(
        ...writer,
        acq(1, 'rw', 10, 50, 60, { shared: true }),
        acq(2, 'rw', 55, 40, 70, { shared: true }),
        rel(1, 'rw', 10, 100, 110),
        rel(2, 'rw', 55, 100, 110),
      );
      const r = checkRecipes(joined);
      expect(r.violations).to.deep.equal([]);
      expect(r.downgrades).to.equal(1);
      const early = history(...writer, acq(2, 'rw', 55, 30, 40, { shared: true }), acq(1, 'rw', 10, 50, 60, { shared: true }), rel(1, 'rw', 10, 100, 110));
      expect(checkers(early)).to.deep.equal(['Read-Write Exclusion']);
    });

    it('takes a downgrade of unknown outcome as maybe applied from its invoke', () => {
      const unknownDowngrade = op(
        seq++,
        'c1',
        'racquire',
        { name: 'rw', leaseId: 1, wait: false, permits: 0, shared: true, lockDelayMs: 0, requestId: 'qd' },
        50,
        Infinity,
        'unknown',
      );
      const ops = history(lease(1), lease(2), acq(1, 'rw', 10, 10, 20), unknownDowngrade, acq(2, 'rw', 55, 40, 70, { shared: true }), revoke(1, 100, 110));
      expect(checkers(ops)).to.deep.equal([]);
      // Refused, it changed nothing: the writer was still exclusive.
      const refusedDowngrade = op(
        seq++,
        'c1',
        'racquire',
        { name: 'rw', leaseId: 1, wait: false, permits: 0, shared: true, lockDelayMs: 0, requestId: 'qe' },
        50,
        52,
        'fail',
        { code: 'FAILED_PRECONDITION' },
      );
      expect(
        checkers(history(lease(1), lease(2), acq(1, 'rw', 10, 10, 20), refusedDowngrade, acq(2, 'rw', 55, 40, 70, { shared: true }), revoke(1, 100, 110))),
      ).to.deep.equal(['Read-Write Exclusion']);
    });
  });

  describe('Token Order', () => {
    it('refuses a later grant of another lease with a lower token', () => {
      const ok = history(lease(1), lease(2), acq(1, 'sem', 10, 0, 10, { permits: 2 }), acq(2, 'sem', 12, 20, 30, { permits: 2 }));
      expect(checkers(ok)).to.deep.equal([]);
      const bad = history(lease(1), lease(2), acq(1, 'sem', 10, 0, 10, { permits: 2 }), acq(2, 'sem', 9, 20, 30, { permits: 2 }));
      expect(checkers(bad)).to.deep.equal(['Token Order']);
    });
  });

  describe('Lock Delay', () => {
    const D = 1000; // with the checker's 200 ms clock slack: no grant within 800 ms of the end
    it('accepts a grant after the delay of a revoked holder, and at once after a released one', () => {
      const revoked = history(
        lease(1),
        lease(2),
        acq(1, 'delayed', 10, 0, 10, { lockDelayMs: D }),
        revoke(1, 100, 110),
        acq(2, 'delayed', 20, 50, 905, { lockDelayMs: D }),
      );
      const r = checkRecipes(revoked);
      expect(r.violations).to.deep.equal([]);
      expect(r.delaysJudged).to.equal(1);
      const released = history(
        lease(1),
        lease(2),
        acq(1, 'delayed', 10, 0, 10, { lockDelayMs: D }),
        rel(1, 'delayed', 10, 100, 110),
        acq(2, 'delayed', 20, 50, 150, { lockDelayMs: D }),
      );
      expect(checkers(released)).to.deep.equal([]);
    });

    it('refuses a grant during the delay of a revoked holder', () => {
      const ops = history(
        lease(1),
        lease(2),
        acq(1, 'delayed', 10, 0, 10, { lockDelayMs: D }),
        revoke(1, 100, 110),
        acq(2, 'delayed', 20, 50, 500, { lockDelayMs: D }),
      );
      expect(checkers(ops)).to.deep.equal(['Lock Delay']);
    });

    it('refuses a grant during the delay of a holder whose lease expired (trust end + delay)', () => {
      // Lease 1 trusted until 1500 (granted at 0, TTL 1500, no renewal), never released: no grant before 2300.
      const ok = history(lease(1, 0, 1500), lease(2), acq(1, 'delayed', 10, 0, 10, { lockDelayMs: D }), acq(2, 'delayed', 20, 1000, 2350, { lockDelayMs: D }));
      expect(checkers(ok)).to.deep.equal([]);
      const bad = history(lease(1, 0, 1500), lease(2), acq(1, 'delayed', 10, 0, 10, { lockDelayMs: D }), acq(2, 'delayed', 20, 1000, 1800, { lockDelayMs: D }));
      expect(checkers(bad)).to.deep.equal(['Lock Delay']);
    });
  });

  describe('elections: one leader, no phantom leader', () => {
    const v1 = { lease: 1, token: 10, value: 'v1' };
    const v2 = { lease: 1, token: 10, value: 'v2' };
    const w = { lease: 2, token: 20, value: 'w1' };
    // Lease 1 leads (token 10), proclaims v2, resigns (answered at 210); lease 2 leads from token 20.
    const clean = [
      lease(1),
      lease(2),
      campaign(1, 'v1', 10, 0, 10),
      proclaim(1, 10, 'v2', 50, 60),
      resign(1, 10, 200, 210),
      campaign(2, 'w1', 20, 100, 300),
      seen('s1', 5, undefined),
      seen('s1', 12, v1),
      seen('s1', 61, v2),
      seen('s1', 205, undefined),
      seen('s1', 290, w),
      leader(55, 58, v1),
      leader(220, 230),
      leader(310, 320, w),
    ];

    it('accepts a clean history', () => {
      const r = checkRecipes(history(...clean));
      expect(r.violations).to.deep.equal([]);
      expect(r.elections).to.deep.equal({ campaigns: 2, leaderReads: 3, observed: 5, streams: 1 });
    });

    it('refuses a Leader read naming a leadership resigned before it began', () => {
      expect(checkers(history(...clean, leader(250, 260, v2)))).to.deep.equal(['Phantom Leader']);
    });

    it('refuses "nobody leads" while a leadership certainly lasted', () => {
      expect(checkers(history(...clean, leader(400, 410)))).to.deep.equal(['Phantom Leader']);
    });

    it('refuses an Observe stream going back to an ended leadership', () => {
      expect(checkers(history(...clean, seen('s1', 400, v2)))).to.deep.equal(['Phantom Leader']);
      expect(checkers(history(...clean, seen('s2', 30, v1), seen('s2', 205, undefined), seen('s2', 206, v1)))).to.deep.equal(['Phantom Leader']);
    });

    it('refuses an Observe response proving a new leader while the old one still led', () => {
      // Token 20 committed by 150, while lease 1 held token 10 until its Resign at 200.
      expect(checkers(history(...clean, seen('s2', 150, w)))).to.deep.equal(['Phantom Leader']);
      // And "nobody" after token 10 at 100, before lease 1 resigned.
      expect(checkers(history(...clean, seen('s3', 30, v1), seen('s3', 100, undefined)))).to.deep.equal(['Phantom Leader']);
    });

    it('refuses two leaders at once, and a leader whose lease or value does not match the campaigns', () => {
      const two = history(lease(1), lease(2), campaign(1, 'v1', 10, 0, 10), campaign(2, 'w1', 20, 5, 100), resign(1, 10, 200, 210));
      expect(checkers(two)).to.deep.equal(['Holder Limit']);
      expect(checkers(history(...clean, leader(56, 59, { lease: 2, token: 10, value: 'v1' })))).to.deep.equal(['Leader Identity']);
      expect(checkers(history(...clean, leader(56, 59, { lease: 1, token: 10, value: 'made-up' })))).to.deep.equal(['Leader Identity']);
      // A value proclaimed only after the read was answered is not one it could show.
      expect(checkers(history(...clean, leader(40, 45, v2)))).to.deep.equal(['Leader Identity']);
    });
  });

  describe('stale actors and lost grants (the proto promises on an ended grant)', () => {
    const stale = (
      f: 'rrelease' | 'resign' | 'proclaim' | 'lockwrite',
      l: number,
      name: string,
      token: number,
      t0: number,
      t1: number,
      status: OpStatus,
      out: object | undefined,
      extra: object = {},
    ): Op =>
      f === 'lockwrite'
        ? op(
            seq++,
            `c${l}`,
            'lockwrite',
            { name, leaseId: l, token, key: `stale/c${l}`, del: false, requestId: `q${seq}` },
            t0,
            t1,
            status,
            out as Record<string, never>,
          )
        : op(seq++, `c${l}`, f, { name, leaseId: l, token, requestId: `q${seq}`, value: 'x', stale: true, ...extra } as never, t0, t1, status, out as never);
    // Readers 1 and 2 share rw (tokens 10, 11); reader 1 releases at 100–110, then acts stale.
    const base = [lease(1), lease(2), acq(1, 'rw', 10, 0, 10, { shared: true }), acq(2, 'rw', 11, 5, 15, { shared: true }), rel(1, 'rw', 10, 100, 110)];

    it('accepts stale calls that changed nothing, and counts them', () => {
      const ops = history(
        ...base,
        stale('rrelease', 1, 'rw', 10, 120, 130, 'ok', { released: false }),
        stale('lockwrite', 1, 'rw', 10, 140, 150, 'fail', { code: 'FAILED_PRECONDITION' }),
        stale('rrelease', 1, 'rw', 10, 160, 170, 'unknown', undefined),
        rel(2, 'rw', 11, 300, 310),
      );
      const r = checkRecipes(ops);
      expect(r.violations).to.deep.equal([]);
      expect(r.staleCalls).to.equal(2);
    });

    it('refuses a stale Release answered released, an accepted stale write, Proclaim or Resign', () => {
      expect(
        checkers(history(...base, stale('rrelease', 1, 'rw', 10, 120, 130, 'ok', { released: true }, { noLease: true }), rel(2, 'rw', 11, 300, 310))),
      ).to.deep.equal(['Stale Actor']);
      expect(checkers(history(...base, stale('lockwrite', 1, 'rw', 10, 120, 130, 'ok', {}), rel(2, 'rw', 11, 300, 310)))).to.deep.equal(['Stale Actor']);
      const el = [lease(1), campaign(1, 'v1', 10, 0, 10), resign(1, 10, 100, 110)];
      expect(checkers(history(...el, stale('proclaim', 1, 'e', 10, 120, 130, 'ok', {})))).to.deep.equal(['Stale Actor']);
      expect(checkers(history(...el, stale('resign', 1, 'e', 10, 120, 130, 'ok', { resigned: true })))).to.deep.equal(['Stale Actor']);
      expect(checkers(history(...el, stale('resign', 1, 'e', 10, 120, 130, 'ok', { resigned: false })))).to.deep.equal([]);
    });

    it('refuses a grant gone at its own Release while its lease was alive, but not after its lease may have ended or was revoked', () => {
      const gone = op(seq++, 'c2', 'rrelease', { name: 'rw', leaseId: 2, token: 11, requestId: 'gone' }, 300, 310, 'ok', { released: false });
      expect(checkers(history(...base, gone))).to.deep.equal(['Grant Lost']);
      // Lease 2 trusted only until 5 + 200: the release ran after, so the lease may have expired.
      const short = [
        lease(1),
        lease(2, 5, 200),
        acq(1, 'rw', 10, 0, 10, { shared: true }),
        acq(2, 'rw', 11, 5, 15, { shared: true }),
        rel(1, 'rw', 10, 100, 110),
      ];
      expect(checkers(history(...short, gone))).to.deep.equal([]);
      expect(checkers(history(...base, revoke(2, 250, 260), gone))).to.deep.equal([]);
    });

    it('refuses two grants of one name to different leases with one token (one entry granting a crowd), not a lease answered its own token again', () => {
      // A semaphore of 2 raised to 4 grants waiters 3 and 4 in one entry: tokens 4096 and 4097, never one.
      const crowd = [
        lease(1),
        lease(2),
        lease(3),
        lease(4),
        acq(1, 'sem', 10, 0, 10, { permits: 2 }),
        acq(2, 'sem', 11, 5, 15, { permits: 2 }),
        setPermits(4, 20, 30),
      ];
      const ends = [rel(1, 'sem', 10, 100, 110), rel(2, 'sem', 11, 100, 110), rel(3, 'sem', 4096, 120, 130), rel(4, 'sem', 4097, 120, 130)];
      expect(checkers(history(...crowd, acq(3, 'sem', 4096, 18, 30, { permits: 2 }), acq(4, 'sem', 4097, 19, 30, { permits: 2 }), ...ends))).to.deep.equal([]);
      const shared = [
        acq(3, 'sem', 4096, 18, 30, { permits: 2 }),
        acq(4, 'sem', 4096, 19, 30, { permits: 2 }),
        rel(3, 'sem', 4096, 120, 130),
        rel(4, 'sem', 4096, 120, 130),
      ];
      expect(checkers(history(...crowd, ...shared, ...ends.slice(0, 2)))).to.deep.equal(['Token Unique']);
      // The same lease answered the same token (a retry): one grant.
      expect(
        checkers(history(...crowd, acq(3, 'sem', 4096, 18, 30, { permits: 2 }), acq(3, 'sem', 4096, 40, 50, { permits: 2 }), ...ends.slice(0, 3))),
      ).to.deep.equal([]);
    });

    it('holds an election to one leader even with a SetPermits on its name in flight', () => {
      const sp = op(seq++, 'x', 'setpermits', { name: 'e', permits: 2, requestId: 'sp', cross: true }, 3, 50, 'ok', { previous: 1, granted: 1 });
      expect(checkers(history(lease(1), lease(2), campaign(1, 'v1', 10, 0, 10), sp, campaign(2, 'w1', 20, 5, 40), resign(1, 10, 200, 210)))).to.deep.equal([
        'Holder Limit',
      ]);
      // And a semaphore grant beside a leader on its name.
      expect(
        checkers(history(lease(1), lease(2), campaign(1, 'v1', 10, 0, 10), acq(2, 'e', 20, 5, 40, { permits: 2 }), resign(1, 10, 200, 210))),
      ).to.deep.equal(['Holder Limit']);
    });
  });
});
