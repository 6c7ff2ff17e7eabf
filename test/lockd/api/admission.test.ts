// Admission control of the client port on a real node (in this process, real sockets): small
// limits, more connections, streams, unary calls and unread bytes than they allow from test
// clients, and what must hold — RESOURCE_EXHAUSTED naming the limit and its value (or the
// connection closed), well-behaved calls served meanwhile, the refusal counters on /metrics moved,
// a reader that never reads ended at its cap with the node's buffered bytes bounded, and requests
// over the node's inbound byte budget refused while it holds others.
import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { LockEvent__Output } from '../../../src/proto/gen/lockd/v1/LockEvent.js';
import type { AcquireResponse__Output } from '../../../src/proto/gen/lockd/v1/AcquireResponse.js';
import type { SessionRequest } from '../../../src/proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse__Output } from '../../../src/proto/gen/lockd/v1/SessionResponse.js';
import type { LimitUse } from '../../../src/lockd/api/admission/limit-use.js';
import { messageBytes } from '../../../src/lockd/api/admission/message-size.js';
import { LockApi } from '../../support/lock-api-client.js';
import { waitFor } from '../../support/process-cluster.js';
import { startInProcessNode, type InProcessNode } from '../../support/in-process-node.js';
import { nonReadingSession, rawStream } from '../../support/raw-stream.js';

const insecure = grpc.credentials.createInsecure();
/** A client on a connection of its own (grpc-js shares one between clients of the same target by default). */
const OWN_CONNECTION = { 'grpc.use_local_subchannel_pool': 1 };
const KiB = 1024;

const LIMITS = {
  'max-connections': 8,
  'max-connections-per-address': 4,
  'max-streams-per-connection': 4,
  'max-streams-per-principal': 6,
  'max-unary-per-principal': 3,
  'max-outbound-bytes': 640 * KiB,
  'max-stream-outbound-bytes': 256 * KiB,
  'max-inbound-bytes': 160 * KiB,
};
/** A fenced value of this size makes each Fence.Read answer ~60 KB. */
const VALUE_BYTES = 60_000;
/** What the budget charges for one Session answer carrying it. */
const ANSWER_BYTES = messageBytes({ id: 1, fenceRead: { value: Buffer.alloc(VALUE_BYTES), fencingToken: 1 } });

