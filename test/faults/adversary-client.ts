// The adversary (`node --import tsx test/faults/adversary-client.ts`, config in FAULTS_CLIENT): a third
// party with no lease of its own that pokes at the workload's locks through the public API, as
// anyone who can reach a node can. It loops, a random action every 30–200 ms:
//  - Inspect a lock (recorded: what it says is an observation the checker holds lockd to);
//  - Release it with the holder's token it just saw (legitimate while the token is the capability:
//    access control will add principals) or a guessed one (a neighbour, or any lower token); a legitimate
//    success ends that grant, and the checkers take the holder's trust to end with it;
//  - snipe: watch each lock with Observe and release 40 % of the grants it sees at once, so that a
//    grant whose answer the network held back has often ended before the holder's retry arrives;
//  - CancelWait naming the holder or a waiter with abandoned_at_index = 0 (leave the queue: legitimate
//    for a waiter, the call re-queues) or >= 10^12, which names no real Acquire entry and must change
//    nothing (the forged-CancelWait hole: it released the holder's lock);
//  - flood a KeepAlive stream with renewals of lease ids never granted, in batches of up to 20,000
//    messages written at once; every answer must be ttl 0 (counted in "flood" notes, not operations).
// It never calls Revoke: revoking another's lease would be legitimate by the same capability
// argument, but the checkers would have to model its effect on every lock of that lease (not done).
// No retries, no request ids: each call is one attempt, unknown when it timed out or broke.
import { Connections } from '../../src/client/connections.js';
import { loadClientTls } from '../../src/client/tls.js';
import { Prng } from '../sim/prng.js';
import { ADVERSARY_INDEX, clockSince, HistoryWriter, type InspectOutput } from './history.js';
import { failureRecord as failOut, unaryCall, type Outcome } from './lockd-calls.js';
import { ADVERSARY_CALLS, type ClientConfig } from './workload-config.js';
import type { InspectRequest } from '../../src/proto/gen/lockd/v1/InspectRequest.js';
import type { InspectResponse__Output } from '../../src/proto/gen/lockd/v1/InspectResponse.js';
import type { ReleaseRequest } from '../../src/proto/gen/lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse__Output } from '../../src/proto/gen/lockd/v1/ReleaseResponse.js';
import type { CancelWaitRequest } from '../../src/proto/gen/lockd/v1/CancelWaitRequest.js';
import type { CancelWaitResponse__Output } from '../../src/proto/gen/lockd/v1/CancelWaitResponse.js';
import type { LeaseKeepAliveResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import type { LockEvent__Output } from '../../src/proto/gen/lockd/v1/LockEvent.js';

const cfg = JSON.parse(process.env.FAULTS_CLIENT ?? 'null') as ClientConfig | null;
if (!cfg) {
  process.stderr.write('adversary-client: FAULTS_CLIENT (JSON config) is not set\n');
  process.exit(2);
}
const now = clockSince(BigInt(cfg.originNs));
const hist = new HistoryWriter(cfg.historyPath, cfg.id, now);
const conns = new Connections(loadClientTls(cfg.tls));
const rng = new Prng(cfg.seed);
const calls = new Set(cfg.adversaryCalls ?? ADVERSARY_CALLS);
let stopping = false;
process.on('SIGTERM', () => (stopping = true));
process.on('SIGINT', () => (stopping = true));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const client = () => conns.get(rng.pick(cfg!.endpoints));

function complete<T>(id: string, o: Outcome<T>, out: (v: T) => unknown): void {
  if (o.kind === 'ok') hist.complete(id, 'ok', out(o.value));
  else if (o.kind === 'fail') hist.complete(id, 'fail', failOut(o));
  else hist.complete(id, 'unknown');
}

async function inspect(name: string): Promise<InspectOutput | undefined> {
  const { id } = hist.invoke('inspect', { name });
  const o = await unaryCall<InspectRequest, InspectResponse__Output>((q, op, cb) => client().lock.Inspect(q, op, cb), { name }, cfg!.attemptMs);
  const out = (v: InspectResponse__Output): InspectOutput => ({ held: v.held, token: v.fencingToken, holder: v.holderLeaseId, waiting: v.waitingLeaseIds });
  complete(id, o, out);
  return o.kind === 'ok' ? out(o.value) : undefined;
}

async function release(name: string, token: number): Promise<void> {
  const { id } = hist.invoke('release', { name, leaseId: 0, token, adversary: true });
  const o = await unaryCall<ReleaseRequest, ReleaseResponse__Output>(
    (q, op, cb) => client().lock.Release(q, op, cb),
    { name, fencingToken: token },
    cfg!.attemptMs,
  );
  complete(id, o, (v) => ({ released: v.released }));
}

async function cancelWait(name: string, leaseId: number, abandonedAtIndex: number): Promise<void> {
  const { id } = hist.invoke('cancelwait', { name, leaseId, abandonedAtIndex });
  const o = await unaryCall<CancelWaitRequest, CancelWaitResponse__Output>(
    (q, op, cb) => client().lock.CancelWait(q, op, cb),
    { name, leaseId, abandonedAtIndex },
    cfg!.attemptMs,
  );
  complete(id, o, (v) => ({ removed: v.removed, token: v.fencingToken, released: v.released }));
}

/** A guess at a token: a neighbour of the current one, or any earlier one. */
function guess(token: number): number {
  if (token <= 1 || rng.chance(0.6)) return Math.max(1, token + rng.pick([-2, -1, 1, 2, 3]));
  return 1 + rng.int(token - 1);
}

/** Renewals of ids never granted, `batch` written at once on a fresh stream; counts the answers. */
async function flood(batch: number): Promise<void> {
  const stream = client().lease.KeepAlive();
  let answered = 0;
  let alive = 0;
  let error = '';
  const ids = new Set<number>();
  stream.on('data', (res: LeaseKeepAliveResponse__Output) => {
    answered++;
    if (res.ttlMs > 0 && ids.has(res.leaseId)) alive++;
  });
  const ended = new Promise<void>((resolve) => {
    stream.on('error', (e: Error) => {
      error = e.message.slice(0, 200);
      resolve();
    });
    stream.on('end', () => resolve());
  });
  const base = ADVERSARY_INDEX + rng.int(1_000_000) * 100_000;
  for (let i = 0; i < batch; i++) {
    const leaseId = base + i;
    ids.add(leaseId);
    stream.write({ leaseId });
  }
  // Bounded: answers for a while, then the stream is cancelled.
  await Promise.race([ended, sleep(3000)]);
  stream.cancel();
  hist.note('flood', { batch, answered, alive, error });
}

/** Watch `name`; release some of its grants as soon as they are seen. Reopened (another node) when it ends. */
function snipe(name: string): void {
  if (stopping) return;
  const stream = client().lock.Observe({ name });
  let again = true;
  const reopen = () => {
    if (!again) return;
    again = false;
    stream.cancel();
    setTimeout(() => snipe(name), 200);
  };
  stream.on('data', (ev: LockEvent__Output) => {
    if (ev.type === 'ACQUIRED' && rng.chance(0.4)) void release(name, ev.fencingToken);
  });
  stream.on('error', reopen);
  stream.on('end', reopen);
}

async function main(): Promise<void> {
  hist.note('start', { mode: cfg!.mode, pid: process.pid });
  if (calls.has('snipe')) for (const name of cfg!.locks) snipe(name);
  let nextFlood = now() + rng.range(500, 3000);
  while (!stopping) {
    await sleep(rng.range(30, 200));
    if (calls.has('flood') && now() >= nextFlood) {
      await flood(rng.pick([100, 2000, 20_000]));
      nextFlood = now() + rng.range(2000, 6000);
      continue;
    }
    const name = rng.pick(cfg!.locks);
    const seen = await inspect(name);
    if (!seen || stopping) continue;
    const x = rng.float();
    const rel = calls.has('release');
    const cancel = calls.has('cancelwait');
    if (rel && seen.held && x < 0.25) await release(name, seen.token);
    else if (rel && seen.held && x < 0.4) await release(name, guess(seen.token));
    else if (cancel && seen.held && x < 0.6) await cancelWait(name, seen.holder, ADVERSARY_INDEX + rng.int(1_000_000));
    else if (cancel && seen.waiting.length && x < 0.7) await cancelWait(name, rng.pick(seen.waiting), rng.chance(0.5) ? 0 : ADVERSARY_INDEX);
    else if (rel && !seen.held && x < 0.1) await release(name, guess(seen.token || 1));
  }
  hist.note('stop');
  conns.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`adversary-client ${cfg.id}: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
