// The TS client and the grant's mode (scripted server): an Acquire answered shared (a retry after a
// downgrade) gives a shared handle and result; a DOWNGRADED or PERMITS_CHANGED event means later
// grants of the name beside ours are no proof that ours ended.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { LockClient, LockLostError } from '../../src/client/index.js';
import { startFake, type FakeServer } from './fake-server.js';

const LEASE = 5;
const TOKEN = 7;

describe('client: grant mode and recipe events (scripted server)', function () {
  this.timeout(10_000);
  const servers: FakeServer[] = [];
  const clients: LockClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    for (const s of servers.splice(0)) await s.stop();
  });

  /** A node that grants lease 5, answers every Acquire with token 7 (`shared` as given), and streams `events` on Observe. */
  const start = async (shared: boolean, events: Array<{ type: string; fencingToken: number; leaseId: number }>, permits = 1) => {
    const s = await startFake({
      lease: {
        Grant: (call, cb) => cb(null, { leaseId: LEASE, ttlMs: call.request.ttlMs }),
        KeepAlive: () => {}, // never renewed: the tests end well inside the TTL
      },
      lock: {
        Acquire: (call, cb) => cb(null, { acquired: true, fencingToken: TOKEN, holderLeaseId: call.request.leaseId, shared }),
        Inspect: (_call, cb) =>
          cb(null, { held: true, fencingToken: TOKEN, holderLeaseId: LEASE, permits, holders: [{ leaseId: LEASE, fencingToken: TOKEN, shared }] }),
        Observe: (call) => {
          call.sendMetadata(new grpc.Metadata());
          events.forEach((e, k) => call.write({ name: call.request.name, index: 10 + k, ...e }));
        },
      },
    });
    servers.push(s);
    const c = new LockClient({ endpoints: [s.address], backoffInitialMs: 10, backoffMaxMs: 50 });
    clients.push(c);
    return c;
  };

  const lossOf = (signal: AbortSignal) =>
    new Promise<LockLostError>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason as LockLostError), { once: true }));

  it('an exclusive Acquire answered shared (a retry after a downgrade): acquireRaw and the handle say shared', async () => {
    const c = await start(true, []);
    expect(await c.acquireRaw('m', LEASE, { requestId: 'r1' })).to.include({ acquired: true, fencingToken: TOKEN, shared: true });
    const lease = await c.grantLease(60_000, { keepAliveIntervalMs: 60_000, renewNow: false });
    const lock = await c.acquire('m', { lease, wait: false });
    expect(lock.isShared).to.equal(true);
  });

  it('after DOWNGRADED of our grant, a reader granted beside it is no supersession', async () => {
    const c = await start(false, [
      { type: 'DOWNGRADED', fencingToken: TOKEN, leaseId: LEASE },
      { type: 'ACQUIRED', fencingToken: TOKEN + 3, leaseId: 9 },
      { type: 'RELEASED', fencingToken: TOKEN, leaseId: LEASE },
    ]);
    const lease = await c.grantLease(60_000, { keepAliveIntervalMs: 60_000, renewNow: false });
    const lock = await c.acquire('rw', { lease, wait: false });
    const lost = await lossOf(lock.signal);
    expect(lost.why).to.equal('released');
    expect(lock.isShared).to.equal(true);
  });

  it('after PERMITS_CHANGED, a later grant of the name is no supersession', async () => {
    const c = await start(
      false,
      [
        { type: 'PERMITS_CHANGED', fencingToken: 0, leaseId: 0 },
        { type: 'ACQUIRED', fencingToken: TOKEN + 3, leaseId: 9 },
        { type: 'RELEASED', fencingToken: TOKEN, leaseId: LEASE },
      ],
      3,
    );
    const lease = await c.grantLease(60_000, { keepAliveIntervalMs: 60_000, renewNow: false });
    const lock = await c.acquire('sem', { lease, wait: false });
    expect((await lossOf(lock.signal)).why).to.equal('released');
  });
});