describe('admission control of the client port (a real node, small limits)', function () {
  this.timeout(60_000);
  let n: InProcessNode;
  let api: LockApi;
  let token = 0;
  const cleanup: Array<() => void> = [];

  const use = (name: string): LimitUse => {
    const l = n.admission.limits.find((x) => x.name === name);
    if (!l) throw new Error(`no limit ${name}`);
    return l;
  };
  const refused = (name: string) => use(name).refused;
  /** A raw TCP connection from `localAddress`; resolves once connected. */
  const tcp = (localAddress: string) =>
    new Promise<Socket>((resolve, reject) => {
      const [host, port] = n.address.split(':');
      const s = connect({ host, port: Number(port), localAddress }, () => resolve(s));
      s.on('error', reject);
      cleanup.push(() => s.destroy());
    });
  const metricsText = async () => (await fetch(`http://127.0.0.1:${n.httpPort}/metrics`)).text();
  /** The max-inbound-bytes use /metrics shows. */
  const inboundGauge = async () => Number(/lockd_admission_in_use\{[^}]*limit="max-inbound-bytes"[^}]*\} (\d+)\n/.exec(await metricsText())?.[1]);
  const closed = (s: Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

  before(async () => {
    n = await startInProcessNode(Object.entries(LIMITS).flatMap(([k, v]) => [`--${k}`, String(v)]));
    api = new LockApi(n.address);
    const { leaseId } = await api.grant(60_000);
    token = Number((await api.acquire('fenced', leaseId)).fencingToken);
    await api.fenceWrite('big', Buffer.alloc(VALUE_BYTES, 7), token);
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0)) c();
    // Everything the test opened is gone before the next one counts.
    // ...and the requests it sent have left the inbound budget (credited on every path).
    await waitFor('streams, calls and requests of the test to end', () =>
      use('max-streams-per-principal').used() === 0 && use('max-unary-per-principal').used() === 0 && n.admission.inbound.bytes === 0 ? true : undefined,
    );
    // (Connections from 127.0.0.1 are not awaited: a closed grpc-js client's may linger a while; the connection tests count from what is open.)
    await waitFor('connections of the test to close', () =>
      ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.9', '127.0.1.1', '127.0.1.2', '127.0.1.3', '127.0.1.4', '127.0.1.9'].every(
        (a) => n.admission.connections.from(a) === 0,
      )
        ? true
        : undefined,
    );
  });
  after(async () => {
    api?.close();
    await n?.stop();
  });

  it('closes a connection over max-connections-per-address at once, keeps the others, and serves again once one closes', async () => {
    await api.grant(1000); // the API client's connection is open: one from 127.0.0.1
    const before = refused('max-connections-per-address');
    const open: Socket[] = [];
    const already = n.admission.connections.from('127.0.0.1'); // the API client's, at least
    for (let k = already; k < LIMITS['max-connections-per-address']; k++) open.push(await tcp('127.0.0.1'));
    await waitFor('the connections counted', () => (n.admission.connections.from('127.0.0.1') === LIMITS['max-connections-per-address'] ? true : undefined));
    const over = await tcp('127.0.0.1');
    await closed(over); // closed by the node, before a byte was read
    expect(refused('max-connections-per-address')).to.equal(before + 1);
    expect(
      open.every((s) => !s.destroyed),
      'the admitted connections stay open',
    ).to.equal(true);
    // A new client from that address cannot connect now; one from another address can.
    const other = new lockdProto.lockd.v1.Lease(n.address, insecure, OWN_CONNECTION);
    cleanup.push(() => other.close());
    const err = await new Promise<grpc.ServiceError | null>((resolve) =>
      other.TimeToLive({ leaseId: 1 }, new grpc.Metadata(), { deadline: Date.now() + 2000 }, (e) => resolve(e)),
    );
    expect(err?.code, 'a new connection from a full address').to.equal(grpc.status.UNAVAILABLE);
    expect((await api.grant(1000)).leaseId, 'the open client is served').to.be.above(0);
    open.pop()!.destroy();
    await waitFor('the node to see it close', () => (n.admission.connections.from('127.0.0.1') < LIMITS['max-connections-per-address'] ? true : undefined));
    const again = new lockdProto.lockd.v1.Lease(n.address, insecure, OWN_CONNECTION);
    cleanup.push(() => again.close());
    const res = await new Promise<grpc.ServiceError | null>((resolve) => again.TimeToLive({ leaseId: 1 }, (e) => resolve(e)));
    expect(res?.code, 'served once a connection closed (lease 1 is long gone)').to.equal(grpc.status.NOT_FOUND);
  });

  it('closes a connection over max-connections in all, whatever its address', async () => {
    await api.grant(1000);
    const before = refused('max-connections');
    const open: Socket[] = [];
    const counted = (k: number) => waitFor(`${k} connections counted`, () => (use('max-connections').used() === k ? true : undefined));
    // Up to the total with connections from addresses none of which is over its own limit.
    let from = 2;
    for (let k = use('max-connections').used(); k < LIMITS['max-connections']; k++) {
      if (n.admission.connections.from(`127.0.0.${from}`) === LIMITS['max-connections-per-address'] - 1) from++;
      open.push(await tcp(`127.0.0.${from}`));
      await counted(k + 1);
    }
    const over = await tcp('127.0.0.9');
    await closed(over);
    expect(refused('max-connections')).to.equal(before + 1);
    expect(open.every((s) => !s.destroyed)).to.equal(true);
    expect((await api.grant(1000)).leaseId).to.be.above(0);
  });

  it('refuses a stream over max-streams-per-principal with RESOURCE_EXHAUSTED naming it, and opens it once one ends', async () => {
    const before = refused('max-streams-per-principal');
    // Over two connections, so that no connection's own limit (4) is what refuses.
    const locks = [0, 1].map(() => new lockdProto.lockd.v1.Lock(n.address, insecure, OWN_CONNECTION));
    cleanup.push(() => locks.forEach((c) => c.close()));
    const observe = (lock: (typeof locks)[number], name: string) =>
      new Promise<grpc.ClientReadableStream<LockEvent__Output>>((resolve, reject) => {
        const s = lock.Observe({ name });
        s.once('metadata', () => resolve(s));
        s.once('error', reject);
        cleanup.push(() => s.cancel());
      });
    const streams = [];
    for (let k = 0; k < LIMITS['max-streams-per-principal']; k++) streams.push(await observe(locks[k % 2], `o${k}`));
    const err = await observe(locks[0], 'one-too-many').then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(err?.details).to.contain(`max-streams-per-principal limit of ${LIMITS['max-streams-per-principal']} reached`);
    expect(refused('max-streams-per-principal')).to.equal(before + 1);
    expect((await api.grant(1000)).leaseId, 'a unary call of the same principal is served').to.be.above(0);
    streams[0].cancel();
    await waitFor('the ended stream uncounted', () => (use('max-streams-per-principal').used() < LIMITS['max-streams-per-principal'] ? true : undefined));
    await observe(locks[0], 'now-there-is-room');
  });

  it(`holds at most max-streams-per-connection streams on a connection (HTTP/2): a further one waits for one to end`, async () => {
    const lock = new lockdProto.lockd.v1.Lock(n.address, insecure, OWN_CONNECTION);
    cleanup.push(() => lock.close());
    const open = (name: string) => {
      const s = lock.Observe({ name });
      s.on('error', () => {});
      cleanup.push(() => s.cancel());
      return { s, served: new Promise<void>((resolve) => s.once('metadata', () => resolve())) };
    };
    const first = Array.from({ length: LIMITS['max-streams-per-connection'] }, (_, k) => open(`c${k}`));
    await Promise.all(first.map((x) => x.served));
    expect(use('max-streams-per-connection').used()).to.equal(LIMITS['max-streams-per-connection']);
    let extraServed = false;
    const extra = open('c-extra');
    void extra.served.then(() => (extraServed = true));
    for (let k = 0; k < 5; k++) await api.grant(1000); // round trips on another connection meanwhile
    expect(extraServed, 'a stream over the limit was served').to.equal(false);
    expect(use('max-streams-per-connection').used()).to.equal(LIMITS['max-streams-per-connection']);
    first[0].s.cancel();
    await extra.served;
  });

  it('refuses a unary call over max-unary-per-principal (waiting Acquires count) with RESOURCE_EXHAUSTED naming it', async () => {
    const before = refused('max-unary-per-principal');
    const { leaseId: holder } = await api.grant(60_000);
    await api.acquire('contended', holder);
    const waiters: Array<{ result: Promise<AcquireResponse__Output>; cancel(): void }> = [];
    for (let k = 0; k < LIMITS['max-unary-per-principal']; k++) {
      const { leaseId } = await api.grant(60_000);
      waiters.push(api.acquireCancellable('contended', leaseId));
      await waitFor('the waiter counted', () => (use('max-unary-per-principal').used() === k + 1 ? true : undefined));
    }
    for (const w of waiters) {
      w.result.catch(() => {});
      cleanup.push(() => w.cancel());
    }
    const err = await api.grant(1000).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(err?.details).to.contain(`max-unary-per-principal limit of ${LIMITS['max-unary-per-principal']} reached`);
    expect(refused('max-unary-per-principal')).to.equal(before + 1);
    waiters[0].cancel();
    await waitFor('the cancelled wait uncounted', () => (use('max-unary-per-principal').used() < LIMITS['max-unary-per-principal'] ? true : undefined));
    expect((await api.grant(1000)).leaseId).to.be.above(0);
  });

  it('ends a Session whose reader never reads at max-stream-outbound-bytes: its connection closes, the node keeps nothing', async () => {
    const before = refused('max-stream-outbound-bytes');
    const session = nonReadingSession(n.address, '127.0.1.9');
    cleanup.push(() => session.destroy());
    const s = rawStream(session, '/lockd.v1.Session/Open');
    const serialize = lockdProto.lockd.v1.Session.service.Open.requestSerialize;
    // 64 reads of a ~60 KB value: ~3.8 MB of answers, none of which the reader takes.
    for (let id = 1; id <= 64; id++) s.send(serialize({ id, fenceRead: { key: 'big' } }));
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, n.admission.outbound.bytes)), 5);
    try {
      await waitFor('the stream ended at its cap', () => (refused('max-stream-outbound-bytes') > before ? true : undefined));
      // Its status cannot reach a reader that reads nothing: the connection goes (stuck-streams.ts).
      await new Promise<void>((resolve) => (session.closed ? resolve() : session.once('close', () => resolve())));
    } finally {
      clearInterval(sample);
    }
    expect(n.admission.outbound.bytes, 'bytes the node holds for readers afterwards').to.equal(0);
    expect(most, 'the most the node held for this reader').to.be.at.most(LIMITS['max-stream-outbound-bytes'] + VALUE_BYTES + 200);
    expect((await api.fenceRead('big')).value.length, 'well-behaved calls are served').to.equal(VALUE_BYTES);
  });

  it('tells a reader that reads again RESOURCE_EXHAUSTED naming max-stream-outbound-bytes', async () => {
    const before = refused('max-stream-outbound-bytes');
    const client = new lockdProto.lockd.v1.Session(n.address, insecure, OWN_CONNECTION);
    cleanup.push(() => client.close());
    const call = client.Open();
    cleanup.push(() => call.cancel());
    const ended = new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
    call.on('data', () => {});
    call.pause();
    for (let id = 1; id <= 200; id++) call.write({ id, fenceRead: { key: 'big' } });
    await waitFor('the stream ended at its cap', () => (refused('max-stream-outbound-bytes') > before ? true : undefined));
    call.resume(); // within the grace the node gives a stuck stream before closing its connection
    const err = await ended;
    expect(err.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).to.contain(`max-stream-outbound-bytes limit of ${LIMITS['max-stream-outbound-bytes']} reached`);
  });

  it('ends the streams holding the most when the node is over max-outbound-bytes, and only as many as it takes', async () => {
    const before = { total: refused('max-outbound-bytes'), stream: refused('max-stream-outbound-bytes') };
    const serialize = lockdProto.lockd.v1.Session.service.Open.requestSerialize;
    // Four readers, each within its own cap (4 answers ≈ 240 KB < 256 KiB), together over the 640 KiB budget.
    const readers = Array.from({ length: 4 }, (_, k) => {
      const session = nonReadingSession(n.address, `127.0.1.${k + 1}`); // each from its own address: none over max-connections-per-address
      cleanup.push(() => session.destroy());
      const s = rawStream(session, '/lockd.v1.Session/Open');
      return { session, s };
    });
    let most = 0;
    const sample = setInterval(() => (most = Math.max(most, n.admission.outbound.bytes)), 2);
    try {
      for (const { s } of readers) for (let id = 1; id <= 4; id++) s.send(serialize({ id, fenceRead: { key: 'big' } }));
      // 16 answers of A bytes, at most 10 within the budget: whatever their order, two readers are
      // ended (each time the one holding the most) and two keep their 4 answers each.
      await waitFor('two readers ended by the budget, two holding all their answers', () =>
        refused('max-outbound-bytes') === before.total + 2 && n.admission.outbound.bytes === 8 * ANSWER_BYTES ? true : undefined,
      );
    } finally {
      clearInterval(sample);
    }
    expect(refused('max-stream-outbound-bytes'), 'no reader passed its own cap').to.equal(before.stream);
    expect(n.admission.outbound.bytes, 'held afterwards').to.be.at.most(LIMITS['max-outbound-bytes']);
    expect(most, 'the most held at any sample').to.be.at.most(LIMITS['max-outbound-bytes'] + VALUE_BYTES + 200);
    expect((await api.fenceRead('big')).value.length).to.equal(VALUE_BYTES);
    for (const r of readers) r.session.destroy();
    await waitFor('everything released once the readers are gone', () => (n.admission.outbound.bytes === 0 ? true : undefined));
  });

  it('refuses requests over max-inbound-bytes with RESOURCE_EXHAUSTED naming it while others are held, serves small ones, and holds nothing after', async () => {
    const limit = LIMITS['max-inbound-bytes'];
    const before = refused('max-inbound-bytes');
    // A unary Acquire that waits holds its request's bytes until it is answered.
    const name = `inbound-held-${'w'.repeat(480)}`;
    const { leaseId: holder } = await api.grant(60_000);
    const held = await api.acquire(name, holder);
    const { leaseId: waiter } = await api.grant(60_000);
    const waiting = api.acquire(name, waiter, { wait: true });
    await waitFor('the Acquire waits', async () => ((await api.inspect(name)).waitingLeaseIds.map(Number).includes(waiter) ? true : undefined));
    const holding = n.admission.inbound.bytes;
    expect(holding, "the waiting Acquire's bytes").to.be.above(480).and.below(2000);
    // A write that fits the budget alone but not beside the waiting Acquire (its other fields cost < 300 bytes).
    const value = Buffer.alloc(limit - Math.floor(holding / 2) - 300, 9);
    const client = new lockdProto.lockd.v1.Session(n.address, insecure, OWN_CONNECTION);
    cleanup.push(() => client.close());
    const call = client.Open();
    cleanup.push(() => call.cancel());
    call.on('error', () => {});
    const answers = new Map<number, SessionResponse__Output>();
    call.on('data', (r: SessionResponse__Output) => {
      for (const a of r.batch.length > 0 ? r.batch : [r]) answers.set(a.id, a);
    });
    const answer = (id: number) => waitFor(`the answer to ${id}`, () => answers.get(id));
    // Fenced values are at most 64 KiB each: a message of three thirds.
    const third = value.subarray(0, Math.floor(value.length / 3));
    const write = (id: number, v: Buffer): SessionRequest => ({ id, fenceWrite: { key: 'inbound', value: v, fencingToken: Number(held.fencingToken) } });
    // On the session: each operation of the message is answered so, none is run, and the session goes on.
    call.write({ batch: [write(1, third), write(2, third), write(3, third)] });
    for (const id of [1, 2, 3]) {
      const a = await answer(id);
      expect(a.error?.code, `operation ${id}`).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(a.error?.message).to.contain(`max-inbound-bytes limit of ${limit} reached`);
    }
    // Unary: the same.
    const err = await api.fenceWrite('inbound-unary', value, Number(held.fencingToken)).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(err?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
    expect(err?.details).to.contain(`max-inbound-bytes limit of ${limit} reached`);
    expect((await api.fenceRead('inbound-unary')).value.length, 'the refused writes changed nothing').to.equal(0);
    expect((await api.fenceRead('inbound')).value.length).to.equal(0);
    expect(refused('max-inbound-bytes'), 'one refusal per request message').to.equal(before + 2);
    // Small calls are served meanwhile, unary and on the session; the session's messages hold nothing once handled.
    expect((await api.grant(1000)).leaseId).to.be.above(0);
    call.write({ id: 6, inspect: { name } });
    expect((await answer(6)).inspect?.holders.map((h) => Number(h.leaseId))).to.deep.equal([holder]);
    expect(n.admission.inbound.bytes, 'what the node holds: the waiting Acquire only').to.equal(holding);
    expect(await inboundGauge()).to.equal(holding);
    // The Acquire is granted: its bytes leave the budget, and the large write fits, on the session and unary.
    await api.release(name, Number(held.fencingToken), { leaseId: holder });
    const granted = await waiting;
    expect(granted.acquired).to.equal(true);
    await waitFor('the granted call credited', () => (n.admission.inbound.bytes === 0 ? true : undefined));
    const token = Number(granted.fencingToken);
    call.write({ batch: [7, 8, 9].map((id) => ({ id, fenceWrite: { key: 'inbound', value: third, fencingToken: token } })) });
    for (const id of [7, 8, 9]) {
      const a = await answer(id);
      expect(a.result, JSON.stringify(a.error)).to.equal('fenceWrite');
    }
    // The unary write now passes the budget and meets the next check: a fenced value is at most 64 KiB.
    const past = await api.fenceWrite('inbound-unary', value, token).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(past?.code, past?.details).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(n.admission.inbound.bytes).to.equal(0);
    expect(await inboundGauge()).to.equal(0);
  });

  it('a message refused before decoding, when the budget is full, ends its session and not the node', async () => {
    const limit = LIMITS['max-inbound-bytes'];
    const name = `inbound-full-${'w'.repeat(480)}`;
    const { leaseId: holder } = await api.grant(60_000);
    const held = await api.acquire(name, holder);
    const { leaseId: waiter } = await api.grant(60_000);
    const waiting = api.acquire(name, waiter, { wait: true }).catch(() => undefined);
    await waitFor('the Acquire waits', async () => ((await api.inspect(name)).waitingLeaseIds.map(Number).includes(waiter) ? true : undefined));
    // Fill the budget to within a few bytes with the node's own budget (the test's hand on it), so
    // that any message is refused: the one refused before decoding too (257 batch elements).
    const fill = n.admission.inbound.charge(limit - n.admission.inbound.bytes - 8);
    if ('refused' in fill) throw new Error(fill.refused.message);
    try {
      const client = new lockdProto.lockd.v1.Session(n.address, insecure, OWN_CONNECTION);
      cleanup.push(() => client.close());
      const call = client.Open();
      cleanup.push(() => call.cancel());
      const ended = new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
      call.on('data', () => {});
      call.write({ batch: Array.from({ length: 257 }, (_, k) => ({ id: k + 1, inspect: { name } })) });
      const e = await ended;
      expect(e.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(e.details).to.contain('max-inbound-bytes');
    } finally {
      fill.credit();
    }
    // The node still serves.
    expect((await api.inspect(name)).holders.map((h) => Number(h.leaseId))).to.deep.equal([holder]);
    await api.release(name, Number(held.fencingToken), { leaseId: holder });
    await waiting;
  });

  it('shows every limit on /metrics: its value, its use and its refusals', async () => {
    const text = await metricsText();
    for (const [name, value] of Object.entries(LIMITS)) {
      expect(text).to.match(new RegExp(`lockd_admission_limit\\{[^}]*limit="${name}"[^}]*\\} ${value}\\n`));
      expect(text).to.match(new RegExp(`lockd_admission_in_use\\{[^}]*limit="${name}"[^}]*\\} \\d+\\n`));
      const m = new RegExp(`lockd_admission_refused_total\\{[^}]*limit="${name}"[^}]*\\} (\\d+)\\n`).exec(text);
      expect(m, `refusals of ${name}`).to.not.equal(null);
      expect(Number(m![1]), `refusals of ${name} counted`).to.equal(refused(name));
    }
    // Every limit but the per-connection one (HTTP/2 makes a client wait, it refuses nothing) refused something above.
    for (const name of Object.keys(LIMITS).filter((k) => k !== 'max-streams-per-connection')) expect(refused(name), name).to.be.above(0);
  });
});
