import { expect } from 'chai';
import type { Command } from '../../../src/lockd/state-machine/index.js';
import { COMMAND_FORMAT_VERSION, CommandDecodeError, decodeCommand, encodeCommand } from '../../../src/lockd/state-machine/index.js';

// A seeded generator, so a failure names a case that reproduces.
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

const V = COMMAND_FORMAT_VERSION;
const NUMS = [
  0,
  1,
  126,
  127,
  128,
  16_383,
  16_384,
  2 ** 32,
  Number.MAX_SAFE_INTEGER - 1,
  Number.MAX_SAFE_INTEGER,
  2 ** 60,
  -1,
  -0.5,
  0.25,
  -(2 ** 53),
  Number.MAX_VALUE,
  -Number.MIN_VALUE,
];

/** Random commands of every type, every optional field sometimes present, numbers from the edges and beyond. */
function randomCommand(r: () => number): Command {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const num = (): number => (r() < 0.6 ? pick(NUMS) : Math.floor(r() * 2 ** (1 + Math.floor(r() * 53))));
  const str = (): string => pick(['', 'a', 'db/primary', 'ünïcødé ✓', '😀'.repeat(40), 'x'.repeat(70), 'y'.repeat(20_000)]);
  const some = <T>(v: () => T): T | undefined => (r() < 0.5 ? v() : undefined);
  const bytes = (): Uint8Array => Uint8Array.from({ length: pick([0, 1, 255, 4096]) }, () => Math.floor(r() * 256));
  const auth = () => ({ principal: some(() => pick(['anonymous', 'alice', str()])), admin: some(() => r() < 0.5), acl: some(() => r() < 0.5) });
  const rid = some(str);
  const cmds: Command[] = [
    { type: 'Grant', ttlMs: num(), marginMs: num(), driftPpm: some(num), requestId: rid, ...auth() },
    { type: 'Revoke', leaseId: num(), requestId: rid, ...auth() },
    { type: 'Tick', elapsedMs: num(), marginMs: num(), driftPpm: some(num), renewed: Array.from({ length: pick([0, 1, 5, 1000]) }, num) },
    {
      type: 'Acquire',
      name: str(),
      leaseId: num(),
      wait: r() < 0.5,
      permits: some(num),
      shared: some(() => r() < 0.5),
      lockDelayMs: some(num),
      value: some(str),
      requestId: rid,
      ...auth(),
    },
    { type: 'Release', name: str(), token: num(), leaseId: some(num), requestId: rid, ...auth() },
    { type: 'SetPermits', name: str(), permits: num(), requestId: rid, ...auth() },
    { type: 'Proclaim', name: str(), token: num(), value: str(), ...auth() },
    { type: 'FenceWrite', key: str(), value: bytes(), token: num(), lock: some(str), requestId: rid, ...auth() },
    { type: 'FenceDelete', key: str(), token: num(), lock: some(str), requestId: rid, ...auth() },
    { type: 'CancelWait', name: str(), leaseId: num(), abandonedAtIndex: some(num), requestId: rid, ...auth() },
    { type: 'AclGrant', subject: str(), prefix: str(), verb: pick(['lock', 'fence', 'read', 'admin'] as const), requestId: rid, ...auth() },
    { type: 'AclRevoke', subject: str(), prefix: str(), verb: pick(['lock', 'fence', 'read', 'admin'] as const), requestId: rid, ...auth() },
  ];
  return cmds[Math.floor(r() * cmds.length)];
}

