// Strings that are not UTF-8, sent as hand-built protobuf bytes by a raw gRPC client (any client in
// any language can send them): refused INVALID_ARGUMENT naming the field, on the leader and on a
// follower (forwarding), unary and Session (alone and in a batch), never decoded into U+FFFD and
// merged with another name. A real U+FFFD (valid UTF-8) stays a valid name.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import { BATCH_HEADER } from '../../../src/lockd/api/session-batch.js';
import { ApiFixture } from './api-fixture.js';

const v1 = lockdProto.lockd.v1;

function varint(n: bigint | number): Buffer {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    out.push(Number(v & 0x7fn) | (v > 0x7fn ? 0x80 : 0));
    v >>= 7n;
  } while (v > 0n);
  return Buffer.from(out);
}

/** One length-delimited field. */
const bytesField = (num: number, body: Buffer): Buffer => Buffer.concat([varint((num << 3) | 2), varint(body.length), body]);
/** One varint field. */
const intField = (num: number, v: bigint | number): Buffer => Buffer.concat([varint(num << 3), varint(v)]);

/** AcquireRequest { name = 1, lease_id = 2, request_id = 4 }. */
const acquireBytes = (name: Buffer, leaseId: bigint | number, requestId?: Buffer): Buffer =>
  Buffer.concat([bytesField(1, name), intField(2, leaseId), ...(requestId ? [bytesField(4, requestId)] : [])]);

const INVALID_FF = Buffer.from([0x75, 0x38, 0xff]); // b"u8\xff"
const INVALID_FE = Buffer.from([0x75, 0x38, 0xfe]); // b"u8\xfe"

interface Answer {
  code: grpc.status;
  details: string;
  body?: Buffer;
}

