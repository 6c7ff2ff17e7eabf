// Checker 1 (fencing) and the mutual-exclusion check on hand-made histories.
import { expect } from 'chai';
import { op, type Op, type OpStatus } from './history.js';
import { checkStore, type FinalValue } from './fencing-check.js';
import { checkExclusion } from './exclusion-check.js';
import { append, decode, encode, EMPTY, ordered, TAIL, type GuardedValue } from './guarded-value.js';

let seq = 0;
function wr(
  p: string,
  elem: string,
  pred: string,
  n: number,
  token: number,
  t0: number,
  t1: number,
  status: OpStatus = 'ok',
  opts: { trustedUntil?: number; code?: string; store?: 'fence' | 'plain' } = {},
): Op {
  const output = status === 'ok' ? { highestToken: token } : status === 'fail' ? { code: opts.code ?? 'FAILED_PRECONDITION' } : undefined;
  return op(
    seq++,
    p,
    'write',
    { store: opts.store ?? 'fence', key: 'x', elem, pred, n, token, leaseId: 1, trustedUntil: opts.trustedUntil ?? 1e9 },
    t0,
    t1,
    status,
    output,
  );
}
function final(elems: string[], token: number | undefined): Map<string, FinalValue> {
  let v: GuardedValue = EMPTY;
  for (const e of elems) v = append(v, e);
  return new Map([['x', { value: v, token }]]);
}
const kinds = (r: ReturnType<typeof checkStore>): string[] => r.violations.map((v) => v.kind);

describe('faults: guarded value', () => {
  it('keeps the length and a bounded tail, and round-trips through bytes', () => {
    let v = EMPTY;
    for (let i = 1; i <= 40; i++) v = append(v, `c.${i}@${i}`);
    expect(v.n).to.equal(40);
    expect(v.tail).to.have.length(TAIL);
    expect(decode(encode(v))).to.deep.equal(v);
    expect(decode(new Uint8Array())).to.deep.equal(EMPTY);
    expect(ordered(v, 40)).to.equal(true);
    expect(ordered(v, 39)).to.equal(false);
    expect(ordered(append(v, 'c.41@3'), 3)).to.equal(false);
    expect(() => decode(Buffer.from('{"n":3,"tail":["a"]}'))).to.throw(/3 elements but a tail of 1/);
  });
});

