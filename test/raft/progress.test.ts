// Direct tests of src/raft/progress.ts: the in-flight window (etcd's tracker/inflights_test.go) and the
// leader's per-follower state machine probe ⇄ replicate ⇄ snapshot (etcd's tracker/progress_test.go).
import { expect } from 'chai';
import { Inflights, Progress } from '../../src/raft/progress.js';

/** A progress in `state`, built the way the leader gets there. */
function progress(state: 'probe' | 'replicate' | 'snapshot', match: number, next: number, window = 4, snapshotAt = 0): Progress {
  const pr = new Progress(match, next, window);
  if (state === 'replicate') {
    pr.becomeReplicate();
    pr.next = next; // pipelined Apps moved it past match + 1
  } else if (state === 'snapshot') {
    pr.becomeSnapshot(snapshotAt);
  }
  return pr;
}

/** The window's contents, oldest first (private: read here only to check what a free kept). */
const lastsOf = (w: Inflights): number[] => [...(w as unknown as { lasts: number[] }).lasts];

describe('raft progress (src/raft/progress.ts)', () => {
  describe('Inflights: the window of unacknowledged Apps', () => {
    it('fills up to its capacity, and refuses one more loudly', () => {
      const w = new Inflights(3);
      for (const [last, count, full] of [
        [5, 1, false],
        [7, 2, false],
        [9, 3, true],
      ] as const) {
        w.add(last);
        expect([w.count(), w.full()], `after add(${last})`).to.deep.equal([count, full]);
      }
      expect(() => w.add(10)).to.throw(/window of 3 is full/);
      expect(w.count()).to.equal(3);
    });

    // freeLE(i): an ack up to i frees every App whose last index is ≤ i, oldest first.
    const frees: Array<[string, number[], number, number[]]> = [
      ['below the oldest: nothing', [5, 7, 9], 4, [5, 7, 9]],
      ['exactly the oldest', [5, 7, 9], 5, [7, 9]],
      ['between two: the older ones', [5, 7, 9], 8, [9]],
      ['exactly the newest: all', [5, 7, 9], 9, []],
      ['past the newest: all', [5, 7, 9], 100, []],
      ['an empty window stays empty', [], 3, []],
      // Equal lasts (an App carrying nothing new after a heartbeat resume) go together.
      ['repeated lasts go together', [5, 5, 6], 5, [6]],
    ];
    for (const [name, lasts, ack, left] of frees) {
      it(`freeLE: ${name}`, () => {
        const w = new Inflights(8);
        for (const l of lasts) w.add(l);
        w.freeLE(ack);
        expect(lastsOf(w)).to.deep.equal(left);
        expect(w.count()).to.equal(left.length);
      });
    }

    it('a full window has room again after a free, and after reset', () => {
      const w = new Inflights(2);
      w.add(1);
      w.add(2);
      expect(w.full()).to.equal(true);
      w.freeLE(1);
      expect(w.full()).to.equal(false);
      w.add(3);
      expect(w.full()).to.equal(true);
      w.reset();
      expect([w.count(), w.full()]).to.deep.equal([0, false]);
    });

    it('a window of one is full after a single App', () => {
      const w = new Inflights(1);
      w.add(4);
      expect(w.full()).to.equal(true);
      w.freeLE(3);
      expect(w.full()).to.equal(true);
      w.freeLE(4);
      expect(w.full()).to.equal(false);
    });
  });

  describe('state transitions', () => {
    // [name, from, match, next, pendingSnapshot (snapshot state), → to, next after]
    const transitions: Array<[string, 'probe' | 'replicate' | 'snapshot', number, number, number, 'probe' | 'replicate', number]> = [
      ['replicate → probe: next back to match + 1', 'replicate', 5, 9, 0, 'probe', 6],
      ['probe → replicate: next = match + 1', 'probe', 5, 9, 0, 'replicate', 6],
      ['snapshot → probe: right after the snapshot when it is ahead of match', 'snapshot', 3, 4, 10, 'probe', 11],
      ['snapshot → probe: right after match when the follower got further', 'snapshot', 12, 13, 10, 'probe', 13],
      ['probe → probe: next = match + 1', 'probe', 2, 7, 0, 'probe', 3],
    ];
    for (const [name, from, match, next, snap, to, wantNext] of transitions) {
      it(name, () => {
        const pr = progress(from, match, next, 4, snap);
        pr.inflights.add(next); // something in flight: a transition forgets it
        if (to === 'probe') pr.becomeProbe();
        else pr.becomeReplicate();
        expect({
          state: pr.state,
          next: pr.next,
          match: pr.match,
          paused: pr.paused,
          pendingSnapshot: pr.pendingSnapshot,
          inflight: pr.inflights.count(),
        }).to.deep.equal({ state: to, next: wantNext, match, paused: false, pendingSnapshot: 0, inflight: 0 });
      });
    }

    it('→ snapshot: remembers the snapshot index, restarts its timer, empties the window, and pauses', () => {
      const pr = progress('replicate', 3, 6);
      pr.inflights.add(5);
      pr.snapshotTicks = 7;
      pr.becomeSnapshot(20);
      expect({ state: pr.state, pending: pr.pendingSnapshot, ticks: pr.snapshotTicks, inflight: pr.inflights.count(), paused: pr.isPaused() }).to.deep.equal({
        state: 'snapshot',
        pending: 20,
        ticks: 0,
        inflight: 0,
        paused: true,
      });
    });
  });

  describe('sending: sentApp and isPaused', () => {
    it('probe: one App, then paused until an answer', () => {
      const pr = progress('probe', 0, 1);
      expect(pr.isPaused()).to.equal(false);
      pr.sentApp(3);
      expect([pr.isPaused(), pr.next]).to.deep.equal([true, 1]); // probe does not move next optimistically
      pr.maybeUpdate(3);
      expect([pr.isPaused(), pr.match, pr.next]).to.deep.equal([false, 3, 4]);
    });

    it('replicate: pipelines, moving next, until the window is full', () => {
      const pr = progress('replicate', 0, 1, 3);
      for (const [last, paused] of [
        [2, false],
        [4, false],
        [6, true],
      ] as const) {
        pr.sentApp(last);
        expect([pr.next, pr.isPaused()], `after an App ending at ${last}`).to.deep.equal([last + 1, paused]);
      }
      pr.maybeUpdate(2);
      pr.inflights.freeLE(2);
      pr.paused = pr.inflights.full(); // what the leader does after freeing
      expect([pr.inflights.count(), pr.isPaused()]).to.deep.equal([2, false]);
    });

    it('replicate: an empty App (a window-full probe) takes no slot and leaves next alone', () => {
      const pr = progress('replicate', 4, 5, 2);
      pr.sentApp(undefined);
      expect([pr.next, pr.inflights.count(), pr.isPaused()]).to.deep.equal([5, 0, false]);
    });

    it('snapshot: always paused, whatever the flag says', () => {
      const pr = progress('snapshot', 0, 1, 4, 10);
      pr.paused = false;
      expect(pr.isPaused()).to.equal(true);
    });
  });

  describe('maybeUpdate: an acknowledgment', () => {
    // [name, match, next, ack, updated, match after, next after]
    const acks: Array<[string, number, number, number, boolean, number, number]> = [
      ['a stale ack changes nothing', 5, 8, 3, false, 5, 8],
      ['an ack of match itself is not an update', 5, 8, 5, false, 5, 8],
      ['a new ack below next moves match only', 5, 8, 6, true, 6, 8],
      ['a new ack at next − 1', 5, 8, 7, true, 7, 8],
      ['an ack past next moves next too', 5, 8, 10, true, 10, 11],
    ];
    for (const [name, match, next, ack, updated, wantMatch, wantNext] of acks) {
      it(name, () => {
        const pr = progress('probe', match, next);
        pr.paused = true;
        expect(pr.maybeUpdate(ack)).to.equal(updated);
        expect([pr.match, pr.next, pr.paused]).to.deep.equal([wantMatch, wantNext, !updated]);
      });
    }
  });

  describe('maybeDecrTo: a rejection', () => {
    // [name, state, match, next, rejected, hint, → accepted, next after]
    const rejects: Array<[string, 'probe' | 'replicate', number, number, number, number, boolean, number]> = [
      // replicate: only a rejection above match is news; next drops back to match + 1.
      ['replicate: rejected at or below match is stale', 'replicate', 5, 10, 5, 5, false, 10],
      ['replicate: rejected below match is stale', 'replicate', 5, 10, 3, 3, false, 10],
      ['replicate: rejected above match → next = match + 1', 'replicate', 5, 10, 7, 2, true, 6],
      // probe: only the rejection of the App we sent (next − 1) counts.
      ['probe: not the App at next − 1 is stale', 'probe', 0, 10, 5, 5, false, 10],
      ['probe: the hint moves next back', 'probe', 0, 10, 9, 4, true, 5],
      ['probe: a hint past the rejected index is capped by it', 'probe', 0, 10, 9, 20, true, 9],
      ['probe: never below match + 1', 'probe', 3, 10, 9, 1, true, 4],
      ['probe: hint 0 goes back to the start', 'probe', 0, 10, 9, 0, true, 1],
    ];
    for (const [name, state, match, next, rejected, hint, accepted, wantNext] of rejects) {
      it(name, () => {
        const pr = progress(state, match, next);
        if (state === 'probe') pr.paused = true;
        expect(pr.maybeDecrTo(rejected, hint)).to.equal(accepted);
        expect(pr.next).to.equal(wantNext);
        expect(pr.match).to.equal(match);
        if (state === 'probe') expect(pr.paused, 'an accepted probe rejection resumes sending').to.equal(!accepted);
      });
    }
  });

  it('view() shows what the leader reports in Status', () => {
    const pr = progress('replicate', 3, 7);
    pr.recentActive = true;
    expect(pr.view()).to.deep.equal({ match: 3, next: 7, state: 'replicate', recentActive: true, inflight: 0 });
  });
});