describe('lock API: invalid UTF-8 in string fields, on the wire', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  const clients: grpc.Client[] = [];
  before(async () => {
    f = await ApiFixture.start();
  });
  after(async () => {
    for (const c of clients.splice(0)) c.close();
    await f?.stop();
  });

  function raw(address: string): grpc.Client {
    const c = new grpc.Client(address, grpc.credentials.createInsecure());
    clients.push(c);
    return c;
  }

  function unaryRaw(address: string, path: string, body: Buffer): Promise<Answer> {
    return new Promise((resolve) => {
      raw(address).makeUnaryRequest(
        path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        body,
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (err, res) => resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '', body: res }),
      );
    });
  }

  for (const where of ['leader', 'follower'] as const) {
    it(`refuses an Acquire whose name is not UTF-8 (on the ${where}), naming the field, and takes no lock`, async () => {
      const node = where === 'leader' ? f.leader : f.follower;
      const { leaseId } = await f.leader.grant(30_000);
      for (const name of [INVALID_FF, INVALID_FE]) {
        const a = await unaryRaw(node.address, '/lockd.v1.Lock/Acquire', acquireBytes(name, leaseId));
        expect(a.code, a.details).to.equal(grpc.status.INVALID_ARGUMENT);
        expect(a.details).to.match(/^name is not valid UTF-8/);
      }
      const merged = await f.leader.inspect('u8\ufffd');
      expect(merged.holders, 'nobody holds the U+FFFD name the bytes would have decoded to').to.have.length(0);
    });
  }

  it('still takes a name holding a real U+FFFD (valid UTF-8)', async () => {
    const { leaseId } = await f.leader.grant(30_000);
    const a = await unaryRaw(f.follower.address, '/lockd.v1.Lock/Acquire', acquireBytes(Buffer.from('real\ufffd', 'utf8'), leaseId));
    expect(a.code, a.details).to.equal(grpc.status.OK);
    expect((await f.leader.inspect('real\ufffd')).holders.map((h) => h.leaseId)).to.deep.equal([leaseId]);
  });

  it('names the field: request ids, fence keys, election values, nested rules', async () => {
    const { leaseId } = await f.leader.grant(30_000);
    const cases: Array<[string, Buffer, RegExp]> = [
      ['/lockd.v1.Lock/Acquire', acquireBytes(Buffer.from('ok-name'), leaseId, INVALID_FF), /^request_id is not valid UTF-8/],
      ['/lockd.v1.Lease/Grant', Buffer.concat([intField(1, 5000), bytesField(2, INVALID_FE)]), /^request_id is not valid UTF-8/],
      ['/lockd.v1.Fence/Write', Buffer.concat([bytesField(1, INVALID_FF), bytesField(2, Buffer.from('v')), intField(3, 1)]), /^key is not valid UTF-8/],
      ['/lockd.v1.Fence/Read', bytesField(1, INVALID_FF), /^key is not valid UTF-8/],
      [
        '/lockd.v1.Election/Campaign',
        Buffer.concat([bytesField(1, Buffer.from('el')), intField(2, leaseId), bytesField(3, INVALID_FF)]),
        /^value is not valid UTF-8/,
      ],
      [
        '/lockd.v1.Election/Proclaim',
        Buffer.concat([bytesField(1, Buffer.concat([bytesField(1, INVALID_FE), intField(2, leaseId), intField(3, 1)])), bytesField(2, Buffer.from('x'))]),
        /^leader\.name is not valid UTF-8/,
      ],
      [
        '/lockd.v1.Auth/Grant',
        bytesField(1, Buffer.concat([bytesField(1, INVALID_FF), bytesField(2, Buffer.from('a/')), bytesField(3, Buffer.from('lock'))])),
        /^rule\.principal is not valid UTF-8/,
      ],
      ['/lockd.v1.Membership/MemberRemove', bytesField(1, INVALID_FF), /^id is not valid UTF-8/],
      ['/lockd.v1.Cluster/TransferLeader', bytesField(1, INVALID_FF), /^target_id is not valid UTF-8/],
    ];
    for (const [path, body, message] of cases) {
      const a = await unaryRaw(f.follower.address, path, body);
      expect(a.code, `${path}: ${a.details}`).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(a.details, path).to.match(message);
    }
  });

  it('refuses a Lock.Observe of a name that is not UTF-8', async () => {
    const call = raw(f.follower.address).makeServerStreamRequest(
      '/lockd.v1.Lock/Observe',
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytesField(1, INVALID_FF),
      new grpc.Metadata(),
    );
    call.on('data', () => {});
    const st = await new Promise<grpc.StatusObject>((resolve) => {
      call.on('error', () => {});
      call.on('status', resolve);
    });
    expect(st.code, st.details).to.equal(grpc.status.INVALID_ARGUMENT);
    expect(st.details).to.match(/^name is not valid UTF-8/);
  });

  it('says "out of range" for a 64-bit id beyond what lockd holds exactly', async () => {
    for (const big of [2n ** 64n - 1n, 2n ** 63n]) {
      const a = await unaryRaw(f.follower.address, '/lockd.v1.Lock/Acquire', acquireBytes(Buffer.from('big'), big));
      expect(a.code, a.details).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(a.details).to.match(/^lease id \d+ is out of range/);
    }
  });

  it('answers a Session operation (alone and in a batch) whose name is not UTF-8 with its own INVALID_ARGUMENT', async () => {
    const leaderAddress = f.cluster.node(await f.refreshLeader()).address;
    const { leaseId } = await f.leader.grant(30_000);
    const md = new grpc.Metadata();
    md.set(BATCH_HEADER, '1');
    const call = raw(leaderAddress).makeBidiStreamRequest(
      '/lockd.v1.Session/Open',
      (b: Buffer) => b,
      (b: Buffer) => b,
      md,
    );
    const answers = new Map<number, Record<string, unknown>>();
    const decode = (b: Buffer) => v1.Session.service.Open.responseDeserialize(b) as { id: number; batch: Array<{ id: number }> };
    const got = new Promise<void>((resolve, reject) => {
      call.on('data', (b: Buffer) => {
        const res = decode(b);
        for (const r of res.batch.length > 0 ? res.batch : [res]) answers.set(r.id, r as unknown as Record<string, unknown>);
        if (answers.size === 4) resolve();
      });
      call.on('error', reject);
    });
    /** SessionRequest { id = 1, acquire = 3 }. */
    const op = (id: number, name: Buffer) => Buffer.concat([intField(1, id), bytesField(3, acquireBytes(name, leaseId))]);
    call.write(op(1, INVALID_FF));
    call.write(op(2, Buffer.from('session-ok-1')));
    call.write(Buffer.concat([bytesField(30, op(3, INVALID_FE)), bytesField(30, op(4, Buffer.from('session-ok-2')))]));
    await got;
    call.end();
    for (const id of [1, 3]) {
      const e = answers.get(id)!.error as { code: number; message: string } | null;
      expect(e, `answer ${id}`).to.not.equal(null);
      expect(e!.code, e!.message).to.equal(grpc.status.INVALID_ARGUMENT);
      expect(e!.message).to.match(/^acquire\.name is not valid UTF-8/);
    }
    for (const id of [2, 4]) expect((answers.get(id)!.acquire as { acquired: boolean } | null)?.acquired, `answer ${id}`).to.equal(true);
    expect((await f.leader.inspect('u8\ufffd')).holders).to.have.length(0);
  });
});
