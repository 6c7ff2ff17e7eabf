// One workload client process (`node --import tsx test/faults/workload-client.ts`, config in
// FAULTS_CLIENT). It loops: hold a lease (kept alive), acquire a lock, read the guarded list, work,
// append an element and write it back — to lockd's fenced store with the fencing token, or (control)
// to the runner's plain store — then release. Every operation goes to the history file.
//
// The client is deliberately unaware: after a pause it writes without checking whether its lease is
// still trusted, as code that trusts a lock does; the fence must refuse it. Each write records when
// the writer's lease trust ran out, so the checker can tell a loss lockd promises to prevent from one
// fencing on writes cannot.
//
// Outcomes: a call that may have taken effect is unknown; every attempt of a retried call carries the
// same request id (Grant, Acquire, Fence.Write, Release, Revoke; a server older than those fields
// drops them, its late duplicates apply twice, and the checkers catch it). After an unknown Acquire
// or Release the lease is abandoned (revoked), so a lock the client may hold without knowing it goes
// back to the queue. A critical section makes 1–3 writes, so a delayed duplicate of the first can land
// after the second.
import { Connections } from '../../src/client/connections.js';
import { loadClientTls } from '../../src/client/tls.js';
import { Prng } from '../sim/prng.js';
import { clockSince, HistoryWriter, type ReadOutput, type StoreKind } from './history.js';
import { append, decode, encode, element, lastOf, ordered, type GuardedValue } from './guarded-value.js';
import { failureRecord as failOut, retryCall, unaryCall, type Outcome } from './lockd-calls.js';
import { grantKeptLease, type LeaseKeeper } from './lease-keeper.js';
import { plainRead, plainWrite } from './plain-store.js';
import { FREE, guardKey, HOLD, type ClientConfig } from './workload-config.js';
import type { LeaseRevokeRequest } from '../../src/proto/gen/lockd/v1/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseRevokeResponse.js';
import type { AcquireRequest } from '../../src/proto/gen/lockd/v1/AcquireRequest.js';
import type { AcquireResponse__Output } from '../../src/proto/gen/lockd/v1/AcquireResponse.js';
import type { ReleaseRequest } from '../../src/proto/gen/lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse__Output } from '../../src/proto/gen/lockd/v1/ReleaseResponse.js';
import type { FenceReadRequest } from '../../src/proto/gen/lockd/v1/FenceReadRequest.js';
import type { FenceReadResponse__Output } from '../../src/proto/gen/lockd/v1/FenceReadResponse.js';
import type { FenceWriteRequest } from '../../src/proto/gen/lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse__Output } from '../../src/proto/gen/lockd/v1/FenceWriteResponse.js';

const cfg = JSON.parse(process.env.FAULTS_CLIENT ?? 'null') as ClientConfig | null;
if (!cfg) {
  process.stderr.write('workload-client: FAULTS_CLIENT (JSON config) is not set\n');
  process.exit(2);
}
const store: StoreKind = cfg.mode === 'plain' ? 'plain' : 'fence';
const now = clockSince(BigInt(cfg.originNs));
const hist = new HistoryWriter(cfg.historyPath, cfg.id, now);
const conns = new Connections(loadClientTls(cfg.tls));
const rng = new Prng(cfg.seed);
const n = cfg.endpoints.length;
let endpoint = rng.int(n);
let stopping = false;
let requestSeq = 0;
let elemSeq = 0;
process.on('SIGTERM', () => (stopping = true));
process.on('SIGINT', () => (stopping = true));

