// Election tables in the manner of etcd's raft_test.go (TestLeaderElection, TestLeaderCycle,
// TestLeaderElectionOverwriteNewerLogs), our own shapes and logs; and the membership side of "who
// campaigns, and whose votes count" (thesis §4.2.2), which a removal not yet committed makes subtle.
import { expect } from 'chai';
import { MemoryStorage, type NodeId, type RaftConfig } from '../../src/raft/index.js';
import { TestCluster, ents } from './harness.js';

interface Start {
  log?: string;
  term?: number;
  vote?: NodeId;
  commit?: number;
}

/** A cluster of `ids` whose nodes start from these stored states (a fresh node where none is given). */
function clusterOf(ids: NodeId[], starts: Record<NodeId, Start> = {}, overrides: Partial<RaftConfig> = {}): TestCluster {
  return new TestCluster(ids, overrides, 1, (id) => {
    const s = new MemoryStorage(ids);
    const st = starts[id] ?? {};
    if (st.log) s.append(ents(st.log));
    s.setHardState({ term: st.term ?? 0, vote: st.vote ?? '', commit: st.commit ?? 0 });
    return s;
  });
}

const storedTerms = (s: MemoryStorage): string => {
  const out: number[] = [];
  for (let i = s.firstIndex(); i <= s.lastIndex(); i++) out.push(s.term(i)!);
  return out.join(',');
};

