// Session batches (SessionRequest/SessionResponse.batch, session-batch.ts): on a real cluster, a
// batch of requests is served element by element as if each came alone; a client that opened with
// lockd-session-batch gets the answers finished in one turn in one message, one that did not gets
// one message per answer; malformed batches are refused. And the server's AnswerBatcher on its own:
// what it sends alone, when it flushes, and that it settles only what it has sent.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { SessionClient as SessionStub } from '../../../src/proto/gen/lockd/v1/Session.js';
import type { SessionRequest } from '../../../src/proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse } from '../../../src/proto/gen/lockd/v1/SessionResponse.js';
import type { SessionResponse__Output } from '../../../src/proto/gen/lockd/v1/SessionResponse.js';
import { AnswerBatcher, BATCH_HEADER, MAX_ANSWERS_PER_MESSAGE, MAX_BATCH } from '../../../src/lockd/api/session-batch.js';
import { ApiFixture, waitFor } from './api-fixture.js';

const TTL_MS = 60_000;

/** A raw Session stream that records every message as it came (batched or not). */
class RawSession {
  readonly call: grpc.ClientDuplexStream<SessionRequest, SessionResponse__Output>;
  readonly messages: SessionResponse__Output[] = [];
  readonly headers: Promise<grpc.Metadata>;
  readonly ended: Promise<grpc.StatusObject>;
  private readonly stub: SessionStub;

  constructor(address: string, batches: boolean) {
    this.stub = new lockdProto.lockd.v1.Session(address, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    if (batches) md.set(BATCH_HEADER, '1');
    this.call = this.stub.Open(md);
    this.headers = new Promise((resolve) => this.call.on('metadata', resolve));
    this.call.on('data', (r: SessionResponse__Output) => this.messages.push(r));
    this.ended = new Promise((resolve) => this.call.on('status', resolve));
    this.call.on('error', () => {}); // the status carries it
  }

  /** Every answer received, batched ones unpacked, in arrival order. */
  answers(): SessionResponse__Output[] {
    return this.messages.flatMap((m) => (m.batch.length > 0 ? m.batch : [m]));
  }

  async answered(ids: readonly number[]): Promise<Map<number, SessionResponse__Output>> {
    await waitFor(`answers to ${ids.length} ids`, () => (ids.every((id) => this.answers().some((a) => a.id === id)) ? true : undefined), 10_000);
    return new Map(this.answers().map((a) => [a.id, a]));
  }

  close(): void {
    this.call.cancel();
    this.stub.close();
  }
}

const ids = (from: number, n: number) => Array.from({ length: n }, (_, k) => from + k);
/** An Acquire refused by validation (empty name): answered in the turn its request is read. */
const invalid = (id: number): SessionRequest => ({ id, acquire: { name: '', leaseId: 1, wait: false } });

describe('lock API: Session batches', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const closers: Array<() => void> = [];
  const raw = (batches: boolean) => {
    const s = new RawSession(f.cluster.node(f.leaderId).address, batches);
    closers.push(() => s.close());
    return s;
  };

  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c();
  });
  after(async () => {
    await f?.stop();
  });

  it('announces batching in its response headers, serves a batch element by element, and answers one turn in one message to a client that asked', async () => {
    const s = raw(true);
    s.call.write({ batch: ids(1, 20).map(invalid) });
    expect((await s.headers).get(BATCH_HEADER)).to.deep.equal(['1']);
    const got = await s.answered(ids(1, 20));
    // All 20 were refused in the turn their message was read: one message, in order, each its own error.
    expect(s.messages).to.have.length(1);
    expect(s.messages[0]).to.include({ id: 0 });
    expect(s.messages[0].batch.map((a) => a.id)).to.deep.equal(ids(1, 20));
    for (const id of ids(1, 20)) expect(got.get(id)!.error, `id ${id}`).to.include({ code: grpc.status.INVALID_ARGUMENT });

    // Real writes in one batch: each applied once, as if sent alone.
    s.call.write({ batch: ids(21, 5).map((id) => ({ id, grant: { ttlMs: TTL_MS, requestId: `batch-grant-${id}` } })) });
    const grants = await s.answered(ids(21, 5));
    const leases = ids(21, 5).map((id) => grants.get(id)!.grant!.leaseId);
    expect(new Set(leases).size).to.equal(5);
    s.call.write({ batch: leases.map((leaseId, k) => ({ id: 30 + k, acquire: { name: `batch-${k}`, leaseId, wait: true }, timeoutMs: 10_000 })) });
    const acquired = await s.answered(ids(30, 5));
    for (const [k, leaseId] of leases.entries()) {
      expect(acquired.get(30 + k)!.acquire, `batch-${k}`).to.include({ acquired: true, holderLeaseId: leaseId });
      expect((await f.leader.inspect(`batch-${k}`)).holderLeaseId).to.equal(leaseId);
    }
    // A retry of a batched grant with the same request id is the same grant (dedup as for single requests).
    s.call.write({ batch: [{ id: 40, grant: { ttlMs: TTL_MS, requestId: 'batch-grant-21' } }, invalid(41)] });
    expect((await s.answered([40, 41])).get(40)!.grant!.leaseId).to.equal(leases[0]);
    // Half-closed: everything in flight is answered (batched answers are sent before the stream finishes), then OK.
    s.call.write({ batch: leases.map((leaseId, k) => ({ id: 50 + k, revoke: { leaseId } })) });
    s.call.end();
    expect((await s.ended).code).to.equal(grpc.status.OK);
    const revoked = new Map(s.answers().map((a) => [a.id, a]));
    for (const id of ids(50, 5)) expect(revoked.get(id)?.result, `id ${id}`).to.equal('revoke');
  });

  it('sends one message per answer to a client that did not ask, batched requests or not', async () => {
    const s = raw(false);
    s.call.write({ batch: ids(1, 20).map(invalid) });
    await s.answered(ids(1, 20));
    expect(s.messages).to.have.length(20);
    for (const m of s.messages) expect(m.batch).to.have.length(0);
    expect(s.messages.map((m) => m.id)).to.deep.equal(ids(1, 20));
  });

  it('answers a nested batch INVALID_ARGUMENT and serves the rest of its batch', async () => {
    const s = raw(true);
    s.call.write({ batch: [invalid(1), { id: 2, batch: [invalid(3)] }, { id: 4, inspect: { name: 'batch-none' } }] });
    const got = await s.answered([1, 2, 4]);
    expect(got.get(2)!.error).to.include({ code: grpc.status.INVALID_ARGUMENT });
    expect(got.get(2)!.error!.message).to.match(/may not hold a batch/);
    expect(got.get(4)!.inspect).to.include({ held: false });
    expect(got.has(3)).to.equal(false);
  });

  const malformed: Array<[string, SessionRequest]> = [
    [`more than ${MAX_BATCH} requests`, { batch: ids(1, MAX_BATCH + 1).map(invalid) }],
    ['a batch with an id', { id: 5, batch: [invalid(1)] }],
    ['a batch with an operation', { inspect: { name: 'x' }, batch: [invalid(1)] }],
  ];
  for (const [what, req] of malformed) {
    it(`ends the stream INVALID_ARGUMENT for ${what}, having served nothing of it`, async () => {
      const s = raw(true);
      s.call.write(req);
      const st = await s.ended;
      expect(st.code).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(s.answers()).to.have.length(0);
    });
  }

  it('ends the stream INVALID_ARGUMENT for an id in flight reused inside a batch', async () => {
    const s = raw(true);
    const { leaseId: a } = await f.leader.grant(TTL_MS);
    const { leaseId: b } = await f.leader.grant(TTL_MS);
    await f.leader.acquire('batch-dup', a);
    s.call.write({
      batch: [
        { id: 9, acquire: { name: 'batch-dup', leaseId: b, wait: true }, timeoutMs: 30_000 },
        { id: 9, inspect: { name: 'batch-dup' } },
      ],
    });
    expect((await s.ended).code).to.equal(grpc.status.INVALID_ARGUMENT);
    await f.leader.revoke(a);
    await f.leader.revoke(b);
  });
});

