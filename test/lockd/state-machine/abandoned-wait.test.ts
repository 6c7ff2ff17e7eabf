// CancelWait with abandonedAtIndex: the cleanup of an abandoned waiting Acquire (the service's
// lock-waits.ts) touches only a wait or grant no later call of the lease was handed
// (test/faults/README.md, bug 1).
import { expect } from 'chai';
import { LockStateMachine, decodeCommand, encodeCommand, tokenIndex } from '../../../src/lockd/state-machine/index.js';
import { Harness, tok } from './harness.js';

/** H holds x; L waits for x (the abandoned call's Acquire is entry `queuedAt`). */
function setup(requestId?: string) {
  const h = new Harness();
  const H = h.grant();
  const L = h.grant();
  const tH = h.acquire('x', H).token;
  const queuedAt = h.next;
  expect(h.acquire('x', L, true, requestId).status).to.equal('queued');
  return { h, H, L, tH, queuedAt };
}

// Like the service's cleanup, naming the abandoned Acquire's request id (none if it had none).
const cancel = (h: Harness, leaseId: number, abandonedAtIndex: number, acquireRequestId?: string) =>
  h.ok({ type: 'CancelWait', name: 'x', leaseId, abandonedAtIndex, acquireRequestId });

describe('state machine: CancelWait of an abandoned call (abandonedAtIndex)', () => {
  it('plain abandon, still queued: the lease leaves the queue', () => {
    const { h, L, queuedAt } = setup();
    expect(cancel(h, L, queuedAt)).to.deep.equal({ type: 'CancelWait', ok: true, removed: true, heldToken: 0, released: false });
    expect(h.lastEvents()).to.deep.equal([['WAIT_CANCELLED', 'x', L, 0]]);
    expect(h.sm.inspectLock('x').waitingLeaseIds).to.deep.equal([]);
  });

  it('plain abandon, granted meanwhile: the grant nobody was handed is released in the same entry, and handed on', () => {
    const { h, L, tH, queuedAt } = setup();
    const M = h.grant();
    h.acquire('x', M, true);
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
    const at = h.next;
    expect(cancel(h, L, queuedAt)).to.deep.equal({ type: 'CancelWait', ok: true, removed: false, heldToken: tL, released: true });
    expect(h.lastEvents()).to.deep.equal([
      ['RELEASED', 'x', L, tL],
      ['ACQUIRED', 'x', M, tok(at)],
    ]);
    expect(h.sm.timeToLive(L)?.locks).to.deep.equal([]);
  });

  it('a try-lock after the queued grant (the repro): the cancel changes nothing and the try-lock’s token stays valid', () => {
    const { h, L, tH, queuedAt } = setup();
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    expect(h.acquire('x', L, false, 'r2')).to.include({ status: 'acquired', token: tL });
    const before = h.sm.snapshot();
    expect(cancel(h, L, queuedAt)).to.deep.equal({ type: 'CancelWait', ok: true, removed: false, heldToken: 0, released: false });
    expect(h.lastEvents()).to.deep.equal([]);
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
    // Only appliedIndex moved.
    const ref = new Harness(LockStateMachine.fromSnapshot(before));
    ref.noop();
    expect(h.sm.snapshot()).to.deep.equal(ref.sm.snapshot());
    expect(h.ok({ type: 'Release', name: 'x', token: tL }).released).to.equal(true);
  });

  it('a dedup retry of the abandoned request after the abandon keeps the wait: cancel is a no-op, before and after the grant', () => {
    const { h, L, tH, queuedAt } = setup('r1');
    expect(h.acquire('x', L, true, 'r1')).to.include({ status: 'queued', position: 1, duplicate: true });
    expect(cancel(h, L, queuedAt)).to.include({ removed: false, heldToken: 0, released: false });
    expect(h.sm.inspectLock('x').waitingLeaseIds).to.deep.equal([L]);
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    expect(cancel(h, L, queuedAt)).to.include({ removed: false, heldToken: 0, released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
  });

  it('a dedup retry answered "acquired" from the settled record re-asserts the grant', () => {
    const { h, L, tH, queuedAt } = setup('r1');
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    expect(h.acquire('x', L, true, 'r1')).to.include({ status: 'acquired', token: tL, duplicate: true });
    expect(cancel(h, L, queuedAt)).to.include({ heldToken: 0, released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
  });

  it('another waiting call of the lease (a new request id, answered "queued") keeps the wait', () => {
    const { h, L, queuedAt } = setup('r1');
    expect(h.acquire('x', L, true, 'other')).to.include({ status: 'queued', duplicate: false });
    expect(cancel(h, L, queuedAt).removed).to.equal(false);
    expect(h.sm.inspectLock('x').waitingLeaseIds).to.deep.equal([L]);
  });

  it('a try-lock answered "queued" does not wait, so it does not keep the abandoned wait alive', () => {
    const { h, L, queuedAt } = setup();
    expect(h.acquire('x', L, false).status).to.equal('queued');
    expect(cancel(h, L, queuedAt).removed).to.equal(true);
  });

  it('the index must name exactly the last Acquire of the wait: an earlier or later one changes nothing', () => {
    const { h, L } = setup('r1');
    const retryAt = h.next;
    h.acquire('x', L, true, 'r1');
    h.noop();
    expect(cancel(h, L, retryAt - 1, 'r1').removed).to.equal(false);
    expect(cancel(h, L, retryAt + 1, 'r1').removed).to.equal(false);
    expect(h.sm.inspectLock('x').waitingLeaseIds).to.deep.equal([L]);
    expect(cancel(h, L, retryAt, 'r1').removed).to.equal(true);
  });

  it('taking a grant back forgets its dedup record: a late retry is applied afresh, not answered a released token', () => {
    const { h, L, tH, queuedAt } = setup('r1');
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    expect(cancel(h, L, queuedAt, 'r1')).to.include({ heldToken: tL, released: true });
    const again = h.next;
    expect(h.acquire('x', L, true, 'r1')).to.include({ status: 'acquired', token: tok(again), duplicate: false });
  });

  it('an uncertain Acquire that created the lock: released if no later call came, kept if one did', () => {
    const h = new Harness();
    const L = h.grant();
    const createdAt = h.next;
    h.acquire('x', L, true, 'u');
    expect(cancel(h, L, createdAt - 1, 'u')).to.include({ heldToken: 0, released: false }); // the bound precedes the create
    expect(h.sm.inspectLock('x').held).to.equal(true);
    expect(cancel(h, L, createdAt, 'u')).to.include({ heldToken: tok(createdAt), released: true });
    expect(h.sm.inspectLock('x').held).to.equal(false);
    expect(h.lastEvents()).to.deep.equal([['RELEASED', 'x', L, tok(createdAt)]]);
  });

  it('absent or 0 keeps the old behaviour: leave the queue, report a grant, release nothing', () => {
    const { h, L, tH } = setup();
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    h.acquire('x', L); // a later call, ignored without a bound
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: L, abandonedAtIndex: 0 })).to.include({ heldToken: tL, released: false });
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: L })).to.include({ heldToken: tL, released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
  });

  it('a stranger naming an index past every entry (10^12) is refused and frees nothing', () => {
    const { h, L, tH, queuedAt } = setup();
    const tL = tok(h.next);
    h.ok({ type: 'Release', name: 'x', token: tH });
    for (const bound of [() => 1e12, () => h.next]) {
      const f = h.fail({ type: 'CancelWait', name: 'x', leaseId: L, abandonedAtIndex: bound() });
      expect(f).to.include({ error: 'INVALID_ARGUMENT' });
      expect(f.message).to.match(/names no earlier log entry/);
    }
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
    // Any applied index but the grant's own Acquire entry changes nothing either.
    for (const bound of [queuedAt - 1, queuedAt + 1, tokenIndex(tL), h.next - 1])
      expect(cancel(h, L, bound)).to.include({ removed: false, heldToken: 0, released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: L, token: tL });
    expect(h.lastEvents()).to.deep.equal([]);
  });

  it('the old inclusive bound no longer frees a grant a later, delivered call answers: only the exact entry counts', () => {
    // H holds x by a wait on a free name (created at 3); a cleanup bound above that is not H's cleanup.
    const h = new Harness();
    const H = h.grant();
    const at = h.next;
    h.acquire('x', H, true);
    h.noop();
    h.noop();
    expect(cancel(h, H, at + 1)).to.include({ released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: H, token: tok(at) });
  });

  it('a try-lock’s entry is never an abandoned wait’s: naming it (its token’s index, public through Inspect) frees nothing', () => {
    const h = new Harness();
    const H = h.grant();
    const t = h.acquire('x', H, false).token;
    expect(cancel(h, H, tokenIndex(t))).to.include({ removed: false, heldToken: 0, released: false });
    expect(h.sm.inspectLock('x')).to.include({ holderLeaseId: H, token: t });
    // Re-asserted by a waiting Acquire, the grant becomes that call's: its own cleanup may take it back.
    const w = h.next;
    h.acquire('x', H, true);
    expect(cancel(h, H, tokenIndex(t))).to.include({ released: false });
    expect(cancel(h, H, w)).to.include({ released: true, heldToken: t });
  });

  it('unknown lock or lease: nothing to do', () => {
    const { h, L, queuedAt } = setup();
    expect(h.ok({ type: 'CancelWait', name: 'nope', leaseId: L, abandonedAtIndex: queuedAt })).to.include({ removed: false, heldToken: 0, released: false });
    expect(h.ok({ type: 'CancelWait', name: 'x', leaseId: 999, abandonedAtIndex: queuedAt })).to.include({ removed: false, heldToken: 0, released: false });
  });

  it('0 and absent encode alike; a bound survives the codec', () => {
    const plain = encodeCommand({ type: 'CancelWait', name: 'x', leaseId: 4 });
    expect(encodeCommand({ type: 'CancelWait', name: 'x', leaseId: 4, abandonedAtIndex: 0 })).to.deep.equal(plain);
    expect(decodeCommand(encodeCommand({ type: 'CancelWait', name: 'x', leaseId: 4, abandonedAtIndex: 17 }))).to.deep.equal({
      type: 'CancelWait',
      name: 'x',
      leaseId: 4,
      abandonedAtIndex: 17,
    });
  });

  it('refuses a negative or fractional bound (INVALID_ARGUMENT, nothing changed)', () => {
    const { h, L } = setup();
    expect(h.fail({ type: 'CancelWait', name: 'x', leaseId: L, abandonedAtIndex: -1 })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.fail({ type: 'CancelWait', name: 'x', leaseId: L, abandonedAtIndex: 1.5 }).message).to.match(/abandoned_at_index/);
    expect(h.sm.inspectLock('x').waitingLeaseIds).to.deep.equal([L]);
  });

  it('snapshots keep the Acquire indexes and request ids: a restored replica answers every cancel alike', () => {
    // x: held by L (granted from the queue, rid r1, then re-asserted by a try-lock); y: waiters with and without rids.
    const { h, L, tH, queuedAt } = setup('r1');
    h.ok({ type: 'Release', name: 'x', token: tH });
    const tryAt = h.next;
    h.acquire('x', L);
    const A = h.grant();
    const B = h.grant();
    h.acquire('y', A);
    const bAt = h.next;
    h.acquire('y', B, true, 'rb');
    const lAt = h.next;
    h.acquire('y', L, true);
    const doc = JSON.parse(new TextDecoder().decode(h.sm.snapshot().subarray(1))) as { locks: unknown[] };
    expect(doc.locks).to.deep.equal([
      ['x', 1, 0, [[L, tok(queuedAt + 1), false, 0, '', tryAt, false, 'r1', null]], [], false],
      [
        'y',
        1,
        0,
        [[A, tok(bAt - 1), false, 0, '', bAt - 1, false, null, null]],
        [
          [B, bAt, false, 0, '', 'rb', 'rb'],
          [L, lAt, false, 0, '', null, null],
        ],
        false,
      ],
    ]);
    const copy = new Harness(LockStateMachine.fromSnapshot(h.sm.snapshot(), { checkEveryApply: true }));
    expect(copy.sm.snapshot()).to.deep.equal(h.sm.snapshot());
    const probes = [
      { type: 'CancelWait', name: 'x', leaseId: L, abandonedAtIndex: tryAt - 1 },
      { type: 'CancelWait', name: 'y', leaseId: L, abandonedAtIndex: lAt - 1 },
      { type: 'CancelWait', name: 'y', leaseId: B, abandonedAtIndex: bAt, acquireRequestId: 'rb' },
      { type: 'CancelWait', name: 'x', leaseId: L, abandonedAtIndex: tryAt },
      { type: 'Acquire', name: 'x', leaseId: L, wait: true, requestId: 'r1' },
    ] as const;
    for (const p of probes) expect(copy.apply(p)).to.deep.equal(h.apply(p));
    expect(copy.sm.snapshot()).to.deep.equal(h.sm.snapshot());
    // And they did what they should: x kept (tryAt is a try-lock's entry, which no node abandons; r1's
    // grant still holds), B's wait gone, L's kept.
    expect(h.outputs.at(-2)?.result).to.include({ released: false });
    expect(h.outputs.at(-1)?.result).to.include({ status: 'acquired', token: tok(queuedAt + 1), duplicate: true });
    expect(h.sm.inspectLock('y').waitingLeaseIds).to.deep.equal([L]);
  });
});
