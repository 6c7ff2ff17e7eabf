// The property tests' answer matcher on its own: exact values, Fresh symbols bound on first sight
// above the floor and held to that value after, Ranges, and the path of the first difference.
import { expect } from 'chai';
import { matchAnswer, type Symbols, type Val } from './answer-match.js';

function symbols(): Symbols & { bound: Map<string, number> } {
  const bound = new Map<string, number>();
  return { bound, val: (v: Val) => (typeof v === 'number' ? v : bound.get(v.fresh)), bind: (s, x) => void bound.set(s, x) };
}

describe('answer matcher (shared by the API property tests)', () => {
  it('binds a fresh symbol to a number above the floor, then holds it to that number', () => {
    const m = symbols();
    expect(matchAnswer(m, { token: { fresh: 't' } }, { token: 12 }, 10, 'a')).to.equal(undefined);
    expect(m.bound.get('t')).to.equal(12);
    expect(matchAnswer(m, { token: { fresh: 't' } }, { token: 13 }, 10, 'b')).to.equal('b.token');
    expect(matchAnswer(symbols(), { token: { fresh: 't' } }, { token: 10 }, 10, 'c')).to.equal('c.token (a new id or token above 10)');
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
