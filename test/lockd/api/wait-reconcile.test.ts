// A snapshot install has no events for the entries it covers: the waits of a node are then settled
// from the restored state (wait-reconcile.ts), by LockWaits on the "state replaced" signal, and the
// Acquirer answers each as the state says (a grant, NOT_FOUND, or the log asked again).
import { expect } from 'chai';
import pino from 'pino';
import * as grpc from '@grpc/grpc-js';
import { AppliedEvents } from '../../../src/lockd/api/applied-events.js';
import { LockWaits } from '../../../src/lockd/api/lock-waits.js';
import { settleFromState, type RestoredState } from '../../../src/lockd/api/wait-reconcile.js';
import { Acquirer, type AcquireArgs } from '../../../src/lockd/api/acquire.js';
import { ApiError } from '../../../src/lockd/api/api-error.js';
import type { AcquireResult, LockView } from '../../../src/lockd/state-machine/index.js';

const logger = pino({ level: 'silent' });

/** A state with one lock `x`: its holders (lease → token), queue and live leases. */
function stateOf(holders: Record<number, number>, waiting: number[], live: number[]): RestoredState {
  return {
    inspectLock: (name: string): Pick<LockView, 'holders' | 'waitingLeaseIds'> =>
      name === 'x'
        ? {
            holders: Object.entries(holders).map(([l, t]) => ({ leaseId: Number(l), token: t, shared: false, lockDelayMs: 0, value: '' })),
            waitingLeaseIds: waiting,
          }
        : { holders: [], waitingLeaseIds: [] },
    hasLease: (id: number) => live.includes(id),
  };
}

/** AppliedEvents on a stand-in driver whose snapshot installs the test fires by hand. */
function events(): { events: AppliedEvents; install(index: number): void } {
  const replaced: Array<(i: number) => void> = [];
  const driver = { onApplied: () => {}, onStateReplaced: (l: (i: number) => void) => replaced.push(l) };
  return { events: new AppliedEvents(driver as never, logger), install: (i) => replaced.forEach((l) => l(i)) };
}

const timing = { cancelGraceMs: 10, cleanupBudgetMs: 10 } as never;
const noCleanup = { cancelWait: () => Promise.reject(new Error('no cleanup in this test')) } as never;

