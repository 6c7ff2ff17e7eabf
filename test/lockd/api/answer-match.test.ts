// The property tests' answer matcher on its own: exact values, Fresh symbols bound on first sight
// above the floor and held to that value after, Ranges, and the path of the first difference.
import { expect } from 'chai';
import { matchAnswer, type Symbols, type Val } from './answer-match.js';

function symbols(): Symbols & { bound: Map<string, number> } {
  const bound = new Map<string, number>();
  return { bound, val: (v: Val) => (typeof v === 'number' ? v : bound.get(v.fresh)), bind: (s, x) => void bound.set(s, x) };
}

describe('answer matcher (shared by the API property tests)', () => {
  it('binds a fresh symbol to a value made after the floor entry, then holds it to that value', () => {
    const m = symbols();
    expect(matchAnswer(m, { token: { fresh: 't' } }, { token: 11 * 1024 + 1 }, 10, 'a')).to.equal(undefined);
    expect(m.bound.get('t')).to.equal(11 * 1024 + 1);
    expect(matchAnswer(m, { token: { fresh: 't' } }, { token: 11 * 1024 }, 10, 'b')).to.equal('b.token');
    // A token names its entry by tokenIndex: one of entry 10 (or a bare index) is not new.
    expect(matchAnswer(symbols(), { token: { fresh: 't' } }, { token: 10 * 1024 + 5 }, 10, 'c')).to.equal('c.token (a new token, of an entry above entry 10)');
    expect(matchAnswer(symbols(), { fencingToken: { fresh: 't' } }, { fencingToken: 12 }, 10, 'c')).to.equal(
      'c.fencingToken (a new token, of an entry above entry 10)',
    );
    // A lease id is its Grant's index.
    expect(matchAnswer(symbols(), { leaseId: { fresh: 'l' } }, { leaseId: 11 }, 10, 'd')).to.equal(undefined);
    expect(matchAnswer(symbols(), { leaseId: { fresh: 'l' } }, { leaseId: 10 }, 10, 'd')).to.equal('d.leaseId (a new lease id above entry 10)');
  });

  it('checks ranges, arrays, extra and missing fields, and names the first difference', () => {
    const m = symbols();
    expect(matchAnswer(m, { left: { min: 1, max: 60 } }, { left: 60 }, 0, 'r')).to.equal(undefined);
    expect(matchAnswer(m, { left: { min: 1, max: 60 } }, { left: 0 }, 0, 'r')).to.equal('r.left (in 1..60)');
    expect(matchAnswer(m, { ids: [1, 2] }, { ids: [1, 3] }, 0, 'x')).to.equal('x.ids[1]');
    expect(matchAnswer(m, { ids: [1, 2] }, { ids: [1] }, 0, 'x')).to.equal('x.ids');
    expect(matchAnswer(m, { a: 1 }, { a: 1, b: 2 }, 0, 'x')).to.equal('x.b');
    expect(matchAnswer(m, { a: 1, b: 2 }, { a: 1 }, 0, 'x')).to.equal('x.b');
  });
});
