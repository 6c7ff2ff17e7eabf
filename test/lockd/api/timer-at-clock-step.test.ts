// timerAt (server-side deadlines of waiting Acquires, settleBy, Session ops) when the wall clock
// steps while a wait runs (NTP, an operator, a VM resumed): the deadline arrived as a duration
// (grpc-timeout, Session timeout_ms) and grpc-js measures a call's own deadline on a monotonic
// timer, so a step of Date.now() must neither fire a long wait early nor hold it past its time.
// The steps are made small (maxStepMs) so that a chain of several timers runs within the test.
import { expect } from 'chai';
import { timerAt } from '../../../src/lockd/api/timer-at.js';

const DAY = 24 * 3600 * 1000;

/** Run `fn` while Date.now() reads `shiftMs` off the real wall clock, from `afterMs` on, until the returned promise settles. */
async function withWallClockStep<T>(afterMs: number, shiftMs: number, fn: () => Promise<T>): Promise<T> {
  const realNow = Date.now.bind(Date);
  const step = setTimeout(() => (Date.now = () => realNow() + shiftMs), afterMs);
  try {
    return await fn();
  } finally {
    clearTimeout(step);
    Date.now = realNow;
  }
}

/** ms after the call at which timerAt(now + aheadMs) fired (stepping every stepMs), or 'not fired' within limitMs. */
function firedAfter(aheadMs: number, stepMs: number, limitMs: number): Promise<number | 'not fired'> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const t = timerAt(Date.now() + aheadMs, () => resolve(performance.now() - t0), stepMs);
    setTimeout(() => {
      t.clear();
      resolve('not fired');
    }, limitMs);
  });
}

describe('long deadlines: timerAt when the wall clock steps', function () {
  this.timeout(20_000);

  it('a wall clock stepping a day forward mid-wait does not fire the wait early', async () => {
    const at = await withWallClockStep(60, DAY, () => firedAfter(400, 25, 3000));
    expect(at).to.be.a('number').and.at.least(390);
  });

  it('a wall clock stepping a day back mid-wait does not hold the wait past its time', async () => {
    const at = await withWallClockStep(60, -DAY, () => firedAfter(400, 25, 3000));
    expect(at).to.be.a('number').and.below(1500);
  });
});