/** What decoding should give: the command without undefined fields and without fields at their default. */
function normalized(cmd: Command): Record<string, unknown> {
  const defaults: Record<string, (v: unknown) => boolean> = {
    requestId: (v) => v === '',
    driftPpm: (v) => v === 0,
    principal: (v) => v === 'anonymous',
    admin: (v) => v === false,
    acl: (v) => v === false,
    permits: (v) => cmd.type === 'Acquire' && (v === 0 || v === 1), // SetPermits' is required
    shared: (v) => v === false,
    lockDelayMs: (v) => v === 0,
    value: (v) => cmd.type !== 'Proclaim' && v === '', // Proclaim's value is required
    lock: (v) => v === '',
    abandonedAtIndex: (v) => v === 0,
    leaseId: (v) => cmd.type === 'Release' && v === 0,
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cmd)) {
    if (v === undefined || defaults[k]?.(v)) continue;
    out[k] = Object.is(v, -0) ? 0 : Array.isArray(v) ? v.map((x: number) => (Object.is(x, -0) ? 0 : x)) : v;
  }
  return out;
}

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

  it('round-trips 3000 random commands of every type (edge numbers, fractions, negatives, 2^53 and beyond, empty and 4 KiB values, long and non-ASCII strings), deterministically', () => {
    const r = rng(15);
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const cmd = randomCommand(r);
      seen.add(cmd.type);
      const bytes = encodeCommand(cmd);
      const back = decodeCommand(bytes);
      expect(back, `case ${i}`).to.deep.equal(normalized(cmd));
      expect(encodeCommand(back), `case ${i}`).to.deep.equal(bytes);
    }
    expect(seen.size).to.equal(12);
  });

  it('has the documented layout (a change to it is a new format version)', () => {
    // version, type code (Revoke = 2), presence 0, leaseId 3 as uint 3 + 1.
    expect([...encodeCommand({ type: 'Revoke', leaseId: 3 })]).to.deep.equal([V, 2, 0, 4]);
    // Acquire = 4: presence bit 4 (requestId, the 5th optional field); name; leaseId 127 → uint 128; wait.
    expect([...encodeCommand({ type: 'Acquire', name: 'a', leaseId: 127, wait: true, requestId: 'q' })]).to.deep.equal([
      V,
      4,
      0b10000,
      1,
      0x61,
      0x80,
      0x01,
      1,
      1,
      0x71,
    ]);
    // Tick = 3: -1 is not an integer ≥ 0: uint 0, then float64 little-endian.
    const f = Buffer.alloc(8);
    f.writeDoubleLE(-1);
    expect([...encodeCommand({ type: 'Tick', elapsedMs: -1, marginMs: 0, renewed: [] })]).to.deep.equal([V, 3, 0, 0, ...f, 1, 0]);
    // Flags carry no bytes: shared (bit 1) and admin (bit 6) on an Acquire.
    expect([...encodeCommand({ type: 'Acquire', name: 'a', leaseId: 0, wait: false, shared: true, admin: true })]).to.deep.equal([
      V,
      4,
      0b1000010,
      1,
      0x61,
      1,
      0,
    ]);
  });

  it('refuses to encode values it cannot carry or of the wrong type', () => {
    expect(() => encodeCommand({ type: 'Grant', ttlMs: NaN, marginMs: 0 })).to.throw(TypeError, /ttlMs/);
    expect(() => encodeCommand({ type: 'Tick', elapsedMs: Infinity, marginMs: 0, renewed: [] })).to.throw(TypeError);
    expect(() => encodeCommand({ type: 'Tick', elapsedMs: 1, marginMs: 0, renewed: [1, NaN] })).to.throw(TypeError, /renewed/);
    expect(() => encodeCommand({ type: 'Acquire', name: 5, leaseId: 1, wait: true } as unknown as Command)).to.throw(TypeError);
    expect(() => encodeCommand({ type: 'Acquire', name: 'a', leaseId: 1, wait: true, shared: 1 } as unknown as Command)).to.throw(TypeError, /shared/);
    expect(() => encodeCommand({ type: 'Acquire', name: 'a\ud800', leaseId: 1, wait: true })).to.throw(TypeError, /lone surrogate/);
    expect(() => encodeCommand({ type: 'Nope' } as unknown as Command)).to.throw(TypeError, /unknown type/);
  });

  it('refuses every strict prefix of a valid command (truncated)', () => {
    const r = rng(7);
    for (let i = 0; i < 200; i++) {
      const bytes = encodeCommand(randomCommand(r));
      for (const n of [1, 2, bytes.length - 1, Math.floor(r() * bytes.length)]) {
        if (n < 1 || n >= bytes.length) continue;
        expect(() => decodeCommand(bytes.subarray(0, n)), `case ${i} cut at ${n}`).to.throw(CommandDecodeError, /truncated|claims/);
      }
    }
  });

  const bad: [string, Uint8Array, RegExp][] = [
    ['empty data (a no-op)', new Uint8Array(0), /no-op/],
    [
      'format 1 (JSON), with a hint',
      new Uint8Array([1, ...new TextEncoder().encode('{"type":"Revoke","leaseId":1}')]),
      /version 1 is not supported \(this build reads 2\) \(format 1, JSON/,
    ],
    ['a future format version', new Uint8Array([3, 2, 0, 4]), /version 3 is not supported/],
    ['an unknown type code', new Uint8Array([V, 14, 0]), /unknown type code 14/],
    ['type code 0', new Uint8Array([V, 0, 0]), /unknown type code 0/],
    ['trailing bytes', new Uint8Array([V, 2, 0, 4, 0]), /1 trailing bytes after the Revoke/],
    ['presence bits for fields the type lacks', new Uint8Array([V, 2, 0b100000, 4]), /presence bits/],
    ['a non-minimal integer', new Uint8Array([V, 2, 0, 0x84, 0x00]), /non-minimal/],
    ['an integer above 2^53 - 1', new Uint8Array([V, 2, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]), /exceeds 2\^53 - 1/],
    ['a float that has the integer form', new Uint8Array([V, 2, 0, 0, ...new Uint8Array(new Float64Array([3]).buffer)]), /not in its canonical form/],
    ['a NaN', new Uint8Array([V, 2, 0, 0, ...new Uint8Array(new Float64Array([NaN]).buffer)]), /not a finite number/],
    ['an infinity', new Uint8Array([V, 2, 0, 0, ...new Uint8Array(new Float64Array([-Infinity]).buffer)]), /not a finite number/],
    ['a string longer than the entry', new Uint8Array([V, 5, 0, 100, 0x61]), /truncated: Release.name says 100 bytes, 1 remain/],
    ['malformed UTF-8', new Uint8Array([V, 5, 0, 2, 0xc3, 0x28, 1]), /Release.name is not valid UTF-8/],
    ['a boolean that is neither 0 nor 1', new Uint8Array([V, 4, 0, 1, 0x61, 2, 2]), /Acquire.wait must be a boolean/],
    [
      'more renewals than the entry holds (no allocation for them)',
      new Uint8Array([V, 3, 0, 2, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]),
      /renewed claims 1099511627776 numbers/,
    ],
    ['fence value longer than the entry', new Uint8Array([V, 8, 0, 1, 0x6b, 0x80, 0x80, 0x04, 1]), /truncated: FenceWrite.value says 65536 bytes/],
    ['an unknown ACL verb', new Uint8Array([V, 11, 0, 1, 0x61, 0, 3, 0x72, 0x75, 0x6e]), /AclGrant.verb "run" is not a verb/],
  ];
  for (const [what, data, msg] of bad) {
    it(`refuses to decode ${what}`, () => {
      expect(() => decodeCommand(data)).to.throw(CommandDecodeError, msg);
    });
  }
});