describe('faults: fencing checker', () => {
  const clean = [wr('a', 'a.1@5', '', 1, 5, 0, 1), wr('a', 'a.2@5', 'a.1@5', 2, 5, 2, 3), wr('b', 'b.1@9', 'a.2@5', 3, 9, 4, 5)];

  it('passes a clean chain of writes', () => {
    const r = checkStore(clean, 'fence', final(['a.1@5', 'a.2@5', 'b.1@9'], 9));
    expect(r.violations).to.deep.equal([]);
    expect(r.chainLength).to.deep.equal({ x: 3 });
    expect(r.writes).to.deep.include({ ok: 3, fail: 0, unknown: 0 });
  });

  it('flags an acknowledged write missing from the final value', () => {
    const ops = [...clean, wr('c', 'c.1@7', 'a.2@5', 3, 7, 3.5, 3.8)];
    const r = checkStore(ops, 'fence', final(['a.1@5', 'a.2@5', 'b.1@9'], 9));
    expect(kinds(r)).to.deep.equal(['lost-acknowledged-write']);
    expect(r.lostAcknowledged.map((l) => l.elem)).to.deep.equal(['c.1@7']);
  });

  it('counts, but does not flag, a loss acknowledged after the writer stopped trusting its lease', () => {
    const ops = [...clean, wr('c', 'c.1@7', 'a.2@5', 3, 7, 3.5, 3.8, 'ok', { trustedUntil: 3.6 })];
    const r = checkStore(ops, 'fence', final(['a.1@5', 'a.2@5', 'b.1@9'], 9));
    expect(r.violations).to.deep.equal([]);
    expect(r.staleWindowLosses).to.have.length(1);
  });

  it('a renewal sent before the write completed extends the writer trust', () => {
    const renewal = op(seq++, 'c', 'keepalive', { leaseId: 1, ttlMs: 1000 }, 3.55, 3.9, 'ok', { ttlMs: 1000 });
    const ops = [...clean, wr('c', 'c.1@7', 'a.2@5', 3, 7, 3.5, 3.8, 'ok', { trustedUntil: 3.6 }), renewal];
    const r = checkStore(ops, 'fence', final(['a.1@5', 'a.2@5', 'b.1@9'], 9));
    expect(kinds(r)).to.deep.equal(['lost-acknowledged-write']);
  });

  it('flags a refused write that was stored, and a chain whose tokens go down', () => {
    const ops = [wr('a', 'a.1@9', '', 1, 9, 0, 1), wr('b', 'b.1@5', 'a.1@9', 2, 5, 2, 3, 'fail')];
    const r = checkStore(ops, 'fence', final(['a.1@9', 'b.1@5'], 5));
    expect(kinds(r)).to.include.members(['refused-but-stored', 'chain-tokens-decrease']);
  });

  it('flags an element no write produced, and a count that does not match the chain', () => {
    expect(kinds(checkStore(clean, 'fence', final(['a.1@5', 'a.2@5', 'zz.1@9'], 9)))).to.include('unknown-element');
    const v = new Map([['x', { value: { n: 5, tail: ['a.1@5', 'a.2@5', 'b.1@9'] }, token: 9 }]]);
    expect(kinds(checkStore(clean, 'fence', v))).to.include('chain-mismatch');
  });

  it('flags a lower token accepted after a higher one in real time, and a refusal without cause', () => {
    const ops = [wr('a', 'a.1@9', '', 1, 9, 0, 1), wr('b', 'b.1@5', 'a.1@9', 2, 5, 2, 3)];
    expect(kinds(checkStore(ops, 'fence', final(['a.1@9', 'b.1@5'], 5)))).to.include('accepted-lower-token');
    const refusedAlone = [wr('a', 'a.1@9', '', 1, 9, 0, 1), wr('b', 'b.1@12', 'a.1@9', 2, 12, 2, 3, 'fail')];
    expect(kinds(checkStore(refusedAlone, 'fence', final(['a.1@9'], 9)))).to.deep.equal(['refused-current-token']);
    // Concurrent writes: the refused one may have come after the higher token.
    const concurrent = [wr('a', 'a.1@9', '', 1, 9, 0, 3), wr('b', 'b.1@5', '', 1, 5, 1, 2, 'fail')];
    expect(kinds(checkStore(concurrent, 'fence', final(['a.1@9'], 9)))).to.deep.equal([]);
  });

  it('on the plain store, reports lost writes without calling them fencing violations', () => {
    const ops = [
      wr('a', 'a.1@5', '', 1, 5, 0, 1, 'ok', { store: 'plain' }),
      wr('b', 'b.1@9', 'a.1@5', 2, 9, 2, 3, 'ok', { store: 'plain' }),
      wr('a', 'a.2@5', 'a.1@5', 2, 5, 4, 5, 'ok', { store: 'plain' }), // a resumed and overwrote b
    ];
    const r = checkStore(ops, 'plain', final(['a.1@5', 'a.2@5'], undefined));
    expect(r.violations).to.deep.equal([]);
    expect(r.lostAcknowledged.map((l) => l.elem)).to.deep.equal(['b.1@9']);
  });
});