describe('settling waits from a restored state', () => {
  it('settleFromState: holding → its grant; queued → still waiting; lease gone → removed; live and neither → ask again', () => {
    const st = stateOf({ 1: 4096, 2: 4097 }, [3], [1, 2, 3, 5]);
    expect(settleFromState('x', 2, st)).to.deep.equal({ kind: 'acquired', token: 4097 });
    expect(settleFromState('x', 3, st)).to.equal(undefined);
    expect(settleFromState('x', 4, st)).to.deep.equal({ kind: 'removed' });
    expect(settleFromState('x', 5, st)).to.deep.equal({ kind: 'resync' });
    expect(settleFromState('y', 1, st)).to.deep.equal({ kind: 'resync' }); // holds x, not y
  });

  it('settleFromState: a lease past its deadline still shown as holder or waiter (cleanup pending) → removed, never its token', () => {
    const st = stateOf({ 6: 8192 }, [7], [1]); // 6 holds and 7 waits, both dead: not live
    expect(settleFromState('x', 6, st)).to.deep.equal({ kind: 'removed' });
    expect(settleFromState('x', 7, st)).to.deep.equal({ kind: 'removed' });
  });

  it('LockWaits: a snapshot install wakes every waiting call with what the restored state says', async () => {
    let st = stateOf({}, [1, 2, 3], [1, 2, 3]);
    const ev = events();
    const waits = new LockWaits(ev.events, noCleanup, timing, logger, { inspectLock: (n) => st.inspectLock(n), hasLease: (id) => st.hasLease(id) });
    const far = Date.now() + 60_000;
    const [w1, w2, w3] = [1, 2, 3].map((l) => waits.register('x', l, 'p'));
    const outcomes = [w1, w2, w3].map((w) => w.next(far, () => {}));
    st = stateOf({ 1: 8192 }, [3], [1, 3]); // 1 granted, 2's lease gone, 3 still queued
    ev.install(40);
    expect(await outcomes[0]).to.deep.equal({ kind: 'acquired', token: 8192 });
    expect(await outcomes[1]).to.deep.equal({ kind: 'removed' });
    let third: unknown;
    void outcomes[2].then((o) => (third = o));
    await new Promise((r) => setImmediate(r));
    expect(third, 'a lease still queued waits on').to.equal(undefined);
    waits.close();
    expect(await outcomes[2]).to.deep.equal({ kind: 'closed' });
  });

  it('Acquirer: a wait the snapshot shows neither holding nor queued asks the log again, and answers what it says (grant ended)', async () => {
    const st = stateOf({}, [7], [7]);
    const ev = events();
    const waits = new LockWaits(ev.events, noCleanup, timing, logger, { inspectLock: (n) => st.inspectLock(n), hasLease: (id) => st.hasLease(id) });
    const result = (r: Partial<AcquireResult>): AcquireResult => ({
      type: 'Acquire',
      ok: true,
      status: 'queued',
      token: 0,
      holderLeaseId: 0,
      holderToken: 0,
      position: 1,
      endedToken: 0,
      delayRemainingMs: 0,
      duplicate: false,
      shared: false,
      ...r,
    });
    const answers = [result({ status: 'queued' }), result({ status: 'ended', endedToken: 5120, holderLeaseId: 9 })];
    const proposed: number[] = [];
    const proposer = {
      writeWithIndex: async () => {
        proposed.push(proposed.length);
        return { index: 10 + proposed.length, result: answers.shift()! };
      },
    };
    const acquirer = new Acquirer(proposer as never, waits, logger, { authority: (principal: string) => ({ principal }) } as never);
    const args: AcquireArgs = {
      name: 'x',
      leaseId: 7,
      wait: true,
      permits: 0,
      shared: false,
      lockDelayMs: 0,
      requestId: 'r1',
      deadline: Date.now() + 60_000,
      principal: 'p',
      onGone: () => {},
    };
    const call = acquirer.acquire(args); // registers its wait at once, before proposing
    Object.assign(st, stateOf({}, [], [7]));
    ev.install(50); // kept until the call waits: no moment of its is missed
    const r = await call;
    expect(proposed.length).to.equal(2);
    expect(r).to.include({ acquired: false, grantEnded: true, endedFencingToken: 5120, holderLeaseId: 9 });
  });

  it('Acquirer: a wait whose lease the snapshot shows gone fails NOT_FOUND', async () => {
    let live = true;
    const ev = events();
    const waits = new LockWaits(ev.events, noCleanup, timing, logger, {
      inspectLock: () => ({ holders: [], waitingLeaseIds: live ? [7] : [] }),
      hasLease: () => live,
    });
    const proposer = {
      writeWithIndex: async () => ({
        index: 11,
        result: {
          type: 'Acquire',
          ok: true,
          status: 'queued',
          token: 0,
          holderLeaseId: 0,
          holderToken: 0,
          position: 1,
          endedToken: 0,
          delayRemainingMs: 0,
          duplicate: false,
        },
      }),
    };
    const acquirer = new Acquirer(proposer as never, waits, logger, { authority: (principal: string) => ({ principal }) } as never);
    const call = acquirer.acquire({
      name: 'x',
      leaseId: 7,
      wait: true,
      permits: 0,
      shared: false,
      lockDelayMs: 0,
      requestId: 'r1',
      deadline: Date.now() + 60_000,
      principal: 'p',
      onGone: () => {},
    });
    live = false;
    ev.install(50);
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).code).to.equal(grpc.status.NOT_FOUND);
  });
});
