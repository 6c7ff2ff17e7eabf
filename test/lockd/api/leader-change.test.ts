// Every lock-API RPC across a leader change, on a real 3-node cluster. The leader is deposed the
// way the Session tests do it: SIGSTOP until the others elect a new one, then SIGCONT (it wakes up
// believing it leads, hears the higher term and steps down) — or killed with -9, or SIGTERMed.
// Leases here are long (no keepalives needed through a pause) and revoked after each test.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { ApiFixture, waitFor } from './api-fixture.js';
import { statusOf, type LockApi } from '../../support/lock-api-client.js';
import type { LeaseKeepAliveResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';

const TTL_MS = 60_000;

describe('lock API across a leader change', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const leases: number[] = [];
  const cleanups: Array<() => void> = [];

  before(async () => {
    f = await ApiFixture.start({ rawCalls: true }); // failover: the tests check what calls answer during it
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0)) c();
    // Every node back and following one leader, whatever the test did.
    for (const n of f.cluster.nodes) {
      if (f.cluster.isRunning(n.id)) f.cluster.signal(n.id, 'SIGCONT');
      else f.cluster.startNode(n.id);
    }
    await f.refreshLeader();
    for (const id of leases.splice(0)) await f.leader.revoke(id).catch(() => {});
  });
  after(async () => {
    await f?.stop();
  });

  const lease = async (): Promise<number> => {
    const { leaseId } = await f.leader.grant(TTL_MS);
    leases.push(leaseId);
    return leaseId;
  };
  const others = (id: string): string[] => f.cluster.nodes.map((n) => n.id).filter((x) => x !== id);

  /** Freeze the leader until the others have elected a new one; returns both (the old one still frozen). */
  const freezeLeader = async (): Promise<{ old: string; next: string }> => {
    const old = f.leaderId;
    f.cluster.signal(old, 'SIGSTOP');
    const next = await f.cluster.waitForLeader(others(old));
    return { old, next };
  };
  /** Thaw the old leader and wait until every node follows the new one. */
  const thaw = async (old: string): Promise<void> => {
    f.cluster.signal(old, 'SIGCONT');
    await f.refreshLeader();
  };
  const stepDown = async (): Promise<{ old: string; next: string }> => {
    const r = await freezeLeader();
    await thaw(r.old);
    expect(f.leaderId).to.equal(r.next);
    return r;
  };

  /** A raw KeepAlive stream: its answers and, once it ends, its status. */
  const keepAlive = (api: LockApi) => {
    const stream = api.keepAliveStream();
    const replies: LeaseKeepAliveResponse__Output[] = [];
    let ended: grpc.StatusObject | undefined;
    stream.on('data', (x: LeaseKeepAliveResponse__Output) => replies.push(x));
    stream.on('error', () => {}); // the status carries it
    stream.on('status', (st: grpc.StatusObject) => (ended = st));
    cleanups.push(() => stream.cancel());
    return { stream, replies, ended: () => ended };
  };

  it('Cluster.Status: leader_address on every node, match_index on the leader only, both following a change', async () => {
    const check = async (leader: string) => {
      const { appliedIndex } = await f.cluster.status(leader);
      await f.cluster.waitForApplied(appliedIndex);
      await waitFor(`the leader's match_index of every member ≥ ${appliedIndex}`, async () => {
        const st = await f.cluster.status(leader);
        return st.members.every((m) => m.matchIndex >= appliedIndex) ? st : undefined;
      });
      for (const n of f.cluster.nodes) {
        const st = await f.cluster.status(n.id);
        expect(st.leaderAddress, n.id).to.equal(f.cluster.node(leader).address);
        expect(st.members.map((m) => [m.id, m.address])).to.deep.equal(f.cluster.nodes.map((x) => [x.id, x.address]));
        if (n.id !== leader)
          expect(
            st.members.map((m) => m.matchIndex),
            `${n.id} (a follower)`,
          ).to.deep.equal([0, 0, 0]);
      }
    };
    await check(f.leaderId);
    const { next } = await stepDown();
    await f.leader.grant(1000); // an entry of the new term
    await check(next);
  });

  it('KeepAlive: the deposed leader ends its stream UNAVAILABLE naming the new leader; a follower-proxied stream ends too, and a new one renews', async () => {
    const id = await lease();
    const old = f.leaderId;
    const direct = keepAlive(f.leader);
    const followerId = others(old)[0];
    const proxied = keepAlive(f.api(followerId));
    for (const s of [direct, proxied]) {
      s.stream.write({ leaseId: id });
      await waitFor('renewed', () => (s.replies.length > 0 ? true : undefined), 5000);
      expect(s.replies[0]).to.deep.equal({ leaseId: id, ttlMs: TTL_MS });
    }
    const { next } = await stepDown();
    const directEnd = await waitFor('the direct stream ended', direct.ended, 10_000);
    expect(directEnd.code).to.equal(grpc.status.UNAVAILABLE);
    expect(directEnd.metadata.get('lockd-leader')).to.deep.equal([f.cluster.node(next).address]);
    const proxiedEnd = await waitFor('the proxied stream ended', proxied.ended, 10_000);
    expect(proxiedEnd.code, proxiedEnd.details).to.equal(grpc.status.UNAVAILABLE);
    // Reconnected through the same follower: proxied to the new leader (or served, if it is the leader).
    const again = keepAlive(f.api(followerId));
    again.stream.write({ leaseId: id });
    await waitFor('renewed after the change', () => (again.replies.length > 0 ? true : undefined), 5000);
    expect(again.replies[0]).to.deep.equal({ leaseId: id, ttlMs: TTL_MS });
  });

  it('Observe on the deposed leader stays open and brings the new leader’s entries, in order', async () => {
    const name = 'lc-observe';
    const a = await lease();
    const obs = await f.leader.observe(name);
    cleanups.push(() => obs.cancel());
    const r1 = await f.leader.acquire(name, a);
    await waitFor('ACQUIRED', () => (obs.events.length === 1 ? true : undefined), 5000);
    await stepDown();
    await f.leader.release(name, r1.fencingToken);
    const r2 = await f.leader.acquire(name, a);
    await waitFor('2 more events', () => (obs.events.length >= 3 ? true : undefined), 5000);
    expect(obs.error).to.equal(undefined);
    expect(obs.events.map((e) => [e.type, e.fencingToken])).to.deep.equal([
      ['ACQUIRED', r1.fencingToken],
      ['RELEASED', r1.fencingToken],
      ['ACQUIRED', r2.fencingToken],
    ]);
  });

  it('a unary waiting Acquire on the leader survives its step-down and is granted without a retry', async () => {
    const name = 'lc-wait';
    const [a, b] = [await lease(), await lease()];
    const held = await f.leader.acquire(name, a);
    const waiting = f.leader.acquire(name, b, { wait: true, timeoutMs: 30_000 });
    await waitFor('b queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(b) ? true : undefined));
    const { old } = await stepDown();
    await f.leader.release(name, held.fencingToken);
    const r = await waiting; // the same call, answered by the deposed leader from the applied grant
    expect(r).to.include({ acquired: true, holderLeaseId: b });
    expect(r.fencingToken).to.be.greaterThan(held.fencingToken);
    expect(await f.api(old).inspect(name)).to.include({ held: true, fencingToken: r.fencingToken });
  });

  it('CancelWait on the new leader removes a wait queued under the old one (removed: true)', async () => {
    const name = 'lc-cancel';
    const [a, b] = [await lease(), await lease()];
    const held = await f.leader.acquire(name, a);
    const obs = await f.leader.observe(name);
    cleanups.push(() => obs.cancel());
    const waiting = f.leader.acquire(name, b, { wait: true, timeoutMs: 30_000, requestId: 'lc-cancel-b' }).then(
      (r) => r,
      (e: grpc.ServiceError) => e,
    );
    await waitFor('b queued', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(b) ? true : undefined));
    const { next } = await stepDown();
    expect(await f.leader.cancelWait(name, b)).to.deep.equal({ removed: true, fencingToken: 0, released: false });
    await waitFor('WAIT_CANCELLED observed', () => (obs.events.some((e) => e.type === 'WAIT_CANCELLED') ? true : undefined), 5000);
    expect(obs.events.slice(0, 2).map((e) => [e.type, e.leaseId])).to.deep.equal([
      ['QUEUED', b],
      ['WAIT_CANCELLED', b],
    ]);
    // The call, on the deposed leader, must queue again: it does so itself, or — no longer the
    // leader — it ends UNAVAILABLE naming the new one, and the client retries there.
    const settled = await Promise.race([
      waiting,
      waitFor('b queued again', () => (obs.events.filter((e) => e.type === 'QUEUED').length === 2 ? 'requeued' : undefined), 10_000),
    ]);
    let granted: Promise<unknown> = waiting;
    if (settled instanceof Error) {
      expect(settled.code, settled.details).to.equal(grpc.status.UNAVAILABLE);
      expect(settled.metadata.get('lockd-leader')).to.deep.equal([f.cluster.node(next).address]);
      granted = f.leader.acquire(name, b, { wait: true, timeoutMs: 30_000, requestId: 'lc-cancel-b' });
      await waitFor('b queued again', async () => ((await f.leader.inspect(name)).waitingLeaseIds.includes(b) ? true : undefined));
    } else expect(settled).to.equal('requeued');
    await f.leader.release(name, held.fencingToken);
    expect(await granted).to.include({ acquired: true, holderLeaseId: b });
  });

  it('Inspect and Fence.Read sent to a deposed leader never answer what it knew before it was deposed', async () => {
    const name = 'lc-read';
    const key = 'lc-read-key';
    const [a, b] = [await lease(), await lease()];
    const ta = await f.leader.acquire(name, a);
    await f.leader.fenceWrite(key, 'from a', ta.fencingToken);
    const { old, next } = await freezeLeader();
    // Under the new leader: the lock changes hands, the key a new value.
    const api = f.api(next);
    await api.release(name, ta.fencingToken);
    const tb = await api.acquire(name, b);
    await api.fenceWrite(key, 'from b', tb.fencingToken);
    // Sent while the old leader is frozen: it reads them when it wakes, still believing it leads.
    const inspect = f
      .api(old)
      .inspect(name, { timeoutMs: 10_000 })
      .then(
        (r) => r,
        (e: grpc.ServiceError) => e,
      );
    const read = f
      .api(old)
      .fenceRead(key, { timeoutMs: 10_000 })
      .then(
        (r) => r,
        (e: grpc.ServiceError) => e,
      );
    await thaw(old);
    const [i, r] = await Promise.all([inspect, read]);
    // Either the new state (forwarded, or served once caught up) or a refusal — never the old one.
    if (i instanceof Error) expect(i.code, i.details).to.equal(grpc.status.UNAVAILABLE);
    else expect(i).to.include({ held: true, fencingToken: tb.fencingToken, holderLeaseId: b });
    if (r instanceof Error) expect(r.code, r.details).to.equal(grpc.status.UNAVAILABLE);
    else expect([r.value.toString(), r.fencingToken]).to.deep.equal(['from b', tb.fencingToken]);
    // Asked again now, it answers, with the new state.
    expect(await f.api(old).inspect(name)).to.include({ fencingToken: tb.fencingToken });
    expect((await f.api(old).fenceRead(key)).value.toString()).to.equal('from b');
  });

  it('Revoke across a leader change: sent while the leader is frozen, retried on UNAVAILABLE, applied once', async () => {
    const name = 'lc-revoke';
    const a = await lease();
    const held = await f.leader.acquire(name, a);
    const old = f.leaderId;
    const via = f.api(others(old)[0]);
    await f.cluster.waitForApplied(tokenIndex(held.fencingToken)); // a token is its entry's index × 1024 + ordinal
    const obs = await via.observe(name);
    cleanups.push(() => obs.cancel());
    f.cluster.signal(old, 'SIGSTOP');
    // The follower still forwards to the frozen leader: applied, or UNAVAILABLE (the outcome unknown: retry).
    const outcomes: string[] = [];
    for (let k = 0; k < 20; k++) {
      const e = await via.revoke(a, { timeoutMs: 5000 }).then(
        () => undefined,
        (x: grpc.ServiceError) => x,
      );
      outcomes.push(e ? grpc.status[e.code] : 'OK');
      if (!e) break;
      if (e.code === grpc.status.NOT_FOUND) break; // an earlier attempt applied after all
      expect(e.code, e.details).to.equal(grpc.status.UNAVAILABLE);
    }
    expect(outcomes.at(-1), outcomes.join(', ')).to.be.oneOf(['OK', 'NOT_FOUND']);
    const next = await f.cluster.waitForLeader(others(old));
    expect((await statusOf(f.api(next).timeToLive(a))).code).to.equal(grpc.status.NOT_FOUND);
    expect(await f.api(next).inspect(name)).to.include({ held: false });
    await thaw(old);
    expect(await f.api(old).inspect(name)).to.include({ held: false });
    // The grant ended once.
    await waitFor('RELEASED observed', () => (obs.events.length > 0 ? true : undefined), 5000);
    expect(obs.events.map((e) => [e.type, e.fencingToken])).to.deep.equal([['RELEASED', held.fencingToken]]);
  });

  it('a Grant retried with the same request id after the leader is killed returns the same lease', async () => {
    const before = (await f.leader.list()).leases.length;
    const g1 = await f.leader.grant(TTL_MS, { requestId: 'lc-grant-retry' });
    leases.push(g1.leaseId);
    const old = f.leaderId;
    await f.cluster.waitForApplied(g1.leaseId, others(old));
    await f.cluster.kill(old);
    const next = await f.cluster.waitForLeader(others(old));
    const g2 = await f.api(next).grant(TTL_MS, { requestId: 'lc-grant-retry' });
    expect(g2).to.deep.equal(g1);
    expect((await f.api(next).list()).leases.length).to.equal(before + 1);
  });

  it('the fenced store keeps its highest token through a leader kill: a stale write is still refused', async () => {
    const name = 'lc-fence';
    const key = 'lc-fence-key';
    const a = await lease();
    const t0 = await f.leader.acquire(name, a);
    await f.leader.fenceWrite(key, 'first', t0.fencingToken);
    await f.leader.release(name, t0.fencingToken);
    const t1 = await f.leader.acquire(name, a);
    await f.leader.fenceWrite(key, 'second', t1.fencingToken);
    const old = f.leaderId;
    await f.cluster.kill(old);
    const next = f.api(await f.cluster.waitForLeader(others(old)));
    const err = await statusOf(next.fenceWrite(key, 'stale', t0.fencingToken));
    expect(err.code).to.equal(grpc.status.FAILED_PRECONDITION);
    expect(err.metadata.get('lockd-highest-token')).to.deep.equal([String(t1.fencingToken)]);
    const read = await next.fenceRead(key);
    expect([read.value.toString(), read.fencingToken]).to.deep.equal(['second', t1.fencingToken]);
  });

  it('SIGTERM: the leader exits 0 promptly, its keepalive stream ends instead of hanging, a new leader serves, and the node rejoins', async () => {
    const id = await lease();
    const old = f.leaderId;
    const ka = keepAlive(f.leader);
    ka.stream.write({ leaseId: id });
    await waitFor('renewed', () => (ka.replies.length > 0 ? true : undefined), 5000);
    const proc = f.cluster.node(old).proc!;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    f.cluster.signal(old, 'SIGTERM');
    expect(await exited).to.equal(0);
    expect(Date.now() - t0).to.be.below(10_000);
    expect(await f.cluster.exitedLog(old)).to.contain('"event":"shutdown"');
    const ended = await waitFor('the stream ended', ka.ended, 5000);
    expect(ended.code).to.be.oneOf([grpc.status.UNAVAILABLE, grpc.status.CANCELLED]);
    // The survivors may elect twice (a new leader whose followers' streams to it are still
    // reconnecting steps down by CheckQuorum): not what this test is about, so ask the leader of the moment.
    const granted = await waitFor(
      'the lease read on a new leader',
      async () => {
        try {
          return (await f.api(await f.cluster.waitForLeader(others(old))).timeToLive(id)).grantedTtlMs;
        } catch (e) {
          if ((e as grpc.ServiceError).code === grpc.status.UNAVAILABLE) return undefined;
          throw e;
        }
      },
      20_000,
    );
    expect(granted).to.equal(TTL_MS);
    f.cluster.startNode(old);
    const leader = await f.refreshLeader();
    const { appliedIndex } = await f.cluster.status(leader);
    await f.cluster.waitForApplied(appliedIndex);
  });
});
