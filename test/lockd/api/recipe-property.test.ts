// Recipe property test: seeded random sequences of Grant, Revoke, Acquire (try and wait;
// semaphore permits, shared/exclusive, lock-delay), Release (by token, with or without lease_id),
// SetPermits (growing, shrinking, refused), Inspect and the election calls (Campaign, Proclaim,
// Leader, Resign), sent to any of a real 3-node cluster's nodes or on a Session stream, checked
// against a plain reference model (recipe-model.ts: holders and a FIFO queue per name). Names are
// also used as other recipes than their own (mixed recipes), and stale actors keep acting after
// their grant or lease ended (recipe-ops.ts); recipe-checks.ts checks the proto's promises on the
// answers and on every name's Lock.Observe events. Requests the proto refuses whole (a fence key,
// request id or election value that is not UTF-8; a 64-bit id or token past 2^53) must be
// INVALID_ARGUMENT, and the Inspect, Leader and Fence.Read after them show nothing changed. In each
// sequence a node — a follower in odd seeds, the leader (deposed) in even ones — is paused for a
// few ops and catches up by snapshot (recipe-pause.ts), with a wait on it decided meanwhile: its
// Lock.Observe streams must then add up to every lock's holders, its Election.Observe show the
// current leadership, its KeepAlive stream hear that its lease ended, the wait answer what the
// restored state says. A failing sequence is shrunk and printed with its seed. The mutex's
// request-id and CancelWait semantics are api-property.test.ts's. LOCKD_PROP_SEEDS=a-b runs other
// seeds; LOCKD_PROP_OPS sets the length, LOCKD_PROP_BURST how often a burst is drawn (1 in 10).
//
// What it caught (LOCKD_PROP_SURVEY=1, seeds 1–16, each break made by hand and undone; 2026-12-02; a
// record: the sequences changed since, and the bugs kept in test/plants are measured in docs/testing.md §4):
// the snapshot's RESYNC taken out, 14 of seeds 1–32 (e008ec1); Proclaim accepting any token, 5/16;
// no UTF-8 check of Fence.Write's key, 5/16; of request ids, 2/16; of election values, 6/16; ids
// past 2^53 accepted (isInteger for isSafeInteger), seed 5 (then a node exited and the survey
// stopped: 1 of the 6 run); Election.Observe not resent on a snapshot install, 2/16; waits not
// settled on a snapshot install, 3/16; PERMITS_CHANGED only with waiters, 6/16; a lease's end not
// sent to its KeepAlive streams, 8/16 (every odd seed: the paused follower). Not caught:
// KeepAlive streams not settled on a snapshot install (0/16) — unreachable here: a follower's stream
// is the leader's (proxied), and a deposed leader ends its streams UNAVAILABLE before it installs.
import { Prng } from '../../sim/prng.js';
import { ApiFixture } from './api-fixture.js';
import { drawBurst, drawKinds, drawOp, NAMES, type Op, type OpBody } from './recipe-ops.js';
import { runRecipes, type Coverage } from './recipe-runner.js';
import { searchSeeds } from './property-search.js';
import { SNAPSHOT_EVERY } from './recipe-pause.js';

const [FIRST, LAST] = (process.env.LOCKD_PROP_SEEDS ?? '1-16').split('-').map(Number);
const OPS = Number(process.env.LOCKD_PROP_OPS ?? 60);
/** One op in BURST, drawn at random, is a burst (LOCKD_PROP_BURST: fewer means more bursts). */
const BURST = Number(process.env.LOCKD_PROP_BURST ?? 10);
const SHRINK_RUNS = 40;

function sequence(seed: number): Op[] {
  const rnd = new Prng(seed * 7919 + 16);
  const kinds = drawKinds(rnd);
  // Every seed has an election (a name mixed recipes reach: SetPermits, shared, Acquire on it), made
  // by draws of their own, so a seed that drew one keeps its sequence; and a crowd (below).
  const mix = new Prng(seed * 15_485_863 + 7);
  if (!kinds.some((k) => k.k === 'election')) kinds[mix.int(NAMES)] = { k: 'election' };
  const ops: Op[] = [];
  while (ops.length < OPS) {
    // Now and then a burst: one entry grants several, one of them ends, its holder acts on.
    if (ops.length >= 5 && rnd.int(BURST) === 0) ops.push(...drawBurst(rnd, ops.length, kinds));
    else ops.push(drawOp(rnd, ops.length, kinds));
  }
  // A node — a follower, or in even seeds the leader — is paused for a few ops and catches up
  // by snapshot (drawn apart, so the other requests of a seed are the same with or without it). Just
  // before it, a holder takes a name and a waiting call (an Acquire, or a Campaign on an election)
  // goes to the node to be paused (via 4); just after, the holder's lease is revoked: the wait is
  // decided while its node is paused (docs/lessons.md 17), and must be answered after the catch-up.
  const world = new Prng(seed * 104_729 + 3);
  const leader = seed % 2 === 0; // every other seed: both variants in any range of seeds
  // The leader early, before calls wait on it through other nodes (the runner skips it then).
  const at = 5 + world.int(leader ? 4 : ops.length - 10);
  const n = world.int(NAMES);
  const kind = kinds[n];
  const holder = world.int(8);
  const permits = kind.k === 'semaphore' ? kind.permits : 1;
  const ask = (lease: number, wait: boolean): OpBody =>
    kind.k === 'election'
      ? { k: 'campaign', name: n, lease: { live: lease }, value: 90 + lease }
      : { k: 'acquire', name: n, lease: { live: lease }, wait, permits, shared: false, odd: false, delay: false };
  // A semaphore's holders fill it first, so the waiter waits.
  const holders: Op[] = Array.from({ length: permits }, (_, i) => ({ id: 10_001 + i, via: world.int(4), body: ask(holder + i, false) }));
  ops.splice(
    at,
    0,
    ...holders,
    { id: 10_010, via: 4, body: ask(holder + permits, true) },
    { id: 10_000, via: 0, body: { k: 'pause', ops: 3 + world.int(8), leader } },
    { id: 10_011, via: world.int(3), body: { k: 'revoke', lease: { holderOf: n, k: 0 } } },
  );
  // One crowd burst on a name that is no election (its holders granted by one entry, one of them
  // ended and acting on), outside the pause's ops: a seed whose other name became the election
  // above would otherwise have half the crowds.
  const crowd = kinds.findIndex((k) => k.k !== 'election');
  if (crowd >= 0) {
    const block = holders.length + 3;
    let pos = 5 + mix.int(ops.length - 5);
    if (pos > at && pos < at + block) pos = at + block;
    ops.splice(pos, 0, ...drawBurst(mix, 20_000, kinds, crowd));
  }
  return ops;
}

