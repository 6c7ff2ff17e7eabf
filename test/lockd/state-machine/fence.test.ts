import { expect } from 'chai';
import { LockStateMachine, MAX_FENCE_KEYS, MAX_FENCE_KEYS_PER_LEASE } from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('state machine: fenced store', () => {
  /** A store with a few entries applied first, so tokens up to 9 count as issued. */
  function setup(): Harness {
    const h = new Harness();
    for (let i = 0; i < 10; i++) h.noop();
    return h;
  }

  // [token of each write in order, expected outcome per write, final value/token]
  const cases: [string, number[], ('ok' | 'stale')[], string, number][] = [
    ['a first write is accepted', [5], ['ok'], 'w0', 5],
    ['a higher token is accepted', [5, 7], ['ok', 'ok'], 'w1', 7],
    ['an equal token is accepted (the holder writing twice)', [5, 5], ['ok', 'ok'], 'w1', 5],
    ['a lower token is refused and the value stays', [7, 5], ['ok', 'stale'], 'w0', 7],
    ['a refusal does not lower the bar for later writes', [7, 5, 6, 8], ['ok', 'stale', 'stale', 'ok'], 'w3', 8],
  ];
  for (const [label, tokens, outcomes, value, token] of cases) {
    it(label, () => {
      const h = setup();
      tokens.forEach((t, i) => {
        const r = h.apply({ type: 'FenceWrite', key: 'res', value: bytes(`w${i}`), token: t }).result!;
        if (outcomes[i] === 'ok') expect(r).to.deep.equal({ type: 'FenceWrite', ok: true, highestToken: t });
        else {
          expect(r).to.include({ ok: false, error: 'FAILED_PRECONDITION' });
          expect(r).to.have.property('highestToken').that.is.greaterThan(t);
          expect((r as { message: string }).message).to.match(new RegExp(`stale fencing token ${t}`));
        }
      });
      const read = h.sm.fenceRead('res');
      expect(read.found).to.equal(true);
      expect(text(read.value)).to.equal(value);
      expect(read.token).to.equal(token);
    });
  }

  it('reading an unknown key says not found', () => {
    expect(new LockStateMachine().fenceRead('nope')).to.deep.equal({ found: false, value: new Uint8Array(0), token: 0 });
  });

  it('keys are independent', () => {
    const h = setup();
    h.ok({ type: 'FenceWrite', key: 'a', value: bytes('A'), token: 9 });
    h.ok({ type: 'FenceWrite', key: 'b', value: bytes('B'), token: 2 });
    expect(h.sm.fenceRead('b').token).to.equal(2);
  });

  it('refuses a token that was never issued (>= this entry’s first token): a made-up token would lock the key forever', () => {
    const h = setup();
    const f = h.fail({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: tok(h.next) });
    expect(f).to.include({ error: 'INVALID_ARGUMENT' });
    expect(f.message).to.match(/never issued/);
    expect(h.sm.fenceRead('k').found).to.equal(false);
    const highestIssuable = tok(h.next) - 1; // the largest token an earlier entry could mint
    expect(h.ok({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: highestIssuable }).highestToken).to.equal(highestIssuable);
  });

  it('refuses token 0 and oversize values with INVALID_ARGUMENT', () => {
    const h = setup();
    expect(h.fail({ type: 'FenceWrite', key: 'k', value: bytes('x'), token: 0 })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.fail({ type: 'FenceWrite', key: 'k', value: new Uint8Array(65_537), token: 1 })).to.include({
      error: 'INVALID_ARGUMENT',
    });
  });

  it('stores a copy: mutating the caller’s buffer or a read result changes nothing', () => {
    const h = setup();
    const v = bytes('abc');
    h.ok({ type: 'FenceWrite', key: 'k', value: v, token: 1 });
    v[0] = 0;
    const r = h.sm.fenceRead('k');
    r.value[1] = 0;
    expect(text(h.sm.fenceRead('k').value)).to.equal('abc');
  });

  it('fenceReadView answers the stored bytes without a copy, and a later write leaves a view already handed out as it was', () => {
    const h = setup();
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('abc'), token: 1 });
    const view = h.sm.fenceReadView('k');
    expect(view.value, 'the same bytes on a second read: no copy').to.equal(h.sm.fenceReadView('k').value);
    h.ok({ type: 'FenceWrite', key: 'k', value: bytes('xyz'), token: 1 });
    expect(text(view.value), 'the earlier view').to.equal('abc');
    expect(text(h.sm.fenceReadView('k').value)).to.equal('xyz');
    expect(h.sm.fenceReadView('missing')).to.deep.include({ found: false, token: 0 });
  });

  it(`refuses key number ${MAX_FENCE_KEYS + 1} with RESOURCE_EXHAUSTED, but existing keys stay writable`, () => {
    const h = new Harness(new LockStateMachine());
    // Many holders, each within its own per-lease quota, fill the store.
    let k = 0;
    for (let l = 0; k < MAX_FENCE_KEYS; l++) {
      const token = h.acquire(`l${l}`, h.grant(60_000)).token;
      for (let i = 0; i < MAX_FENCE_KEYS_PER_LEASE && k < MAX_FENCE_KEYS; i++) h.ok({ type: 'FenceWrite', key: `k${k++}`, value: bytes(''), token });
    }
    const token = h.acquire('last', h.grant(60_000)).token;
    const r = h.fail({ type: 'FenceWrite', key: 'one-more', value: bytes(''), token });
    expect(r).to.include({ error: 'RESOURCE_EXHAUSTED' });
    expect(r.message).to.contain(`${MAX_FENCE_KEYS} keys (the limit for the whole cluster)`);
    h.ok({ type: 'FenceWrite', key: 'k0', value: bytes('again'), token });
  });

  it('the seed scenario: a paused holder’s write after its lease expired is rejected', () => {
    const h = new Harness();
    const paused = h.grant(500, 100);
    const other = h.grant(500, 100);
    const t1 = h.acquire('job', paused).token;
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('from-1'), token: t1 });
    h.acquire('job', other, true);
    // paused stops sending keepalives; other keeps renewing.
    for (let i = 0; i < 7; i++) h.tick(100, [other], 100);
    expect(h.sm.hasLease(paused)).to.equal(false);
    const t2 = h.sm.inspectLock('job').token;
    expect(t2).to.be.greaterThan(t1);
    h.ok({ type: 'FenceWrite', key: 'out', value: bytes('from-2'), token: t2 });
    expect(h.fail({ type: 'FenceWrite', key: 'out', value: bytes('late-1'), token: t1 })).to.include({
      error: 'FAILED_PRECONDITION',
      highestToken: t2,
    });
    expect(text(h.sm.fenceRead('out').value)).to.equal('from-2');
  });
});
