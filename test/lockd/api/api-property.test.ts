// API property test: seeded random sequences of every public RPC — Grant, KeepAlive,
// Revoke, TimeToLive, Acquire (try and wait), Release, Inspect, CancelWait (plain and cleanup-style,
// abandoned_at_index included), Fence.Write/Delete/Read — with request ids, exact retries, delayed
// duplicates (an earlier request resent after other calls) and request ids reused for other
// requests, sent to any of a real 3-node cluster's nodes or on a Session stream, checked against a
// pure reference model (api-model.ts). A failing sequence is shrunk and printed with its seed. On the
// code before the retried-Acquire and forged-CancelWait holes were fixed it fails within the default seeds (seed 2: CancelWait with
// abandoned_at_index 10^12 accepted; with LOCKD_PROP_SKIP=cancelWait, seed 5: a retried try-lock
// answered its released grant, shrunk to 4 ops; seed 18 with the old inclusive bound: a try-lock's
// grant released by a CancelWait naming its token).
// Not covered: expiry (TTLs are long; the model's clock is coarse), a plain CancelWait of a wait a
// call is waiting on (the call re-queues on its own timing), a second waiting call on one wait.
// The recipes (semaphores, read-write locks, lock-delay, SetPermits, elections) have their own
// model and test: recipe-property.test.ts.
// LOCKD_PROP_SEEDS=a-b runs other seeds; LOCKD_PROP_OPS sets the sequence length; LOCKD_PROP_SKIP=
// cancelWait,fenceWrite,... leaves those kinds out (to look past one known failure).
import { Prng } from '../../sim/prng.js';
import { ApiFixture } from './api-fixture.js';
import { drawOp, type Op } from './api-ops.js';
import { runSequence, type Coverage } from './api-runner.js';
import { searchSeeds } from './property-search.js';

const [FIRST, LAST] = (process.env.LOCKD_PROP_SEEDS ?? '1-16').split('-').map(Number);
const OPS = Number(process.env.LOCKD_PROP_OPS ?? 30);
const SKIP = new Set((process.env.LOCKD_PROP_SKIP ?? '').split(',').filter(Boolean));
/** Re-runs a shrink may spend. */
const SHRINK_RUNS = 60;

function sequence(seed: number): Op[] {
  const rnd = new Prng(seed);
  const ops: Op[] = [];
  for (let i = 0; i < OPS; i++) ops.push(drawOp(rnd, i, ops));
  return ops.filter((o) => !SKIP.has(o.body.k) && !(o.body.k === 'reuse' && SKIP.has(o.body.body.k)));
}

describe('lock API property test: random RPC sequences against a reference model (3 nodes)', function () {
  this.timeout(300_000);
  let f: ApiFixture;
  const seen: Coverage = new Map();

  before(async () => {
    f = await ApiFixture.start({ rawCalls: true }); // the runner judges each answer: UNAVAILABLE makes a run inconclusive, never retried
  });
  after(async () => {
    await f?.stop();
  });

  it(`seeds ${FIRST}–${LAST}, ${OPS} ops each: every answer is the model's`, async () => {
    const inconclusive = await searchSeeds({
      first: FIRST,
      last: LAST,
      sequence,
      shrinkRuns: SHRINK_RUNS,
      runOnce: (seed, ops, attempt) => runSequence(f, ops, `p${seed}x${attempt}`, seen),
    });
    // The sequences must reach the paths that matter (retried Acquires, forged CancelWaits, request ids), or passing proves little.
    for (const k of [
      'grant ended',
      'cleanup released',
      'waits ended',
      'cancelWait code 3',
      'dup acquire ok',
      'dup release ok',
      'dup fenceWrite ok',
      'fenceWrite code 9',
      'acquire waits',
    ])
      if (!seen.get(k)) throw new Error(`no sequence exercised "${k}": ${JSON.stringify([...seen].sort())}`);
    if (process.env.LOCKD_PROP_LOG) console.log(JSON.stringify([...seen].sort()));
    // Runs that never concluded prove nothing: at most a few may be lost to leader changes.
    if (inconclusive > (LAST - FIRST + 1) / 4)
      throw new Error(`${inconclusive} of ${LAST - FIRST + 1} seeds met UNAVAILABLE three times: the cluster was not stable enough to test`);
  });
});