describe('lock API recipe property test: semaphores, read-write locks, lock-delay, SetPermits, elections against a reference model (3 nodes)', function () {
  this.timeout(600_000);
  let f: ApiFixture;
  const seen: Coverage = new Map();

  before(async () => {
    // The runner judges each answer: UNAVAILABLE makes a run inconclusive, never retried. Logs are
    // compacted every few entries, so a paused follower catches up by snapshot (recipe-pause.ts).
    f = await ApiFixture.start({ rawCalls: true, extraArgs: ['--snapshot-every', SNAPSHOT_EVERY] });
  });
  after(async () => {
    await f?.stop();
  });

  // LOCKD_PROP_SURVEY=1: no shrinking, no stop at the first failing seed — one line per seed saying
  // what it found (to see which seeds find what on a given build).
  if (process.env.LOCKD_PROP_SURVEY)
    it(`survey of seeds ${FIRST}–${LAST}`, async () => {
      for (let seed = FIRST; seed <= LAST; seed++) {
        const t0 = Date.now();
        const r = await runRecipes(f, sequence(seed), `s${seed}`, seen);
        console.log(`seed ${seed}: ${r.kind} in ${Date.now() - t0} ms${r.kind === 'pass' ? '' : `: ${r.why.slice(0, 400)}`}`);
        if (r.kind === 'fail' && process.env.LOCKD_PROP_LOG) console.log(r.log.join('\n'));
      }
      console.log(JSON.stringify([...seen].sort()));
    });
  else
    it(`seeds ${FIRST}–${LAST}, ${OPS} ops each: every answer is the model's`, async () => {
      const inconclusive = await searchSeeds({
        first: FIRST,
        last: LAST,
        sequence,
        shrinkRuns: SHRINK_RUNS,
        runOnce: (seed, ops, attempt) => runRecipes(f, ops, `q${seed}x${attempt}`, seen),
      });
      if (process.env.LOCKD_PROP_LOG) console.log(JSON.stringify([...seen].sort()));
      // The sequences must reach the paths that matter, or passing proves little.
      for (const k of [
        'semaphore holders > 1',
        'shared beside shared',
        'queued behind a waiter although it fits',
        'downgrade',
        'upgrade refused',
        'permits disagree',
        'lock-delay started',
        'refused during a lock-delay',
        'setPermits granted',
        'setPermits below the holders refused',
        'waiter granted',
        'campaign won after waiting',
        'proclaimed',
        // Stale actors and mixed recipes: one entry grants several, one of them ends beside another,
        // and its holder (or a third party) acts on; the name used as another recipe is refused.
        'one entry granted several',
        'a holder ended beside another',
        'stale release',
        'stale release without lease',
        'stale fence write',
        'fence write accepted',
        'third-party cancel',
        'keepalive of an ended lease',
        'retry of a live grant',
        'retry after a downgrade',
        'acquire on an election refused',
        'campaign on a lock refused',
        'setPermits on an election refused',
        'invalid UTF-8 name refused',
        'follower caught up by snapshot',
        // The sharper paths: the ended leadership acts on; SetPermits with
        // nobody to grant (only PERMITS_CHANGED shows it); a grant handed to a waiter, cancelled by a third party.
        'stale proclaim',
        'stale resign',
        'setPermits changed with no waiters',
        'third-party cancel of a grant',
        // Invalid input beyond names: each refused whole, and what it would have changed reads unchanged.
        'invalid UTF-8 fence key refused',
        'invalid UTF-8 request id refused',
        'invalid UTF-8 election value refused',
        'out-of-range 64-bit number refused',
        // Snapshot catch-up: the leader paused and deposed too; a wait decided while its node was paused; a
        // KeepAlive stream on the paused node told its lease ended.
        'leader caught up by snapshot',
        'waiting call decided while its node was paused (follower)',
        'waiting call decided while its node was paused (leader)',
        'keepalive stream on a paused follower told ttl 0',
      ])
        if (!seen.get(k)) throw new Error(`no sequence exercised "${k}": ${JSON.stringify([...seen].sort())}`);
      if (inconclusive > (LAST - FIRST + 1) / 4)
        throw new Error(`${inconclusive} of ${LAST - FIRST + 1} seeds were inconclusive three times: the cluster was not stable enough to test`);
    });
});