describe('raft elections', () => {
  describe('who wins (etcd TestLeaderElection): a campaigns once, some nodes are down', () => {
    // [name, voters, down, stored states, → a's role and term after]. PreVote is on: a pre-candidate
    // that cannot win changes no term (its own included) and stays a pre-candidate until it hears.
    const cases: Array<[string, NodeId[], NodeId[], Record<NodeId, Start>, string]> = [
      ['one voter: leader at once', ['a'], [], {}, 'leader 1'],
      ['three, all up', ['a', 'b', 'c'], [], {}, 'leader 1'],
      ['three, one down: still a majority', ['a', 'b', 'c'], ['c'], {}, 'leader 1'],
      ['three, two down: no majority, no term spent', ['a', 'b', 'c'], ['b', 'c'], {}, 'precandidate 0'],
      ['four, one down: 3 of 4', ['a', 'b', 'c', 'd'], ['d'], {}, 'leader 1'],
      ['four, two down: 2 of 4 is not a majority', ['a', 'b', 'c', 'd'], ['c', 'd'], {}, 'precandidate 0'],
      ['five, two down', ['a', 'b', 'c', 'd', 'e'], ['d', 'e'], {}, 'leader 1'],
      // Logs decide (Raft §5.4.1): the others' logs are further along in the same term: every one
      // refuses, and a learns nothing of a higher term (the pre-votes are answered at a's term).
      ['three, both others further along: refused by all', ['a', 'b', 'c'], [], { b: { log: '1@1', term: 1 }, c: { log: '1@1', term: 1 } }, 'follower 1'],
      ['three, one other further along: the third grants', ['a', 'b', 'c'], [], { a: { term: 1 }, b: { log: '1@1', term: 1 }, c: { term: 1 } }, 'leader 2'],
      // A refusal at a higher term than a's makes a follow that term: its next campaign is for the one after.
      [
        'three, one other further along at a higher term: its refusal comes first, a takes its term',
        ['a', 'b', 'c'],
        [],
        { b: { log: '1@1', term: 1 } },
        'follower 1',
      ],
      // A vote given in a term is kept: b and c voted for c in term 1 (a heard nothing of it).
      [
        'b and c voted for c in term 1: they refuse a pre-vote for term 1, and a learns the term',
        ['a', 'b', 'c'],
        [],
        { b: { term: 1, vote: 'c' }, c: { term: 1, vote: 'c' } },
        'follower 1',
      ],
    ];
    for (const [name, ids, down, starts, want] of cases) {
      it(name, () => {
        const c = clusterOf(ids, starts);
        for (const id of down) c.isolate(id);
        c.elect('a');
        const st = c.node('a').raft.status();
        expect(`${st.role} ${st.term}`).to.equal(want);
        // Election safety: never two leaders of one term.
        const leaders = [...c.nodes.values()].map((n) => n.raft.status()).filter((s) => s.role === 'leader');
        expect(new Set(leaders.map((s) => s.term)).size).to.equal(leaders.length);
      });
    }
  });

  it('every node can lead in turn (etcd TestLeaderCycle): each campaign wins and the others follow', () => {
    const ids = ['a', 'b', 'c'];
    // CheckQuorum off: no lease, so a follower that hears the leader still answers a campaign.
    const c = clusterOf(ids, {}, { checkQuorum: false });
    for (let round = 0; round < 2; round++) {
      for (const id of ids) {
        c.elect(id);
        expect(c.leaders()).to.deep.equal([id]);
        for (const other of ids) expect(c.node(other).raft.status().leader, `${other} follows ${id}`).to.equal(id);
        c.propose(id, `${id}${round}`);
      }
    }
    // One entry per term (the no-op) plus the proposal, on every node, the same.
    const logs = ids.map((id) => storedTerms(c.node(id).storage));
    expect(new Set(logs).size).to.equal(1);
    expect(logs[0]).to.equal('1,1,2,2,3,3,4,4,5,5,6,6');
  });

  it('a new leader overwrites higher-term entries it lacks (etcd TestLeaderElectionOverwriteNewerLogs)', () => {
    // a won term 1 and replicated 1@1 to b only; c won term 2 (with d and e) and wrote 1@2 only
    // locally; d and e voted for c but got nothing. Everyone's entry at 1 is uncommitted.
    const c = clusterOf(['a', 'b', 'c', 'd', 'e'], {
      a: { log: '1@1', term: 1, vote: 'a' },
      b: { log: '1@1', term: 1, vote: 'a' },
      c: { log: '1@2', term: 2, vote: 'c' },
      d: { term: 2, vote: 'c' },
      e: { term: 2, vote: 'c' },
    });
    // a's pre-vote for term 2: d and e voted in term 2 already, c's log is newer. Only b grants; the
    // refusals carry term 2, which a takes (it learns the term it missed).
    c.elect('a');
    expect(c.node('a').raft.status()).to.include({ role: 'follower', term: 2 });
    // Again, for term 3: d and e grant now (a's 1@1 is at least as up to date as their empty logs).
    c.elect('a');
    expect(c.node('a').raft.status()).to.include({ role: 'leader', term: 3 });
    // Its no-op at 2@3 commits with b, d, e, and c's 1@2 is overwritten by a's 1@1; the next
    // heartbeat tells everyone the commit.
    c.node('a').raft.tick();
    c.stabilize();
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      expect(storedTerms(c.node(id).storage), id).to.equal('1,3');
      expect(c.node(id).raft.status().commit, id).to.equal(2);
    }
  });

  it("a leader its own log removes counts nothing of its own: not its vote, not its ack; it steps down at the removal's commit", () => {
    // b's log ends with "remove b" (2@1, not committed): in effect there, voters {a, c}.
    const removeB = {
      index: 2,
      term: 1,
      type: 'config' as const,
      data: new TextEncoder().encode(JSON.stringify({ op: 'remove', node: 'b', voters: ['a', 'c'], learners: [], removed: ['b'] })),
    };
    const c = new TestCluster(['a', 'b', 'c'], {}, 1, (id) => {
      const s = new MemoryStorage(['a', 'b', 'c']);
      s.append(id === 'b' ? [...ents('1@1'), removeB] : ents('1@1'));
      s.setHardState({ term: 1, vote: '', commit: 1 });
      return s;
    });
    // With c down, a's vote alone is not a majority of {a, c}: b's own does not count.
    c.isolate('c');
    c.elect('b');
    expect(c.node('b').raft.status().role).to.equal('precandidate');
    c.heal();
    // Its no-op (3@2) reaches a and c, but c's acks are lost: on b's disk and a's is not a majority of {a, c}.
    c.filter = (m) => !(m.from === 'c' && m.type === 'AppResp');
    c.elect('b');
    expect(c.node('b').raft.status()).to.include({ role: 'leader', term: 2 });
    c.node('b').raft.tick();
    c.stabilize();
    expect(c.node('b').raft.status()).to.include({ role: 'leader', commit: 1 });
    expect(c.node('b').raft.status().progress.get('a')?.match).to.equal(3);
    // c's ack commits 3, and with it b's removal: b tells the others the commit, and steps down.
    c.filter = () => true;
    c.node('b').raft.tick();
    c.stabilize();
    expect(c.node('b').raft.status()).to.include({ role: 'follower', commit: 3, selfRemoved: true });
    for (const id of ['a', 'c']) expect(c.node(id).raft.status().commit, id).to.equal(3);
  });

  describe('who campaigns: a voter of any configuration from the committed one on (thesis §4.2.2)', () => {
    // Voters {a, x}; the stored log: 1 a no-op, 2 "addLearner l" (committed), then the config
    // entries of the row from 3 on. [name, the node, entries from 3, commit, → campaigns?]
    const conf = (op: string, node: string, voters: string, learners = '', removed = '') =>
      JSON.stringify({
        op,
        node,
        voters: voters.split(',').filter(Boolean),
        learners: learners.split(',').filter(Boolean),
        removed: removed.split(',').filter(Boolean),
      });
    const cases: Array<[string, NodeId, string[], number, boolean]> = [
      ['a voter of the effective configuration', 'x', [], 2, true],
      ['removed by its own log, not committed: it may still be needed', 'x', [conf('remove', 'x', 'a', 'l', 'x')], 2, true],
      ['removed, and the removal committed', 'x', [conf('remove', 'x', 'a', 'l', 'x')], 3, false],
      ['a learner', 'l', [], 2, false],
      ['a learner promoted by an entry not committed: a voter in effect', 'l', [conf('promote', 'l', 'a,x,l')], 2, true],
      ['a learner removed, not committed: it never was a voter', 'l', [conf('remove', 'l', 'a,x', '', 'l')], 2, false],
      // Both committed at the leader, not yet here: l was a voter from 3 until its removal at 4.
      ['promoted at 3, removed at 4, commit 2: a voter of the one at 3', 'l', [conf('promote', 'l', 'a,x,l'), conf('remove', 'l', 'a,x', '', 'l')], 2, true],
      ['the same, commit 3: a voter of the committed one', 'l', [conf('promote', 'l', 'a,x,l'), conf('remove', 'l', 'a,x', '', 'l')], 3, true],
      ['the same, commit 4: its removal committed', 'l', [conf('promote', 'l', 'a,x,l'), conf('remove', 'l', 'a,x', '', 'l')], 4, false],
    ];
    for (const [name, self, confs, commit, campaigns] of cases) {
      it(`${name}: ${campaigns ? 'campaigns' : 'does not'}`, () => {
        const storage = new MemoryStorage(['a', 'x']);
        const entry = (index: number, data: string) => ({ index, term: 1, type: 'config' as const, data: new TextEncoder().encode(data) });
        storage.append([
          { index: 1, term: 1, data: new Uint8Array(0) },
          entry(2, conf('addLearner', 'l', 'a,x', 'l')),
          ...confs.map((d, k) => entry(3 + k, d)),
        ]);
        storage.setHardState({ term: 1, vote: '', commit });
        const c = new TestCluster([self], {}, 1, () => storage);
        const n = c.node(self);
        n.raft.campaign();
        c.flushReady();
        expect(n.raft.status().role).to.equal(campaigns ? 'precandidate' : 'follower');
        // And the same on its own timer.
        for (let k = 0; k < 30; k++) n.raft.tick();
        c.flushReady();
        expect(n.raft.status().role).to.equal(campaigns ? 'precandidate' : 'follower');
      });
    }
  });
});
