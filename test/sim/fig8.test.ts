// Raft paper fig. 8, scripted: a leader must not commit an entry of an earlier term by counting replicas.
// With the planted bug the simulator's Leader Completeness check fires at the moment the overwriting leader
// is elected; without it the same script runs clean (the old entry was never committed, so losing it is fine).
import { expect } from 'chai';
import type { PlantedBug } from '../../src/raft/types.js';
import { Violation } from './checkers.js';
import { ScriptedCluster, msgs } from './scripted.js';

const vote = (m: { type: string }) => m.type === 'Vote' || m.type === 'VoteResp';

/** Runs fig. 8 up to the last election; returns the cluster and a function that runs that election. */
function figure8(bug?: PlantedBug): { c: ScriptedCluster; electN3: () => void } {
  // One entry per App, so an old entry can reach a follower without the new leader's no-op.
  const c = new ScriptedCluster(3, { maxSizePerMsg: 1 }, bug);
  const status = (id: string) => c.node(id).mustRun().status();

  // Term 1: n1 leads; its no-op (index 1) is committed everywhere.
  c.campaign('n1');
  c.deliver();
  expect(status('n1')).to.include({ role: 'leader', term: 1, commit: 1 });

  // n1 appends "entry e" at index 2 (term 1) and crashes before sending it.
  expect(c.propose('n1', 'entry e')).to.deep.equal({ index: 2, term: 1 });
  c.crash('n1');

  // Term 2: n3 wins with n2's vote, writes its no-op at index 2 (term 2), and crashes before sending it.
  c.campaign('n3');
  c.deliver(vote);
  expect(status('n3')).to.include({ role: 'leader', term: 2, lastIndex: 2 });
  c.crash('n3');

  // Term 3: n1 comes back and wins with n2's vote (n1's log ends 2@1, n2's ends 1@1).
  c.restart('n1');
  c.campaign('n1'); // term 2: n2 already voted for n3
  c.deliver(vote);
  c.campaign('n1'); // term 3
  c.deliver(vote);
  expect(status('n1')).to.include({ role: 'leader', term: 3, lastIndex: 3 });

  // n1 probes n2 with its no-op (rejected: n2 lacks index 2), then sends "e" alone; n2 acknowledges index 2.
  c.deliver(msgs('App', 'n1', 'n2'), 1);
  c.deliver(msgs('AppResp', 'n2', 'n1'), 1);
  c.deliver(msgs('App', 'n1', 'n2'), 1);
  c.deliver(msgs('AppResp', 'n2', 'n1'), 1);
  // Correct Raft does not commit "e" (term 1) on that count; the bug does.
  expect(status('n1').commit).to.equal(bug === 'commit-previous-term-by-count' ? 2 : 1);

  // n1 crashes before its no-op reaches n2.
  c.crash('n1');

  // Term 4: n3 comes back and can win with n2's vote (n3's log ends 2@2, n2's ends 2@1).
  c.restart('n3');
  const electN3 = () => {
    c.campaign('n3'); // term 3: n2 already voted for n1
    c.deliver(vote);
    c.campaign('n3'); // term 4
    c.deliver(vote);
  };
  return { c, electN3 };
}

describe('simulator: Raft fig. 8 scripted (commit only current-term entries by counting)', () => {
  it('with the planted bug, the new leader lacks a "committed" entry: Leader Completeness', () => {
    const { electN3 } = figure8('commit-previous-term-by-count');
    expect(electN3).to.throw(Violation).with.property('check', 'Leader Completeness');
  });

  it('without it, the same schedule is safe: the uncommitted entry is replaced and all nodes agree', () => {
    const { c, electN3 } = figure8();
    electN3();
    expect(c.node('n3').mustRun().status()).to.include({ role: 'leader', term: 4 });
    c.deliver();
    c.restart('n1');
    c.propose('n3', 'entry f');
    c.tick('n3'); // a heartbeat: n1's answer gets it probed and caught up
    c.deliver();
    c.tick('n3'); // the next heartbeat carries the commit index (no commit-only App)
    c.deliver();
    const apps = c.nodes.map((n) => n.app);
    expect(apps[0].index).to.equal(4); // 1: no-op@1, 2: n3's no-op@2 (replacing "entry e"), 3: no-op@4, 4: "entry f"
    for (const a of apps) expect(a).to.deep.equal(apps[0]);
  });
});
