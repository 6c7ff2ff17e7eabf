// Direct tests of src/raft/read-only.ts: the ReadIndex queue a leader keeps until a quorum's
// heartbeat acks confirm it still leads.
import { expect } from 'chai';
import { ReadOnlyQueue } from '../../src/raft/read-only.js';

describe('raft read-only queue (src/raft/read-only.ts)', () => {
  it("counts the leader's own ack when it is a voter, and each acker once", () => {
    const q = new ReadOnlyQueue();
    q.add(5, 'r1', 'a');
    expect(q.recvAck('b', 'r1')).to.equal(2);
    expect(q.recvAck('b', 'r1'), 'a duplicate ack').to.equal(2);
    expect(q.recvAck('c', 'r1')).to.equal(3);
  });

  it('a leader outside its configuration adds no ack of its own', () => {
    const q = new ReadOnlyQueue();
    q.add(5, 'r1', undefined);
    expect(q.recvAck('b', 'r1')).to.equal(1);
  });

  it('an ack for an unknown context counts nothing', () => {
    expect(new ReadOnlyQueue().recvAck('b', 'nope')).to.equal(0);
  });

  it('advance releases the context and every one queued before it, in order, each at its own index', () => {
    const q = new ReadOnlyQueue();
    q.add(5, 'r1', 'a');
    q.add(6, 'r2', 'a');
    q.add(7, 'r3', 'a');
    expect(q.lastPendingContext()).to.equal('r3');
    expect(q.advance('r2')).to.deep.equal([
      { index: 5, context: 'r1' },
      { index: 6, context: 'r2' },
    ]);
    expect(q.lastPendingContext()).to.equal('r3');
    expect(q.advance('r2'), 'already released').to.deep.equal([]);
    expect(q.recvAck('b', 'r1'), 'a late ack of a released read').to.equal(0);
  });

  it('a duplicate context keeps the first request (its index)', () => {
    const q = new ReadOnlyQueue();
    q.add(5, 'r1', 'a');
    q.add(9, 'r1', 'a');
    expect(q.advance('r1')).to.deep.equal([{ index: 5, context: 'r1' }]);
  });

  it('clear forgets everything (a leader that steps down answers none of them)', () => {
    const q = new ReadOnlyQueue();
    q.add(5, 'r1', 'a');
    q.clear();
    expect(q.lastPendingContext()).to.equal('');
    expect(q.advance('r1')).to.deep.equal([]);
  });
});
