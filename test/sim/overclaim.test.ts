// A snapshot fast-forward overclaim, scripted through the simulator's parts (real driver loops, Disk, Checker): a follower that
// already holds a snapshot's last entry, with a stale tail of an older term after it, receives that snapshot
// from a newer leader. It must answer with its commit (= the snapshot index); with the planted bug
// 'snapshot-fast-forward-overclaim' it answers its last index, and the simulator's Ack Matches Leader check
// reports it at the moment it is sent. (Random seeds reach it only with RaftConfig.snapshotOnReject: our default
// leader probes back instead of sending this Snap, see docs/testing.md §2; sim.test.ts hunts it that way.)
import { expect } from 'chai';
import { message, type PlantedBug } from '../../src/raft/types.js';
import { Violation } from './checkers.js';
import { ScriptedCluster, msgs } from './scripted.js';

const vote = (m: { type: string }) => m.type === 'Vote' || m.type === 'VoteResp';

/** Up to the Snap: n3 holds 1..5@1 (commit 4) and 6..8@2; n1 leads term 3 with a snapshot at 5@1. */
function setup(bug?: PlantedBug): { c: ScriptedCluster; sendSnap: () => void } {
  const c = new ScriptedCluster(5, { maxSizePerMsg: 1, snapshotEvery: 5 }, bug);
  const status = (id: string) => c.node(id).mustRun().status();

  // Term 1: n1 leads; 1..4 committed everywhere.
  c.campaign('n1');
  c.deliver();
  for (const d of ['a', 'b', 'c']) c.propose('n1', d);
  c.deliver();
  // Entry 5 reaches everyone, but only n4 and n5 hear that it committed (n2 and n3 stay at commit 4).
  c.propose('n1', 'd');
  c.deliver((m) => m.type === 'AppResp' || (m.type === 'App' && m.entries.length > 0) || m.to === 'n4' || m.to === 'n5');
  c.drop();
  expect(status('n1')).to.include({ role: 'leader', term: 1, commit: 5 });
  expect(c.node('n1').storage!.memory.snapshot().metadata).to.include({ index: 5, term: 1 });
  expect(status('n3')).to.include({ commit: 4, lastIndex: 5 });

  // Term 2: n2 leads, writes 6..8@2 to n3 only (two of five: nothing commits), and crashes.
  c.campaign('n2');
  c.deliver(vote);
  c.propose('n2', 'x');
  c.propose('n2', 'y');
  c.deliver((m) => (m.from === 'n2' && m.to === 'n3') || (m.from === 'n3' && m.to === 'n2'));
  c.drop();
  c.crash('n2');
  expect(status('n3')).to.include({ term: 2, commit: 4, lastIndex: 8 });

  // Term 3: n1 wins with n4 and n5 (n3's log is longer); nothing of term 3 reaches n3.
  c.campaign('n1');
  c.deliver(vote);
  c.drop();
  expect(status('n1')).to.include({ role: 'leader', term: 3, lastIndex: 6 });

  // n1's snapshot (5@1) reaches n3: a Snap of term 3 it holds the last entry of.
  const sendSnap = () => {
    c.outbox.push(message({ type: 'Snap', from: 'n1', to: 'n3', term: 3, snapshot: c.node('n1').storage!.memory.snapshot() }));
    c.deliver(msgs('Snap', 'n1', 'n3'));
  };
  return { c, sendSnap };
}

describe('simulator: snapshot fast-forward on a follower with a stale tail (a snapshot fast-forward overclaim)', () => {
  it('with the planted bug, the follower acknowledges its stale tail: Ack Matches Leader', () => {
    const { sendSnap } = setup('snapshot-fast-forward-overclaim');
    expect(sendSnap).to.throw(Violation).with.property('check', 'Ack Matches Leader');
  });

  it('without it, the follower acknowledges the snapshot index, is repaired, and all nodes agree', () => {
    const { c, sendSnap } = setup();
    sendSnap();
    const ack = c.outbox.find((m) => m.type === 'AppResp' && m.from === 'n3');
    expect(ack).to.include({ to: 'n1', term: 3, index: 5, reject: false });
    c.deliver();
    c.tick('n1'); // a heartbeat: n3's answer gets it probed and repaired
    c.deliver();
    c.tick('n1'); // the next heartbeat carries the commit index (no commit-only App)
    c.deliver();
    const n3 = c.node('n3').mustRun().status();
    expect(n3).to.include({ term: 3, lastIndex: 6, commit: 6 });
    expect(c.node('n3').disk.cached.term(6)).to.equal(3);
  });
});
