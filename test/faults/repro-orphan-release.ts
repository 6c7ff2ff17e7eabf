// Repro (a script, not a test) of the bug the fault suite found in src/lockd/api/lock-waits.ts: the
// cleanup of an abandoned waiting Acquire releases a grant that a later call of the same lease
// returned to its client. Run: npx tsx test/faults/repro-orphan-release.ts
// Expected once fixed: after the grace period x is still held by L with the token L's try-lock got.
// Seen (bug): x is free, the log says "orphan released", and L's Release answers "not held".
import * as grpc from '@grpc/grpc-js';
import { ProcessCluster } from '../support/process-cluster.js';
import { lockdProto } from '../../src/lockd/proto.js';

const c = await ProcessCluster.start({ size: 3 });
try {
  const leader = await c.waitForLeader();
  const addr = c.node(leader).address;
  const creds = grpc.credentials.createInsecure();
  const lease = new lockdProto.lockd.v1.Lease(addr, creds);
  const lock = new lockdProto.lockd.v1.Lock(addr, creds);
  const p = <T>(f: (cb: (e: grpc.ServiceError | null, r?: T) => void) => void) => new Promise<T>((res, rej) => f((e, r) => (e ? rej(e) : res(r!))));
  const dl = () => ({ deadline: Date.now() + 5000 });
  const H = (await p<{ leaseId: number }>((cb) => lease.Grant({ ttlMs: 60000 }, dl(), cb))).leaseId;
  const L = (await p<{ leaseId: number }>((cb) => lease.Grant({ ttlMs: 60000 }, dl(), cb))).leaseId;
  const t0 = (await p<{ fencingToken: number }>((cb) => lock.Acquire({ name: 'x', leaseId: H, wait: false }, dl(), cb))).fencingToken;
  console.log('H holds x with', t0);
  const waiting = lock.Acquire({ name: 'x', leaseId: L, wait: true, requestId: 'r1' }, { deadline: Date.now() + 20000 }, (e) => console.log('waiting acquire ended:', e?.code, e?.details));
  await new Promise((r) => setTimeout(r, 300));
  waiting.cancel();
  await new Promise((r) => setTimeout(r, 100));
  const rel = await p<{ released: boolean }>((cb) => lock.Release({ name: 'x', fencingToken: t0 }, dl(), cb));
  console.log('H released:', rel.released);
  const a2 = await p<{ acquired: boolean; fencingToken: number }>((cb) => lock.Acquire({ name: 'x', leaseId: L, wait: false, requestId: 'r2' }, dl(), cb));
  console.log('L try-lock:', a2);
  await new Promise((r) => setTimeout(r, 2500));
  const ins = await p<{ held: boolean; fencingToken: number; holderLeaseId: number }>((cb) => lock.Inspect({ name: 'x' }, dl(), cb));
  console.log('after the grace period, Inspect:', ins, '— L still alive, client holds token', a2.fencingToken);
  const rel2 = await p<{ released: boolean }>((cb) => lock.Release({ name: 'x', fencingToken: a2.fencingToken }, dl(), cb)).catch((e: grpc.ServiceError) => e.details);
  console.log('L release:', rel2);
  console.log(c.log(leader).split('\n').filter((l) => /orphan|wait cancelled/.test(l)).join('\n'));
} finally {
  await c.stop();
}
