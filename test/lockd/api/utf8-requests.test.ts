// The byte-level UTF-8 check of request strings (utf8-requests.ts) where protobufjs and a naive walk
// would disagree: every string protobufjs decodes is checked, at the path it decodes to.
import { expect } from 'chai';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import { checkUtf8, invalidUtf8Field } from '../../../src/lockd/api/utf8-requests.js';

const v1 = lockdProto.lockd.v1;
function varint(n: number): number[] {
  const out: number[] = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return out;
}
/** A field: its tag, its length if length-delimited, its body. */
const field = (num: number, wire: number, body: number[]): number[] => [...varint((num << 3) | wire), ...(wire === 2 ? varint(body.length) : []), ...body];
const BAD = [0x75, 0x38, 0xff];

function checked(type: 'AcquireRequest' | 'SessionRequest', bytes: number[]): { decoded: unknown; field: string | undefined } {
  const buf = Buffer.from(bytes);
  const method = type === 'SessionRequest' ? v1.Session.service.Open : v1.Lock.service.Acquire;
  const msg = (method.requestDeserialize as (b: Buffer) => unknown)(buf);
  checkUtf8(type, buf, msg);
  return { decoded: msg, field: invalidUtf8Field(msg) };
}

describe('utf8-requests: request strings checked on their bytes', () => {
  it('finds a bad string that protobufjs decodes from the payload of a scalar sent length-delimited', () => {
    // lease_id (a uint64) sent with wire type 2: protobufjs reads the length as the value and then the
    // "payload" as more fields, here a name that is not UTF-8.
    const { decoded, field: f } = checked('AcquireRequest', [(2 << 3) | 2, 5, ...field(1, 2, BAD)]);
    expect((decoded as { name: string }).name).to.equal('u8\ufffd');
    expect(f).to.equal('name');
  });

  it('names the batch element and marks it, so a session answers that element alone', () => {
    const op = (name: number[]) => [...field(1, 0, [7]), ...field(3, 2, field(1, 2, name))];
    const { decoded, field: f } = checked('SessionRequest', [...field(30, 2, op([0x61])), ...field(30, 2, op(BAD))]);
    expect(f).to.equal('batch[1].acquire.name');
    const batch = (decoded as { batch: unknown[] }).batch;
    expect(invalidUtf8Field(batch[0])).to.equal(undefined);
    expect(invalidUtf8Field(batch[1])).to.equal('acquire.name');
  });

  it('leaves valid UTF-8 (a real U+FFFD included) unmarked', () => {
    expect(checked('AcquireRequest', field(1, 2, [...Buffer.from('a\ufffdé')])).field).to.equal(undefined);
  });
});
