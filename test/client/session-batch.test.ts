// SessionClient and Session batches, against a real gRPC server with a scripted Session.Open: the
// client asks for batched answers (lockd-session-batch on Open), decodes a message carrying several
// answers (each to its own operation, whatever their order), sends the operations of one turn in
// one message once the server announced batching, and one message per operation to a server that
// did not (an older lockd).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { SessionRequest__Output } from '../../src/proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse } from '../../src/proto/gen/lockd/v1/SessionResponse.js';
import { SessionClient } from '../../src/client/session-client.js';
import type { LockdError } from '../../src/client/errors.js';

const HEADER = 'lockd-session-batch';

interface Fake {
  readonly address: string;
  /** Every message the server read, as it came. */
  readonly received: SessionRequest__Output[];
  /** The Open call's metadata. */
  opened: grpc.Metadata | undefined;
  stop(): void;
}

/**
 * A leader that announces batching iff `announce`, and answers the requests it reads: `answer`
 * gets the requests of one message (a batch unpacked) and returns the messages to send.
 */
async function fakeSession(announce: boolean, answer: (reqs: SessionRequest__Output[]) => SessionResponse[]): Promise<Fake> {
  const server = new grpc.Server();
  const v1 = lockdProto.lockd.v1;
  const fake: Fake = { address: '', received: [], opened: undefined, stop: () => server.forceShutdown() };
  server.addService(v1.Cluster.service, {
    Status: (_c: unknown, cb: grpc.sendUnaryData<unknown>) => cb(null, { nodeId: 'fake', role: 'leader', leaderId: 'fake' }),
  });
  server.addService(v1.Session.service, {
    Open: (call: grpc.ServerDuplexStream<SessionRequest__Output, SessionResponse>) => {
      fake.opened = call.metadata;
      if (announce) {
        const md = new grpc.Metadata();
        md.set(HEADER, '1');
        call.sendMetadata(md);
      }
      call.on('data', (m: SessionRequest__Output) => {
        fake.received.push(m);
        for (const out of answer(m.batch.length > 0 ? m.batch : [m])) call.write(out);
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  return Object.assign(fake, { address: `127.0.0.1:${port}` });
}

/** Answers every inspect by naming its lock in holder_lease_id's place: inspect('n7') → holderLeaseId 7. */
const inspected = (r: SessionRequest__Output): SessionResponse =>
  r.inspect
    ? { id: r.id, inspect: { held: true, holderLeaseId: Number(r.inspect.name.slice(1)) } }
    : { id: r.id, error: { code: grpc.status.UNIMPLEMENTED, message: 'fake' } };

describe('SessionClient: batches', function () {
  this.timeout(20_000);
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanup.splice(0)) c();
  });
  const client = (f: Fake) => {
    const c = new SessionClient({ endpoints: [f.address], timeoutMs: 5000 });
    cleanup.push(() => c.close());
    return c;
  };
  const names = Array.from({ length: 10 }, (_, k) => `n${k + 1}`);

  it('decodes a message carrying several answers, each to its own operation', async () => {
    // All answers of a message in one batch, in reverse order, one of them an error.
    const f = await fakeSession(true, (reqs) => [{ id: 0, batch: reqs.map(inspected).reverse() }]);
    cleanup.push(() => f.stop());
    const c = client(f);
    await c.inspect('n0'); // opens the stream; the server's headers have arrived with this answer
    const results = await Promise.all(names.map((n) => c.inspect(n)));
    expect(results.map((r) => r.holderLeaseId)).to.deep.equal(names.map((n) => Number(n.slice(1))));
    expect(f.opened!.get(HEADER)).to.deep.equal(['1']);
    const failed = await Promise.all([c.inspect('n42'), c.timeToLive(5).catch((e: LockdError) => e)]);
    expect(failed[0].holderLeaseId).to.equal(42);
    expect((failed[1] as LockdError).codeName).to.equal('UNIMPLEMENTED');
    expect(c.inFlight).to.equal(0);
  });

  it('sends the operations of one turn in one message to a server that announced batching', async () => {
    const f = await fakeSession(true, (reqs) => reqs.map(inspected));
    cleanup.push(() => f.stop());
    const c = client(f);
    await c.inspect('n0');
    const before = f.received.length;
    const results = await Promise.all(names.map((n) => c.inspect(n)));
    expect(results.map((r) => r.holderLeaseId)).to.deep.equal(names.map((n) => Number(n.slice(1))));
    const sent = f.received.slice(before);
    expect(sent).to.have.length(1);
    expect(sent[0]).to.include({ id: 0 });
    expect(sent[0].op).to.equal(undefined);
    expect(sent[0].batch.map((r) => r.inspect!.name)).to.deep.equal(names);
  });

  it('sends one message per operation to a server that did not announce batching', async () => {
    const f = await fakeSession(false, (reqs) => reqs.map(inspected));
    cleanup.push(() => f.stop());
    const c = client(f);
    await c.inspect('n0');
    const before = f.received.length;
    await Promise.all(names.map((n) => c.inspect(n)));
    const sent = f.received.slice(before);
    expect(sent).to.have.length(names.length);
    for (const m of sent) expect(m.batch).to.have.length(0);
    expect(sent.map((m) => m.inspect!.name)).to.deep.equal(names);
  });

  it('never sends more than 256 operations in one message', async () => {
    const f = await fakeSession(true, (reqs) => reqs.map(inspected));
    cleanup.push(() => f.stop());
    const c = client(f);
    await c.inspect('n0');
    const before = f.received.length;
    const many = Array.from({ length: 600 }, (_, k) => `n${k}`);
    const results = await Promise.all(many.map((n) => c.inspect(n)));
    expect(results.map((r) => r.holderLeaseId)).to.deep.equal(many.map((_, k) => k));
    const sizes = f.received.slice(before).map((m) => m.batch.length || 1);
    expect(sizes.reduce((a, b) => a + b, 0)).to.equal(600);
    expect(Math.max(...sizes)).to.equal(256);
  });
});