describe('AnswerBatcher', () => {
  const small = (id: number): SessionResponse => ({ id, release: { released: true } });
  const large = (id: number): SessionResponse => ({ id, fenceRead: { value: Buffer.alloc(60_000), fencingToken: 1 } });
  const nextTurn = () => new Promise((r) => setImmediate(r));
  const make = () => {
    const sent: SessionResponse[] = [];
    let settled = 0;
    const batcher = new AnswerBatcher((r) => sent.push(r));
    const b = { add: (r: SessionResponse) => batcher.add(r, () => settled++) };
    return { b, sent, settled: () => settled };
  };

  it('sends the answers of one turn at its end as one batch, and settles them only then', async () => {
    const { b, sent, settled } = make();
    for (const id of [3, 1, 2]) b.add(small(id));
    expect(sent).to.have.length(0);
    expect(settled()).to.equal(0);
    await nextTurn();
    expect(sent).to.deep.equal([{ id: 0, batch: [small(3), small(1), small(2)] }]);
    expect(settled()).to.equal(3);
    b.add(small(4));
    await nextTurn();
    expect(sent[1]).to.deep.equal(small(4)); // a lone answer goes as itself
    expect(settled()).to.equal(4);
  });

  it('sends a possibly large answer alone, after what was queued before it', async () => {
    const { b, sent, settled } = make();
    b.add(small(1));
    b.add(small(2));
    b.add(large(3));
    expect(sent).to.deep.equal([{ id: 0, batch: [small(1), small(2)] }, large(3)]);
    expect(settled()).to.equal(3);
    await nextTurn();
    expect(sent).to.have.length(2);
  });

  it(`sends a full message of ${MAX_ANSWERS_PER_MESSAGE} at once, without waiting for the turn to end`, async () => {
    const { b, sent } = make();
    for (let id = 1; id <= MAX_ANSWERS_PER_MESSAGE + 1; id++) b.add(small(id));
    expect(sent).to.have.length(1);
    expect(sent[0].batch).to.have.length(MAX_ANSWERS_PER_MESSAGE);
    await nextTurn();
    expect(sent[1]).to.deep.equal(small(MAX_ANSWERS_PER_MESSAGE + 1));
  });
});