const ep = (i: number) => conns.get(cfg.endpoints[i % n]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Options of one operation. Half the operations start on a random node (a load-balancing client),
 * the rest where the last one ended: so while the nemesis delays one node's client link, many calls
 * meet it — each one's retry goes on to the next node and may be overtaken by the delayed attempt.
 */
const opts = <T>(final?: (o: Outcome<T>) => boolean) => {
  if (!cfg.sticky && rng.chance(0.5)) endpoint = rng.int(n);
  return { budgetMs: cfg.opBudgetMs, attemptMs: cfg.attemptMs, firstEndpoint: endpoint, endpoints: n, final };
};
const grantContext = { hist, conns, endpoints: cfg.endpoints, ttlMs: cfg.ttlMs, now };

async function grantLease(): Promise<LeaseKeeper | undefined> {
  const requestId = `${cfg!.id}-${++requestSeq}`;
  if (cfg!.sticky) endpoint++;
  const r = await grantKeptLease(grantContext, requestId, opts());
  endpoint = r.endpoint;
  return r.lease;
}

async function revoke(lease: LeaseKeeper): Promise<void> {
  lease.stop();
  const { id } = hist.invoke('revoke', { leaseId: lease.leaseId });
  const req: LeaseRevokeRequest = { leaseId: lease.leaseId, requestId: `${cfg!.id}-${++requestSeq}` };
  const r = await retryCall((i, t) => unaryCall<LeaseRevokeRequest, LeaseRevokeResponse__Output>((q, o, cb) => ep(i).lease.Revoke(q, o, cb), req, t), opts());
  if (r.last.kind === 'ok') hist.complete(id, 'ok', {});
  else hist.complete(id, r.uncertain || r.last.kind === 'unknown' ? 'unknown' : 'fail', r.last.kind === 'unknown' ? undefined : failOut(r.last));
}

type AcquireResult = { kind: 'acquired'; token: number } | { kind: 'held' } | { kind: 'gone' } | { kind: 'failed' } | { kind: 'unknown' };

async function acquire(name: string, lease: LeaseKeeper, wait: boolean): Promise<AcquireResult> {
  const requestId = `${cfg!.id}-${++requestSeq}`;
  const { id, time } = hist.invoke('acquire', { name, leaseId: lease.leaseId, wait, requestId });
  const req = { name, leaseId: lease.leaseId, wait, requestId };
  const invokedAt = Date.now();
  const attemptMs = wait ? cfg!.acquireWaitMs : cfg!.attemptMs;
  // A wait that ran out of time is not retried: it ends the operation, outcome unknown.
  const r = await retryCall((i, t) => unaryCall<AcquireRequest, AcquireResponse__Output>((q, o, cb) => ep(i).lock.Acquire(q, o, cb), req, t), {
    // Sticky: never retried once sent (see ClientConfig.sticky).
    ...opts((o) => o.kind === 'unknown' && (cfg!.sticky || (o.code === 'DEADLINE_EXCEEDED' && wait))),
    firstEndpoint: cfg!.sticky ? lease.endpoint : endpoint,
    attemptMs,
    budgetMs: attemptMs + cfg!.opBudgetMs,
    // An attempt with an unknown outcome, then retried, is an operation of its own (AcquireInput.retryOf).
    retried: (o, startedAt) => {
      if (o.kind !== 'unknown') return;
      const ghost = hist.invoke('acquire', { name, leaseId: lease.leaseId, wait, retryOf: id, requestId }, time + (startedAt - invokedAt));
      hist.complete(ghost.id, 'unknown');
    },
  });
  if (!cfg!.sticky) endpoint = r.endpoint;
  const o = r.last;
  if (o.kind === 'ok') {
    const v = o.value;
    // The answer is about the state during the last attempt (history clock), not the first.
    const answeredFrom = r.attempts > 1 ? time + (r.lastStartedAt - invokedAt) : undefined;
    hist.complete(id, 'ok', { acquired: v.acquired, token: v.fencingToken, holder: v.holderLeaseId, answeredFrom });
    return v.acquired ? { kind: 'acquired', token: v.fencingToken } : { kind: 'held' };
  }
  if (o.kind === 'unknown' || r.uncertain) {
    hist.complete(id, 'unknown');
    return { kind: 'unknown' };
  }
  hist.complete(id, 'fail', failOut(o));
  return o.code === 'NOT_FOUND' ? { kind: 'gone' } : { kind: 'failed' };
}

/** 'released' | 'stale' (definite, nothing to hold) | 'unknown' (may still hold the lock). */
async function release(name: string, lease: LeaseKeeper, token: number): Promise<'released' | 'stale' | 'unknown'> {
  const requestId = `${cfg!.id}-${++requestSeq}`;
  const { id } = hist.invoke('release', { name, leaseId: lease.leaseId, token, requestId });
  const req: ReleaseRequest = { name, fencingToken: token, requestId };
  const r = await retryCall((i, t) => unaryCall<ReleaseRequest, ReleaseResponse__Output>((q, o, cb) => ep(i).lock.Release(q, o, cb), req, t), {
    ...opts(() => cfg!.sticky),
    firstEndpoint: cfg!.sticky ? lease.endpoint : endpoint,
  });
  if (!cfg!.sticky) endpoint = r.endpoint;
  const o = r.last;
  // After an unknown attempt only "released" is conclusive: a refusal may answer our own first attempt.
  if (o.kind === 'ok' && (o.value.released || !r.uncertain)) {
    hist.complete(id, 'ok', { released: o.value.released });
    return o.value.released ? 'released' : 'stale';
  }
  if (o.kind === 'fail' && !r.uncertain) {
    hist.complete(id, 'fail', failOut(o));
    // Only a stale token or a free lock means we hold nothing; a release never sent leaves it held.
    return o.code === 'NOT_FOUND' || o.code === 'FAILED_PRECONDITION' ? 'stale' : 'unknown';
  }
  hist.complete(id, 'unknown');
  return 'unknown';
}

async function readGuard(key: string): Promise<{ value: GuardedValue; token: number } | undefined> {
  const { id } = hist.invoke('read', { store, key });
  let got: { value: GuardedValue; token: number } | undefined;
  let fail: { code: string; message: string } | undefined;
  if (cfg!.mode === 'fence') {
    const r = await retryCall((i, t) => unaryCall<FenceReadRequest, FenceReadResponse__Output>((q, o, cb) => ep(i).fence.Read(q, o, cb), { key }, t), opts());
    endpoint = r.endpoint;
    if (r.last.kind === 'ok') got = { value: decode(r.last.value.value), token: r.last.value.fencingToken };
    else if (r.last.kind === 'fail') fail = failOut(r.last);
  } else {
    try {
      got = { value: decode(await plainRead(cfg!.plainStore!, key, cfg!.attemptMs)), token: 0 };
    } catch {
      got = undefined;
    }
  }
  if (!got) {
    if (fail) hist.complete(id, 'fail', fail);
    else hist.complete(id, 'unknown');
    return undefined;
  }
  const out: ReadOutput = {
    n: got.value.n,
    last: lastOf(got.value),
    token: got.token,
    ordered: ordered(got.value, cfg!.mode === 'fence' ? got.token : undefined),
  };
  hist.complete(id, 'ok', out);
  return got;
}

/** Append one element and write the list back; the new value if the write was acknowledged. */
async function writeGuard(lock: string, key: string, read: GuardedValue, token: number, lease: LeaseKeeper): Promise<GuardedValue | undefined> {
  const elem = element(cfg!.id, ++elemSeq, token);
  const value = append(read, elem);
  const requestId = `${cfg!.id}-${++requestSeq}`;
  const { id } = hist.invoke('write', {
    store,
    key,
    lock,
    elem,
    pred: lastOf(read),
    n: value.n,
    token,
    requestId,
    leaseId: lease.leaseId,
    trustedUntil: lease.trustedUntil,
  });
  const bytes = encode(value);
  if (cfg!.mode === 'fence') {
    // One request id for every attempt: a late attempt must not overwrite a later write.
    const req: FenceWriteRequest = { key, value: bytes, fencingToken: token, requestId };
    const r = await retryCall((i, t) => unaryCall<FenceWriteRequest, FenceWriteResponse__Output>((q, o, cb) => ep(i).fence.Write(q, o, cb), req, t), opts());
    endpoint = r.endpoint;
    const o = r.last;
    if (o.kind === 'ok') hist.complete(id, 'ok', { highestToken: o.value.highestToken });
    else if (o.kind === 'fail' && !r.uncertain) hist.complete(id, 'fail', failOut(o));
    else hist.complete(id, 'unknown');
    return o.kind === 'ok' ? value : undefined;
  }
  try {
    await plainWrite(cfg!.plainStore!, key, bytes, cfg!.attemptMs);
    hist.complete(id, 'ok', { highestToken: 0 });
    return value;
  } catch {
    hist.complete(id, 'unknown');
    return undefined;
  }
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  hist.note('start', { mode: cfg!.mode, pid: process.pid });
  let lease: LeaseKeeper | undefined;
  while (!stopping) {
    if (!lease || lease.lost) {
      lease?.stop();
      lease = await grantLease();
      if (!lease) {
        await sleep(rng.range(50, 200));
        continue;
      }
    }
    const name = rng.pick(cfg!.locks);
    const a = await acquire(name, lease, rng.chance(cfg!.waitShare));
    if (a.kind === 'unknown') {
      await revoke(lease);
      lease = undefined;
      continue;
    }
    if (a.kind === 'gone') {
      lease.stop();
      lease = undefined;
      continue;
    }
    if (a.kind !== 'acquired') {
      await sleep(rng.range(10, 60));
      continue;
    }
    const key = guardKey(name);
    const read = await readGuard(key);
    if (read) {
      say(`${HOLD} ${name} ${a.token}`);
      await sleep(rng.range(cfg!.workMs[0], cfg!.workMs[1]));
      // Each write builds on the last acknowledged one; after any other outcome, stop writing.
      let value: GuardedValue | undefined = read.value;
      for (let i = rng.range(cfg!.writesPerHold[0], cfg!.writesPerHold[1]); i > 0 && value; i--) {
        value = await writeGuard(name, key, value, a.token, lease);
        if (i > 1 && value) await sleep(rng.range(0, 30));
      }
      say(FREE);
    }
    const rel = await release(name, lease, a.token);
    if (rel === 'unknown') {
      await revoke(lease);
      lease = undefined;
    }
    await sleep(rng.range(0, 20));
  }
  if (lease && !lease.lost) await revoke(lease);
  lease?.stop();
  hist.note('stop');
  conns.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`workload-client ${cfg.id}: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
