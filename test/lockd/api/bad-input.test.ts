// Every bad input gets its status code and a clear message, on the leader and on a follower, and
// nothing is proposed for it; limits answer RESOURCE_EXHAUSTED.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, useApiFixture, waitFor } from './api-fixture.js';
import { statusOf, type LockApi } from '../../support/lock-api-client.js';
import { MAX_FENCE_VALUE_BYTES, MAX_NAME_BYTES, MAX_WAITERS_PER_LOCK } from '../../../src/lockd/state-machine/index.js';

const { INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED } = grpc.status;

/** [what, call, expected code, a word the message must contain]. */
type Case = [string, (api: LockApi) => Promise<unknown>, grpc.status, string];

const UNKNOWN_LEASE = 987_654;

const cases: Case[] = [
  ['Grant ttl 0', (a) => a.grant(0), INVALID_ARGUMENT, 'ttl_ms'],
  ['Grant ttl below the minimum', (a) => a.grant(99), INVALID_ARGUMENT, 'out of range'],
  ['Grant ttl above the maximum', (a) => a.grant(3_600_001), INVALID_ARGUMENT, 'out of range'],
  ['Grant negative ttl', (a) => a.grant(-5), INVALID_ARGUMENT, 'out of range'],
  ['Grant oversize request id', (a) => a.grant(1000, { requestId: 'r'.repeat(129) }), INVALID_ARGUMENT, 'request_id'],
  ['Grant request id with a control character', (a) => a.grant(1000, { requestId: 'a\u0001b' }), INVALID_ARGUMENT, 'request_id'],
  ['Acquire empty name', (a) => a.acquire('', 1), INVALID_ARGUMENT, 'empty'],
  ['Acquire oversize name', (a) => a.acquire('x'.repeat(MAX_NAME_BYTES + 1), 1), INVALID_ARGUMENT, 'bytes'],
  ['Acquire oversize multi-byte name', (a) => a.acquire('é'.repeat(MAX_NAME_BYTES / 2 + 1), 1), INVALID_ARGUMENT, 'bytes'],
  ['Acquire name with a newline', (a) => a.acquire('a\nb', 1), INVALID_ARGUMENT, 'control character'],
  ['Acquire name with a bell', (a) => a.acquire('a\u0007', 1), INVALID_ARGUMENT, 'control character'],
  ['Acquire lease 0', (a) => a.acquire('ok', 0), INVALID_ARGUMENT, 'lease id'],
  ['Acquire unknown lease', (a) => a.acquire('ok', UNKNOWN_LEASE), NOT_FOUND, String(UNKNOWN_LEASE)],
  ['Acquire unknown lease, waiting', (a) => a.acquire('ok', UNKNOWN_LEASE, { wait: true }), NOT_FOUND, String(UNKNOWN_LEASE)],
  ['Release token 0', (a) => a.release('ok', 0), INVALID_ARGUMENT, 'fencing token'],
  ['Release unknown lock', (a) => a.release('never-held', 5), NOT_FOUND, 'never-held'],
  ['Release empty name', (a) => a.release('', 5), INVALID_ARGUMENT, 'empty'],
  ['Inspect control-character name', (a) => a.inspect('\u001b[31m'), INVALID_ARGUMENT, 'control character'],
  ['CancelWait lease 0', (a) => a.cancelWait('ok', 0), INVALID_ARGUMENT, 'lease id'],
  ['Revoke lease 0', (a) => a.revoke(0), INVALID_ARGUMENT, 'lease id'],
  ['Revoke unknown lease', (a) => a.revoke(UNKNOWN_LEASE), NOT_FOUND, 'not found'],
  ['TimeToLive lease 0', (a) => a.timeToLive(0), INVALID_ARGUMENT, 'lease id'],
  ['TimeToLive unknown lease', (a) => a.timeToLive(UNKNOWN_LEASE), NOT_FOUND, 'not found'],
  ['Fence.Write token 0', (a) => a.fenceWrite('k', 'v', 0), INVALID_ARGUMENT, 'fencing token'],
  ['Fence.Write oversize value', (a) => a.fenceWrite('k', Buffer.alloc(MAX_FENCE_VALUE_BYTES + 1), 1), INVALID_ARGUMENT, 'limit'],
  ['Fence.Write empty key', (a) => a.fenceWrite('', 'v', 1), INVALID_ARGUMENT, 'fence key'],
  ['Fence.Write a token never issued', (a) => a.fenceWrite('k', 'v', 10_000_000), INVALID_ARGUMENT, 'never issued'],
  ['Fence.Read oversize key', (a) => a.fenceRead('k'.repeat(MAX_NAME_BYTES + 1)), INVALID_ARGUMENT, 'fence key'],
];

