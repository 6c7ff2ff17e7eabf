import { expect } from 'chai';
import type { Command } from '../../../src/lockd/state-machine/index.js';
import {
  COMMAND_FORMAT_VERSION,
  CommandDecodeError,
  decodeCommand,
  encodeCommand,
} from '../../../src/lockd/state-machine/index.js';

const raw = (json: string, version = COMMAND_FORMAT_VERSION) =>
  new Uint8Array([version, ...new TextEncoder().encode(json)]);

describe('state machine: command codec', () => {
  const commands: Command[] = [
    { type: 'Grant', ttlMs: 5000, marginMs: 200 },
    { type: 'Grant', ttlMs: 5000, marginMs: 200, requestId: 'r-1' },
    { type: 'Revoke', leaseId: 7 },
    { type: 'Tick', elapsedMs: 100, marginMs: 200, renewed: [] },
    { type: 'Tick', elapsedMs: 0, marginMs: 0, renewed: [3, 9, 12] },
    { type: 'Acquire', name: 'db/primary', leaseId: 3, wait: true },
    { type: 'Acquire', name: 'ünïcødé ✓', leaseId: 3, wait: false, requestId: 'abc' },
    { type: 'Release', name: 'x', token: 42 },
    { type: 'FenceWrite', key: 'k', value: new Uint8Array([0, 1, 2, 255]), token: 9 },
    { type: 'FenceWrite', key: 'k', value: new Uint8Array(0), token: 9 },
    { type: 'CancelWait', name: 'x', leaseId: 4 },
    { type: 'CancelWait', name: 'x', leaseId: 4, abandonedAtIndex: 12 },
    { type: 'Revoke', leaseId: 7, requestId: 'rv' },
    { type: 'Release', name: 'x', token: 42, requestId: 'rel' },
    { type: 'CancelWait', name: 'x', leaseId: 4, abandonedAtIndex: 12, requestId: 'cw' },
    { type: 'FenceWrite', key: 'k', value: new Uint8Array([7]), token: 9, lock: 'job', requestId: 'w' },
    { type: 'FenceDelete', key: 'k', token: 9 },
    { type: 'FenceDelete', key: 'k', token: 9, lock: 'job', requestId: 'd' },
  ];

  for (const cmd of commands) {
    it(`round-trips ${JSON.stringify(cmd, (_k, v) => (v instanceof Uint8Array ? [...v] : v))}`, () => {
      const bytes = encodeCommand(cmd);
      expect(bytes[0]).to.equal(COMMAND_FORMAT_VERSION);
      const back = decodeCommand(bytes);
      expect(back).to.deep.equal(cmd);
      expect(encodeCommand(back)).to.deep.equal(bytes); // deterministic: same command, same bytes
    });
  }

  it('encodes independently of the property order of the input object', () => {
    const a = encodeCommand({ type: 'Acquire', name: 'n', leaseId: 1, wait: true, requestId: 'q' });
    const b = encodeCommand({ requestId: 'q', wait: true, leaseId: 1, name: 'n', type: 'Acquire' } as Command);
    expect(a).to.deep.equal(b);
  });

  it('drops an empty request id and ignores fields that are not part of the command', () => {
    const withExtra = { type: 'Revoke', leaseId: 1, junk: 'x' } as unknown as Command;
    expect(decodeCommand(encodeCommand(withExtra))).to.deep.equal({ type: 'Revoke', leaseId: 1 });
    expect(decodeCommand(encodeCommand({ type: 'Grant', ttlMs: 100, marginMs: 0, requestId: '' }))).to.deep.equal({
      type: 'Grant',
      ttlMs: 100,
      marginMs: 0,
    });
  });

  it('encodes a fence value given as a view into a larger buffer by its own bytes only', () => {
    const big = new Uint8Array([9, 9, 1, 2, 3, 9]);
    const cmd: Command = { type: 'FenceWrite', key: 'k', value: big.subarray(2, 5), token: 1 };
    expect((decodeCommand(encodeCommand(cmd)) as { value: Uint8Array }).value).to.deep.equal(new Uint8Array([1, 2, 3]));
  });

  it('refuses to encode values JSON cannot carry or of the wrong type', () => {
    expect(() => encodeCommand({ type: 'Grant', ttlMs: NaN, marginMs: 0 })).to.throw(TypeError, /ttlMs/);
    expect(() => encodeCommand({ type: 'Tick', elapsedMs: Infinity, marginMs: 0, renewed: [] })).to.throw(TypeError);
    expect(() => encodeCommand({ type: 'Acquire', name: 5, leaseId: 1, wait: true } as unknown as Command)).to.throw(TypeError);
    expect(() => encodeCommand({ type: 'Nope' } as unknown as Command)).to.throw(TypeError, /unknown type/);
  });

  const bad: [string, Uint8Array, RegExp][] = [
    ['empty data (a no-op)', new Uint8Array(0), /no-op/],
    ['a future format version', raw('{"type":"Revoke","leaseId":1}', 2), /version 2/],
    ['malformed JSON', raw('{"type":'), /malformed JSON/],
    ['malformed UTF-8', new Uint8Array([COMMAND_FORMAT_VERSION, 0xff, 0xfe]), /malformed/],
    ['a non-object', raw('[1,2]'), /not an object/],
    ['an unknown type', raw('{"type":"Explode"}'), /unknown type/],
    ['an unexpected field', raw('{"type":"Revoke","leaseId":1,"x":2}'), /unexpected field x/],
    ['a missing field', raw('{"type":"Release","name":"a"}'), /lacks field token/],
    ['a wrongly typed field', raw('{"type":"Release","name":"a","token":"3"}'), /token must be a number/],
    ['a non-boolean wait', raw('{"type":"Acquire","name":"a","leaseId":1,"wait":1}'), /wait must be a boolean/],
    ['renewed with a string', raw('{"type":"Tick","elapsedMs":1,"marginMs":0,"renewed":["1"]}'), /renewed/],
    ['bad base64', raw('{"type":"FenceWrite","key":"k","value":"!!","token":1}'), /base64/],
  ];
  for (const [what, data, msg] of bad) {
    it(`refuses to decode ${what}`, () => {
      expect(() => decodeCommand(data)).to.throw(CommandDecodeError, msg);
    });
  }
});
