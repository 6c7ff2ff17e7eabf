// Session batches under attack (from a hostile review of papi): what a batching client and a hostile one can
// do to a real leader, and what the node's own Session.Open decoder does before any check runs.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { SessionClient } from '../../../src/client/session-client.js';
import { MAX_FENCE_VALUE_BYTES } from '../../../src/lockd/state-machine/limits.js';
import { readFileSync } from 'node:fs';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import type { SessionRequest } from '../../../src/proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse__Output } from '../../../src/proto/gen/lockd/v1/SessionResponse.js';
import { BATCH_HEADER } from '../../../src/lockd/api/session-batch.js';
import { MAX_IN_FLIGHT } from '../../../src/lockd/api/session-service.js';
import { ApiFixture, waitFor } from './api-fixture.js';

/** A process's CPU time so far (utime + stime, ms): load-insensitive, unlike wall time. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
}

/** `n` empty SessionRequest.batch elements on the wire (field 30, length-delimited: F2 01 00 each). */
function emptyElements(n: number): Buffer {
  const buf = Buffer.alloc(n * 3);
  for (let i = 0; i < n; i++) buf.set([0xf2, 0x01, 0x00], i * 3);
  return buf;
}

function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.from(out);
}

describe('lock API: Session batches against hostile and large inputs', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const closers: Array<() => void> = [];
  before(async () => {
    f = await ApiFixture.start();
  });
  afterEach(() => {
    for (const c of closers.splice(0)) c();
  });
  after(async () => {
    await f?.stop();
  });

  it("refuses a Session message of 1.3 million empty batch elements without spending the leader's CPU on decoding them", async () => {
    const leader = f.cluster.node(await f.refreshLeader()); // a stall in an earlier test may have moved it
    const pid = leader.proc!.pid!;
    const raw = new grpc.Client(leader.address, grpc.credentials.createInsecure());
    closers.push(() => raw.close());
    const call = raw.makeBidiStreamRequest(
      '/lockd.v1.Session/Open',
      (b: Buffer) => b,
      (b: Buffer) => b,
      new grpc.Metadata(),
    );
    call.on('data', () => {});
    call.on('error', () => {}); // the status carries it
    const ended = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
    const before = cpuMs(pid);
    call.write(emptyElements(1_300_000));
    const st = await ended;
    const spent = cpuMs(pid) - before;
    expect(st.code, st.details).to.be.oneOf([grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED]);
    // Receiving 3.9 MB costs the leader a few ms; on papi decoding the 1.3M elements (and collecting
    // the ~280 MB they take) costs it ~1 s of CPU, in one synchronous call on its event loop, all
    // before session-service.ts counts them. Measured as the leader's own CPU time, not wall time.
    expect(spent, 'leader CPU ms for one refused message').to.be.below(300);
  });

  it("refuses a batch element holding 1.3 million nested elements without spending the leader's CPU on decoding them", async () => {
    const leader = f.cluster.node(await f.refreshLeader()); // a stall in an earlier test may have moved it
    const pid = leader.proc!.pid!;
    const raw = new grpc.Client(leader.address, grpc.credentials.createInsecure());
    closers.push(() => raw.close());
    const call = raw.makeBidiStreamRequest(
      '/lockd.v1.Session/Open',
      (b: Buffer) => b,
      (b: Buffer) => b,
      new grpc.Metadata(),
    );
    call.on('error', () => {}); // the status carries it
    // Either the element is answered (INVALID_ARGUMENT: "may not hold a batch") or the stream ends
    // INVALID_ARGUMENT / RESOURCE_EXHAUSTED (not UNAVAILABLE: this must reach the leader).
    const settled = new Promise<string>((resolve) => {
      call.on('data', () => resolve('answered'));
      call.on('status', (st: grpc.StatusObject) => resolve(grpc.status[st.code]));
    });
    // { batch: [ { id: 1, batch: [1.3M empty elements] } ] }: one top-level element, so the
    // 256-element check passes; the element is refused only after its 1.3M children are decoded,
    // and the stream stays open for the next such message.
    const element = Buffer.concat([Buffer.from([0x08, 0x01]), emptyElements(1_300_000)]);
    const before = cpuMs(pid);
    call.write(Buffer.concat([Buffer.from([0xf2, 0x01]), varint(element.length), element]));
    const outcome = await settled;
    const spent = cpuMs(pid) - before;
    expect(outcome).to.be.oneOf(['answered', 'INVALID_ARGUMENT', 'RESOURCE_EXHAUSTED']);
    expect(spent, 'leader CPU ms for one refused element').to.be.below(300);
  });

  const refusals: Array<[string, Buffer, RegExp]> = [
    ['1.3 million empty elements', emptyElements(1_300_000), /at most 256 requests/],
    ['bytes that do not decode', Buffer.from([0xf2, 0x01, 0x05, 0x00]), /^malformed session request: /],
    ['a length-delimited id hiding 300 elements', Buffer.concat([Buffer.from([0x0a, 0x84, 0x07]), emptyElements(300)]), /field 1 has wire type 2/],
    [
      "batches nested 120 deep (past protobufjs' limit: INTERNAL before)",
      Array.from({ length: 120 }).reduce<Buffer>((b) => Buffer.concat([Buffer.from([0xf2, 0x01]), varint(b.length), b]), Buffer.alloc(0)),
      /nest at most 8 deep/,
    ],
  ];
  for (const [what, bytes, reason] of refusals) {
    it(`ends the stream INVALID_ARGUMENT with the reason for ${what}`, async () => {
      const raw = new grpc.Client(f.cluster.node(await f.refreshLeader()).address, grpc.credentials.createInsecure());
      closers.push(() => raw.close());
      const call = raw.makeBidiStreamRequest(
        '/lockd.v1.Session/Open',
        (b: Buffer) => b,
        (b: Buffer) => b,
        new grpc.Metadata(),
      );
      call.on('data', () => {});
      call.on('error', () => {}); // the status carries it
      const ended = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
      call.write(bytes);
      const st = await ended;
      expect(st.code, st.details).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(st.details).to.match(reason);
    });
  }

  it(`applies the ${MAX_IN_FLIGHT}-operation in-flight bound per element of a batch, not per message, and the stream goes on`, async () => {
    const stub = new lockdProto.lockd.v1.Session(f.cluster.node(await f.refreshLeader()).address, grpc.credentials.createInsecure());
    const md = new grpc.Metadata();
    md.set(BATCH_HEADER, '1');
    const call = stub.Open(md);
    closers.push(() => (call.cancel(), stub.close()));
    const answers: SessionResponse__Output[] = [];
    call.on('data', (m: SessionResponse__Output) => answers.push(...(m.batch.length > 0 ? m.batch : [m])));
    call.on('error', () => {});
    const answered = (ids: number[]) =>
      waitFor(`answers to ${ids.length} ids`, () => (ids.every((id) => answers.some((a) => a.id === id)) ? true : undefined), 30_000);
    const { leaseId: a } = await f.leader.grant(60_000);
    const { leaseId: b } = await f.leader.grant(60_000);
    await f.leader.acquire('rapi-bound', a);
    const wait = (id: number): SessionRequest => ({ id, acquire: { name: 'rapi-bound', leaseId: b, wait: true }, timeoutMs: 50_000 });
    for (let m = 0; m < MAX_IN_FLIGHT / 256; m++) call.write({ batch: Array.from({ length: 256 }, (_, k) => wait(m * 256 + k + 1)) });
    // Three more in one batch: each refused on its own (the last would also be invalid: the bound comes first).
    call.write({ batch: [{ id: 2001, inspect: { name: 'rapi-bound' } }, wait(2002), { id: 2003, acquire: { name: '', leaseId: b, wait: false } }] });
    await answered([2001, 2002, 2003]);
    for (const id of [2001, 2002, 2003]) expect(answers.find((x) => x.id === id)!.error, `id ${id}`).to.include({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect(answers).to.have.length(3);
    await f.leader.revoke(b);
    const waits = Array.from({ length: MAX_IN_FLIGHT }, (_, k) => k + 1);
    await answered(waits);
    expect(new Set(waits.map((id) => answers.find((x) => x.id === id)!.error?.code))).to.deep.equal(new Set([grpc.status.NOT_FOUND]));
    call.write({ batch: [{ id: 1, inspect: { name: 'rapi-bound' } }] }); // ids free again, the stream still serves
    await waitFor('a fresh answer to id 1', () => (answers.filter((x) => x.id === 1).length === 2 ? true : undefined));
    expect(answers.filter((x) => x.id === 1)[1].inspect).to.include({ held: true, holderLeaseId: a });
    await f.leader.revoke(a);
  });

  it('answers every one of 70 fence writes of 64 KiB started in one turn (each valid alone)', async () => {
    const c = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address), timeoutMs: 20_000 });
    closers.push(() => c.close());
    const { leaseId } = await c.grant(60_000);
    const { fencingToken } = await c.acquire('rapi-fence', leaseId);
    const value = Buffer.alloc(MAX_FENCE_VALUE_BYTES, 0x61);
    await c.fenceWrite('rapi-k', value, fencingToken); // one alone is fine
    // 70 in one turn: the client packs them into one SessionRequest of ~4.6 MB, over the server's
    // 4 MiB per-message limit, and the stream dies with all 70 (and anything else in flight) lost.
    const all = await Promise.allSettled(Array.from({ length: 70 }, () => c.fenceWrite('rapi-k', value, fencingToken)));
    const failed = all.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    expect(failed.length, `fence writes that failed, e.g. ${failed[0]}`).to.equal(0);
    await c.revoke(leaseId);
  });
});
