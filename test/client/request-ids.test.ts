// Every mutating call of the TS client sends one request id on all attempts of a call (and a fresh
// one per call), so a retry — or a first attempt that lands late — is applied once.
// A scripted server answers each call's first attempt UNAVAILABLE and records what it was sent.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { Lease, Lock, LockClient } from '../../src/client/index.js';
import { startFake, type FakeServer } from './fake-server.js';

type Req = { requestId: string };

describe('client request ids on retries (scripted server)', function () {
  this.timeout(10_000);
  let server: FakeServer;
  let client: LockClient;
  const seen = new Map<string, string[]>();

  /** A handler that fails the first attempt of each call with UNAVAILABLE, then answers `res`. */
  function flaky<T>(method: string, res: T) {
    return (call: { request: Req }, cb: (err: Partial<grpc.StatusObject> | null, res?: T) => void) => {
      const ids = seen.get(method) ?? [];
      seen.set(method, [...ids, call.request.requestId]);
      if (ids.filter((id) => id === call.request.requestId).length === 0) cb({ code: grpc.status.UNAVAILABLE, details: 'no leader is known, retry shortly' });
      else cb(null, res);
    };
  }

  before(async () => {
    server = await startFake({
      lease: { Revoke: flaky('Revoke', {}) as never },
      lock: {
        Release: flaky('Release', { released: true }) as never,
        Acquire: ((_c: unknown, cb: (e: Partial<grpc.StatusObject>) => void) => cb({ code: grpc.status.DEADLINE_EXCEEDED, details: 'gave up' })) as never,
        CancelWait: flaky('CancelWait', { removed: true, fencingToken: 0, released: false }) as never,
      },
      fence: {
        Write: flaky('Write', { highestToken: 7 }) as never,
        Delete: flaky('Delete', { deleted: true, highestToken: 7 }) as never,
      },
    });
    client = new LockClient({ endpoints: [server.address], backoffInitialMs: 5, backoffMaxMs: 10, watchLocks: false });
  });
  after(async () => {
    client.close();
    await server.stop();
  });

  /** The ids one method saw: two attempts per call, the same id within a call, a new id per call. */
  function expectRetriedOnce(method: string, calls: number): void {
    const ids = seen.get(method) ?? [];
    expect(ids, method).to.have.length(2 * calls);
    for (let i = 0; i < calls; i++) {
      expect(ids[2 * i], method).to.match(/^[0-9a-f-]{36}$/);
      expect(ids[2 * i + 1], method).to.equal(ids[2 * i]);
    }
    expect(new Set(ids).size, method).to.equal(calls);
  }

  it('Release, Revoke, Fence.Write and Fence.Delete resend their request id; a caller may pass its own', async () => {
    expect(await client.release('l', 5)).to.equal(true);
    expect(await client.release('l', 5)).to.equal(true);
    await client.revokeLease(3);
    expect(await client.fenceWrite('k', 'v', 5, { lock: 'l' })).to.equal(7);
    expect(await client.fenceDelete('k', 5, { lock: 'l' })).to.deep.equal({ deleted: true, highestToken: 7 });
    expectRetriedOnce('Release', 2);
    expectRetriedOnce('Revoke', 1);
    expectRetriedOnce('Write', 1);
    expectRetriedOnce('Delete', 1);
    await client.fenceWrite('k', 'v', 5, { requestId: 'mine' });
    expect(seen.get('Write')!.slice(-2)).to.deep.equal(['mine', 'mine']);
  });

  it('Lock.release, Lease.revoke and the CancelWait cleanup of a failed wait resend their request id', async () => {
    // Handles over the client's own router, as acquire() makes them (the fake serves no KeepAlive).
    const router = (client as unknown as { router: ConstructorParameters<typeof Lease>[0] }).router;
    const lease = new Lease(router, 9, 60_000, performance.now() + 60_000, { renewNow: false });
    const mark = (m: string) => seen.get(m)?.length ?? 0;
    const at = { cancel: mark('CancelWait'), release: mark('Release'), revoke: mark('Revoke') };
    // A waiting acquire for a caller's lease that fails leaves the queue with CancelWait.
    const err = await client.acquire('l', { lease, timeoutMs: 1000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.match(/DEADLINE_EXCEEDED/);
    expect(await new Lock(router, 'l', 5, lease, false, false).release()).to.equal(true);
    await lease.revoke();
    for (const [m, from] of [
      ['CancelWait', at.cancel],
      ['Release', at.release],
      ['Revoke', at.revoke],
    ] as const) {
      const ids = seen.get(m)!.slice(from);
      expect(ids, m).to.have.length(2);
      expect(ids[0], m).to.match(/^[0-9a-f-]{36}$/);
      expect(ids[1], m).to.equal(ids[0]);
    }
  });
});