describe('lock API: bad input and limits', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  useApiFixture((x) => (f = x));

  it('answers every bad input with its code and a clear message, on leader and follower, proposing nothing', async () => {
    // No lease is live yet, so the log only moves for what the calls propose.
    const refusedBeforeProposing = ([, , code, word]: Case) => code === INVALID_ARGUMENT && word !== 'never issued';
    const check = async (list: Case[]) => {
      for (const api of [f.leader, f.follower]) {
        for (const [what, call, code, word] of list) {
          const err = await statusOf(call(api));
          expect(err.code, `${what}: ${err.details}`).to.equal(code);
          expect(err.details, what).to.contain(word);
        }
      }
    };
    const before = (await f.cluster.status(f.leaderId)).commitIndex;
    await check(cases.filter(refusedBeforeProposing));
    expect((await f.cluster.status(f.leaderId)).commitIndex, 'log moved for input refused before proposing').to.equal(before);
    // The state-dependent ones (unknown lease or lock, a token never issued) are decided at apply.
    await check(cases.filter((c) => !refusedBeforeProposing(c)));
  });

  it('refuses a uint64 lease id beyond 2^53 instead of rounding it', async () => {
    const err = await new Promise<grpc.ServiceError>((resolve) =>
      f.leader.lock.Acquire({ name: 'big', leaseId: '18446744073709551615', wait: false }, { deadline: Date.now() + 5000 }, (e) => resolve(e!)),
    );
    expect(err.code).to.equal(INVALID_ARGUMENT);
  });

  it('ends a KeepAlive stream for lease 0 with INVALID_ARGUMENT and refuses a bad Observe name', async () => {
    const stream = f.follower.keepAliveStream();
    const ended = new Promise<grpc.ServiceError>((resolve) => stream.on('error', resolve));
    stream.on('data', () => {});
    stream.write({ leaseId: 0 });
    expect((await ended).code).to.equal(INVALID_ARGUMENT);
    const err = await statusOf(f.leader.observe(''));
    expect(err.code).to.equal(INVALID_ARGUMENT);
  });

  it(`answers RESOURCE_EXHAUSTED past ${MAX_WAITERS_PER_LOCK} waiters on one lock`, async () => {
    const name = 'flood';
    const api = f.leader;
    const grantAll = async (n: number): Promise<number[]> => {
      const ids: number[] = [];
      for (let k = 0; k < n; k += 128) {
        const chunk = await Promise.all(Array.from({ length: Math.min(128, n - k) }, () => api.grant(60_000)));
        ids.push(...chunk.map((g) => g.leaseId));
      }
      return ids;
    };
    const [holder, ...waiters] = await grantAll(MAX_WAITERS_PER_LOCK + 2);
    const extra = waiters.pop()!;
    await api.acquire(name, holder);
    const calls = waiters.map((id) => api.acquireCancellable(name, id, { timeoutMs: 60_000 }));
    for (const c of calls) c.result.catch(() => {});
    await waitFor(
      `${waiters.length} queued`,
      async () => ((await api.inspect(name)).waitingLeaseIds.length === waiters.length ? true : undefined),
      20_000,
      100,
    );
    const err = await statusOf(api.acquire(name, extra, { wait: true, timeoutMs: 5000 }));
    expect(err.code).to.equal(RESOURCE_EXHAUSTED);
    expect(err.details).to.contain(String(MAX_WAITERS_PER_LOCK));
    // A try-lock is still answered.
    expect(await api.acquire(name, extra)).to.include({ acquired: false, holderLeaseId: holder });
    for (const c of calls) c.cancel();
  });
});