describe('faults: exclusion checker', () => {
  const grant = (lease: number, t0: number, ttlMs: number): Op => op(seq++, `p${lease}`, 'grant', { ttlMs }, t0, t0 + 1, 'ok', { leaseId: lease });
  const acq = (lease: number, t0: number, t1: number, token: number): Op =>
    op(seq++, `p${lease}`, 'acquire', { name: 'k', leaseId: lease, wait: true }, t0, t1, 'ok', { acquired: true, token, holder: lease });
  const rel = (lease: number, t0: number, t1: number, token: number): Op =>
    op(seq++, `p${lease}`, 'release', { name: 'k', leaseId: lease, token }, t0, t1, 'ok', { released: true });
  const ka = (lease: number, t0: number, t1: number, ttlMs: number): Op =>
    op(seq++, `p${lease}`, 'keepalive', { leaseId: lease, ttlMs }, t0, t1, 'ok', { ttlMs });

  it('flags a grant to another lease while the holder was still trusted', () => {
    const r = checkExclusion([grant(1, 0, 1000), acq(1, 10, 20, 5), grant(2, 0, 1000), acq(2, 30, 500, 8)]);
    expect(r.violations).to.have.length(1);
    expect(r.violations[0].detail).to.match(/lease 2 got k \(token 8.*while lease 1 held it/);
  });

  it('keepalives extend the trust; expiry after it, or a release, clears the way', () => {
    expect(checkExclusion([grant(1, 0, 1000), acq(1, 10, 20, 5), ka(1, 900, 950, 1000), acq(2, 30, 1500, 8)]).violations).to.have.length(1);
    const r = checkExclusion([grant(1, 0, 1000), acq(1, 10, 20, 5), acq(2, 30, 1500, 8), rel(1, 3000, 3001, 5)]);
    expect(r.violations).to.deep.equal([]);
    expect(r.overlaps).to.deep.equal({ k: 1 }); // both believed they held it from 1500 to 3000
    expect(checkExclusion([grant(1, 0, 1000), acq(1, 10, 20, 5), rel(1, 100, 110, 5), acq(2, 30, 120, 8)]).violations).to.deep.equal([]);
  });

  it("a third party's release of the holder's token ends its protection; a refused guess does not", () => {
    const xrel = (t0: number, token: number, released: boolean): Op =>
      op(seq++, 'x9', 'release', { name: 'k', leaseId: 0, token, adversary: true }, t0, t0 + 5, 'ok', { released });
    const base = [grant(1, 0, 1000), acq(1, 10, 20, 5), grant(2, 0, 1000), acq(2, 30, 500, 8)];
    expect(checkExclusion([...base, xrel(100, 5, true)]).violations).to.deep.equal([]);
    expect(checkExclusion([...base, xrel(100, 5, false)]).violations).to.have.length(1);
    expect(checkExclusion([...base, xrel(100, 4, true)]).violations).to.have.length(1);
  });
});

describe("faults: fencing checker — a third party's release", () => {
  it('excuses the loss of a write acknowledged after the grant was released by someone else, not one before', () => {
    const xrel = (t0: number, released: boolean): Op =>
      op(seq++, 'x9', 'release', { name: 'x', leaseId: 0, token: 5, adversary: true }, t0, t0 + 1, 'ok', { released });
    // a (token 5) writes a.1, later a.2; b (token 9) built on a.1: a.2 is lost.
    const ops = [wr('a', 'a.1@5', '', 1, 5, 0, 1), wr('a', 'a.2@5', 'a.1@5', 2, 5, 10, 11), wr('b', 'b.1@9', 'a.1@5', 2, 9, 12, 13)];
    const fin = final(['a.1@5', 'b.1@9'], 9);
    expect(kinds(checkStore(ops, 'fence', fin))).to.deep.equal(['lost-acknowledged-write']);
    const released = checkStore([...ops, xrel(5, true)], 'fence', fin);
    expect(released.violations).to.deep.equal([]);
    expect(released.staleWindowLosses.map((l) => l.elem)).to.deep.equal(['a.2@5']);
    // A refused guess, or a release after the write was acknowledged, excuses nothing.
    expect(kinds(checkStore([...ops, xrel(5, false)], 'fence', fin))).to.deep.equal(['lost-acknowledged-write']);
    expect(kinds(checkStore([...ops, xrel(11.5, true)], 'fence', fin))).to.deep.equal(['lost-acknowledged-write']);
  });
});
