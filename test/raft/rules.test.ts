// Rule tables for the protocol's three decisions a reviewer checks line by line, in the manner of
// etcd's raft_test.go (TestRecvMsgVote, TestVoteFromAnyState, TestHandleMsgApp, TestFastLogRejection,
// TestLeaderTransfer*): who grants a vote (term, log up-to-dateness, an earlier vote, a known
// leader, PreVote), what an AppendEntries receiver answers (accept, reject, the conflict hint), and
// when a leader hands over.
import { expect } from 'chai';
import { ConfChangeError, MemoryStorage, RaftNode, message, type Message, type MessageType, type NodeId, type RaftConfig } from '../../src/raft/index.js';
import { TestCluster, ents, seededRandom } from './harness.js';

const enc = (s: string) => new TextEncoder().encode(s);
import { fmtMessage } from './transcript.js';

const at = (s: string): { index: number; logTerm: number } => {
  const [index, logTerm] = s.split('@').map(Number);
  return { index, logTerm };
};

/** Persist every Ready (as a driver would) and return the messages it sends. */
function drain(r: RaftNode, storage: MemoryStorage): Message[] {
  const out: Message[] = [];
  while (r.hasReady()) {
    const rd = r.ready();
    if (rd.hardState) storage.setHardState(rd.hardState);
    if (rd.snapshot) storage.applySnapshot(rd.snapshot);
    storage.append(rd.entries);
    out.push(...rd.messages);
    r.advance(rd);
  }
  return out;
}

/** The stored log, one index@term per entry. */
function stored(s: MemoryStorage): string {
  const out: string[] = [];
  for (let i = s.firstIndex(); i <= s.lastIndex(); i++) out.push(`${i}@${s.term(i)}`);
  return out.join(' ');
}

interface State {
  term: number;
  vote?: NodeId;
  /** A leader this node heard at `term` (a heartbeat just now: it is "in lease"). */
  leader?: NodeId;
  log?: string;
  commit?: number;
  checkQuorum?: boolean;
}

/** Node a of {a, b, c} in the given state, as a follower. */
function follower(st: State, overrides: Partial<RaftConfig> = {}): { r: RaftNode; storage: MemoryStorage } {
  const storage = new MemoryStorage(['a', 'b', 'c']);
  storage.append(ents(st.log ?? '1@1 2@2 3@2'));
  storage.setHardState({ term: st.term, vote: st.vote ?? '', commit: st.commit ?? 0 });
  const r = new RaftNode({
    id: 'a',
    peers: ['a', 'b', 'c'],
    storage,
    electionTicks: 10,
    heartbeatTicks: 1,
    random: seededRandom(7),
    checkQuorum: st.checkQuorum,
    ...overrides,
  });
  if (st.leader) {
    r.step(message({ type: 'Heartbeat', from: st.leader, to: 'a', term: st.term }));
    drain(r, storage);
  }
  return { r, storage };
}

describe('raft rule tables', () => {
  describe('vote requests (Raft §5.2, §5.4.1; thesis §4.2.3 lease, §9.6 PreVote)', () => {
    // Node a's log ends at 3@2. [name, a's state, request from b: type term last [ctx], → a's answer ('' none), a's term and vote after]
    const cases: Array<[string, State, string, string, number, NodeId]> = [
      ['a Vote at a lower term is ignored', { term: 2 }, 'Vote 1 3@2', '', 2, ''],
      ['higher term, log as up to date: granted, term adopted', { term: 2 }, 'Vote 3 3@2', 'a->b VoteResp term=3 granted', 3, 'b'],
      ['higher term, same last term, longer log: granted', { term: 2 }, 'Vote 3 4@2', 'a->b VoteResp term=3 granted', 3, 'b'],
      ['higher term, higher last term though shorter: granted', { term: 2 }, 'Vote 3 2@3', 'a->b VoteResp term=3 granted', 3, 'b'],
      ['higher term, same last term, shorter log: refused, term still adopted', { term: 2 }, 'Vote 3 2@2', 'a->b VoteResp term=3 rejected', 3, ''],
      ['higher term, lower last term however long: refused', { term: 2 }, 'Vote 3 9@1', 'a->b VoteResp term=3 rejected', 3, ''],
      ['same term, already voted for it: granted again (a retransmission)', { term: 2, vote: 'b' }, 'Vote 2 3@2', 'a->b VoteResp term=2 granted', 2, 'b'],
      ['same term, already voted for another: refused', { term: 2, vote: 'c' }, 'Vote 2 3@2', 'a->b VoteResp term=2 rejected', 2, 'c'],
      ['same term, no vote and no leader: granted', { term: 2 }, 'Vote 2 3@2', 'a->b VoteResp term=2 granted', 2, 'b'],
      ['same term, no vote but a leader of that term known: refused', { term: 2, leader: 'c' }, 'Vote 2 3@2', 'a->b VoteResp term=2 rejected', 2, ''],
      ['same term, voted for it, but its log is behind: refused', { term: 2, vote: 'b' }, 'Vote 2 2@2', 'a->b VoteResp term=2 rejected', 2, 'b'],
      ['higher term while a leader is heard (in lease): ignored, term kept', { term: 2, leader: 'c' }, 'Vote 3 3@2', '', 2, ''],
      [
        'in lease, but the request comes from a leader transfer: granted',
        { term: 2, leader: 'c' },
        'Vote 3 3@2 transfer',
        'a->b VoteResp term=3 granted',
        3,
        'b',
      ],
      ['CheckQuorum off: no lease, a higher term is taken', { term: 2, leader: 'c', checkQuorum: false }, 'Vote 3 3@2', 'a->b VoteResp term=3 granted', 3, 'b'],
      // PreVote changes neither term nor vote, on either side.
      [
        'PreVote for the next term, log up to date: granted at that term, though a voted this term',
        { term: 2, vote: 'c' },
        'PreVote 3 3@2',
        'a->b PreVoteResp term=3 granted',
        2,
        'c',
      ],
      ['PreVote, log behind: refused at our term', { term: 2 }, 'PreVote 3 2@2', 'a->b PreVoteResp term=2 rejected', 2, ''],
      ['PreVote at a lower term: refused with our term (the pre-candidate learns it)', { term: 2 }, 'PreVote 1 3@2', 'a->b PreVoteResp term=2 rejected', 2, ''],
      ['PreVote at our own term, voted for another: refused', { term: 2, vote: 'c' }, 'PreVote 2 3@2', 'a->b PreVoteResp term=2 rejected', 2, 'c'],
      ['PreVote at our own term, no vote and no leader: granted, no vote recorded', { term: 2 }, 'PreVote 2 3@2', 'a->b PreVoteResp term=2 granted', 2, ''],
      ['PreVote while in lease: ignored', { term: 2, leader: 'c' }, 'PreVote 3 3@2', '', 2, ''],
    ];
    for (const [name, st, req, want, term, vote] of cases) {
      it(name, () => {
        const { r, storage } = follower(st);
        const [type, t, last, ctx] = req.split(' ');
        r.step(message({ type: type as MessageType, from: 'b', to: 'a', term: Number(t), ...at(last), context: ctx ?? '' }));
        const answers = drain(r, storage)
          .filter((m) => m.to === 'b')
          .map(fmtMessage);
        expect(answers).to.deep.equal(want ? [want] : []);
        expect([r.status().term, r.status().vote], 'term and vote').to.deep.equal([term, vote]);
        expect([storage.hardState().term, storage.hardState().vote], 'persisted before the answer went out').to.deep.equal([term, vote]);
      });
    }

    // etcd TestVoteFromAnyState: whatever a node's role, a Vote for a higher term from an up-to-date
    // candidate makes it a follower of that term that grants, unless it leads in lease.
    type Role = 'follower' | 'precandidate' | 'candidate' | 'leader';
    const roles: Array<[Role, boolean, string, Role]> = [
      ['follower', true, 'granted', 'follower'],
      ['precandidate', true, 'granted', 'follower'],
      ['candidate', true, 'granted', 'follower'],
      // A leader's own leadership puts it "in lease": a disruptive Vote is ignored (etcd does the same)…
      ['leader', true, '', 'leader'],
      // …unless CheckQuorum is off (no lease), or it comes from a transfer.
      ['leader', false, 'granted', 'follower'],
    ];
    for (const [role, checkQuorum, want, after] of roles) {
      it(`from any state: a ${role}${checkQuorum ? '' : ' (CheckQuorum off)'} given a higher-term Vote: ${want || 'ignored'}`, () => {
        const { r, storage } = follower({ term: 2, checkQuorum });
        if (role !== 'follower') r.campaign(); // PreVote first
        if (role === 'candidate' || role === 'leader') r.step(message({ type: 'PreVoteResp', from: 'b', to: 'a', term: 3 }));
        if (role === 'leader') r.step(message({ type: 'VoteResp', from: 'b', to: 'a', term: 3 }));
        drain(r, storage);
        expect(r.status().role).to.equal(role);
        const st = r.status();
        r.step(message({ type: 'Vote', from: 'c', to: 'a', term: st.term + 1, index: st.lastIndex, logTerm: st.term }));
        const answers = drain(r, storage)
          .filter((m) => m.type === 'VoteResp')
          .map((m) => (m.reject ? 'rejected' : 'granted'));
        expect(answers).to.deep.equal(want ? [want] : []);
        expect(r.status().role).to.equal(after);
        if (want) expect(r.status()).to.include({ term: st.term + 1, vote: 'c' });
      });
    }
  });

  describe('AppendEntries receiver (Raft fig. 2, §5.3; fast backtracking hints)', () => {
    // Node a: log 1@1 2@2 3@2, term 2, commit 1, unless the row says otherwise.
    // [name, a's state, App from b: term prev commit [entries], → answer, commit after, stored log after, term after]
    const cases: Array<[string, Partial<State>, string, string, number, string, number]> = [
      ['prev matches, nothing new: ack, commit follows the leader', {}, '2 3@2 3', 'a->b AppResp term=2 match=3@2', 3, '1@1 2@2 3@2', 2],
      ['new entries: appended, acked at the last', {}, '2 3@2 4 4@2,5@2', 'a->b AppResp term=2 match=5@2', 4, '1@1 2@2 3@2 4@2 5@2', 2],
      ['commit capped at what the App proves (its last new entry)', {}, '2 2@2 3', 'a->b AppResp term=2 match=2@2', 2, '1@1 2@2 3@2', 2],
      ["prev term mismatch: reject, hint at our last entry of a term ≤ prev's", {}, '3 3@3 3', 'a->b AppResp term=3 reject=3 hint=3@2', 1, '1@1 2@2 3@2', 3],
      ['prev beyond our log: reject, hint at our last entry', {}, '2 5@2 3', 'a->b AppResp term=2 reject=5 hint=3@2', 1, '1@1 2@2 3@2', 2],
      ['conflict: our uncommitted tail is replaced', {}, '3 2@2 2 3@3', 'a->b AppResp term=3 match=3@3', 2, '1@1 2@2 3@3', 3],
      ['a stale duplicate App keeps what follows it', {}, '2 1@1 1 2@2', 'a->b AppResp term=2 match=2@2', 1, '1@1 2@2 3@2', 2],
      ['prev below our commit: ack our commit', { commit: 2 }, '2 0@0 2 1@1', 'a->b AppResp term=2 match=2@2', 2, '1@1 2@2 3@2', 2],
      // Entries at or below our commit are known to match (Log Matching): nothing to check or change.
      [
        'entries that would overwrite a committed one (prev below commit): acked with our commit, ignored',
        { commit: 2 },
        '3 1@1 2 2@3,3@3',
        'a->b AppResp term=3 match=2@2',
        2,
        '1@1 2@2 3@2',
        3,
      ],
      [
        'a lower term: answered with our term (the stale leader steps down), nothing appended',
        {},
        '1 3@2 3 4@1',
        'a->b AppResp term=2 match=0@0',
        1,
        '1@1 2@2 3@2',
        2,
      ],
      // The hint skips a whole divergent term: the leader's next probe lands past it.
      [
        'hint: a divergent term-3 tail, prev in term 4: our last entry',
        { log: '1..2@1 3..5@3', term: 3 },
        '4 5@4 0',
        'a->b AppResp term=4 reject=5 hint=5@3',
        1,
        '1@1 2@1 3@3 4@3 5@3',
        4,
      ],
      [
        'hint: a divergent term-3 tail, prev in term 2: skip the whole tail',
        { log: '1..2@1 3..5@3', term: 3 },
        '4 5@2 0',
        'a->b AppResp term=4 reject=5 hint=2@1',
        1,
        '1@1 2@1 3@3 4@3 5@3',
        4,
      ],
      ['hint: prev far beyond our log: from our last entry down', {}, '4 9@3 0', 'a->b AppResp term=4 reject=9 hint=3@2', 1, '1@1 2@2 3@2', 4],
      ["hint: nothing of a term ≤ prev's: 0", { log: '1..3@3', term: 3 }, '4 3@2 0', 'a->b AppResp term=4 reject=3 hint=0@0', 1, '1@3 2@3 3@3', 4],
    ];
    for (const [name, st, app, want, commit, log, term] of cases) {
      it(name, () => {
        const { r, storage } = follower({ term: 2, commit: 1, ...st });
        const [t, prev, c, es] = app.split(' ');
        r.step(message({ type: 'App', from: 'b', to: 'a', term: Number(t), ...at(prev), commit: Number(c), entries: ents((es ?? '').replaceAll(',', ' ')) }));
        const answers = drain(r, storage)
          .filter((m) => m.to === 'b')
          .map(fmtMessage);
        expect(answers).to.deep.equal([want]);
        expect({ commit: r.status().commit, log: stored(storage), term: r.status().term }).to.deep.equal({ commit, log, term });
        expect(r.status().leader, 'the sender is followed unless its term is stale').to.equal(Number(t) >= (st.term ?? 2) ? 'b' : '');
      });
    }

    it('a candidate given an App of its own term follows the sender and appends', () => {
      const { r, storage } = follower({ term: 2 });
      r.campaign();
      r.step(message({ type: 'PreVoteResp', from: 'b', to: 'a', term: 3 }));
      drain(r, storage);
      expect(r.status()).to.include({ role: 'candidate', term: 3 });
      r.step(message({ type: 'App', from: 'c', to: 'a', term: 3, index: 3, logTerm: 2, entries: ents('4@3'), commit: 0 }));
      expect(drain(r, storage).map(fmtMessage)).to.deep.equal(['a->c AppResp term=3 match=4@3']);
      expect(r.status()).to.include({ role: 'follower', leader: 'c', term: 3 });
    });

    // The leader side of the hint (etcd TestFastLogRejection): the prev index@term of each App the
    // leader a sends b until b accepts, a and b starting with these logs (c cut off).
    const backtracking: Array<[string, string, string, string[]]> = [
      ['same logs: one App', '1..3@2', '1..3@2', ['3@2']],
      ['follower shorter: one reject, then right after its last entry', '1..8@2', '1..3@2', ['8@2', '3@2']],
      ['follower has a longer lower-term tail: one reject skips it', '1..3@1 4..6@4', '1..3@1 4..8@2', ['6@4', '3@1']],
      ["the follower's tail term is not in the leader's log: the leader skips its own higher terms", '1@1 2..5@3', '1@1 2..4@2', ['5@3', '1@1']],
      ['two divergent terms: two rejects', '1@1 2..3@2 4..6@5', '1@1 2..5@4', ['6@5', '3@2', '1@1']],
    ];
    for (const [name, leaderLog, followerLog, probes] of backtracking) {
      it(`fast backtracking: ${name}`, () => {
        const logs: Record<NodeId, string> = { a: leaderLog, b: followerLog, c: leaderLog };
        const maxTerm = Math.max(...[leaderLog, followerLog].flatMap((l) => ents(l).map((e) => e.term)));
        const c = new TestCluster(['a', 'b', 'c'], {}, 1, (id) => {
          const s = new MemoryStorage(['a', 'b', 'c']);
          s.append(ents(logs[id]));
          s.setHardState({ term: maxTerm, vote: '', commit: 0 });
          return s;
        });
        c.isolate('c');
        c.elect('a');
        expect(c.leaders()).to.deep.equal(['a']);
        const apps = c.delivered.filter((m) => m.type === 'App' && m.to === 'b');
        const firstAck = c.delivered.findIndex((m) => m.type === 'AppResp' && m.from === 'b' && !m.reject);
        const beforeAck = apps.filter((m) => c.delivered.indexOf(m) < firstAck);
        expect(beforeAck.map((m) => `${m.index}@${m.logTerm}`)).to.deep.equal(probes);
        // b ends with a's log, and a could commit its no-op with b's ack.
        expect(stored(c.node('b').storage)).to.equal(stored(c.node('a').storage));
        expect(c.node('a').raft.status().commit).to.equal(c.node('a').raft.status().lastIndex);
      });
    }
  });

  describe('leadership transfer (thesis §3.10)', () => {
    /** a leads {a, b, c} at term 1 (PreVote does not raise the term), with x committed. */
    function cluster(): TestCluster {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.propose('a', 'x');
      return c;
    }
    const lag = (c: TestCluster, who: NodeId) => {
      c.cutLink('a', who);
      c.propose('a', 'y');
      c.heal();
    };

    // [name, setup, transfer from → to, returned, leader after stabilizing, a's messages to `to` after the call]
    const cases: Array<[string, (c: TestCluster) => void, NodeId, NodeId, boolean, NodeId, string[]]> = [
      ['to a caught-up voter: TimeoutNow at once', () => {}, 'a', 'c', true, 'c', ['TimeoutNow']],
      // The first App is empty (what a's pipeline believed c held): c rejects it, the second brings y.
      ['to a lagging voter: catch it up first, then TimeoutNow', (c) => lag(c, 'c'), 'a', 'c', true, 'c', ['App', 'App', 'TimeoutNow']],
      ['to itself: refused', () => {}, 'a', 'a', false, 'a', []],
      ['to an id not in the configuration: refused', () => {}, 'a', 'z', false, 'a', []],
      ['by a follower: refused', () => {}, 'b', 'c', false, 'a', []],
      [
        'to a learner: refused',
        (c) => {
          c.join('l');
          c.node('a').raft.proposeConfChange({ op: 'addLearner', node: 'l' });
          c.stabilize();
        },
        'a',
        'l',
        false,
        'a',
        [],
      ],
    ];
    for (const [name, setup, from, to, ok, leader, sent] of cases) {
      it(name, () => {
        const c = cluster();
        setup(c);
        const mark = c.delivered.length;
        expect(c.node(from).raft.transferLeader(to)).to.equal(ok);
        c.stabilize();
        const after = c.delivered.slice(mark);
        const toTarget = after.filter((m) => m.from === 'a' && m.to === to).map((m) => m.type);
        const untilTimeoutNow = toTarget.includes('TimeoutNow') ? toTarget.slice(0, toTarget.indexOf('TimeoutNow') + 1) : toTarget;
        expect(untilTimeoutNow).to.deep.equal(sent);
        expect(c.leaders()).to.deep.equal([leader]);
        if (leader !== 'a') {
          // The new leader campaigned at once, without PreVote, at the next term; the old one follows it.
          expect(after.filter((m) => m.type === 'PreVote')).to.have.length(0);
          expect(after.filter((m) => m.type === 'Vote').every((m) => m.context === 'transfer')).to.equal(true);
          expect(c.node(leader).raft.status().term).to.equal(2);
          expect(c.node('a').raft.status()).to.include({ role: 'follower', leader });
        } else {
          expect(c.node('a').raft.status()).to.include({ term: 1, leadTransferee: '' });
        }
      });
    }

    it('while a transfer is under way, proposals and membership changes are refused', () => {
      const c = cluster();
      lag(c, 'c');
      c.cutLink('a', 'c'); // c stays behind: the transfer cannot finish
      expect(c.node('a').raft.transferLeader('c')).to.equal(true);
      expect(c.node('a').raft.transferLeader('c'), 'asking again for the same target').to.equal(true);
      expect(c.node('a').raft.propose(enc('z'))).to.equal(undefined);
      expect(() => c.node('a').raft.proposeConfChange({ op: 'addLearner', node: 'l' })).to.throw(ConfChangeError, /transferring/);
      expect(c.node('a').raft.status().leadTransferee).to.equal('c');
    });

    it('a transfer that does not finish within an election timeout is abandoned: the leader takes proposals again', () => {
      const c = cluster();
      lag(c, 'c');
      c.cutLink('a', 'c');
      c.node('a').raft.transferLeader('c');
      for (let k = 0; k < 9; k++) {
        c.node('a').raft.tick();
        c.stabilize();
      }
      expect(c.node('a').raft.status().leadTransferee).to.equal('c');
      c.node('a').raft.tick(); // the 10th: one election timeout
      c.stabilize();
      expect(c.node('a').raft.status()).to.include({ role: 'leader', leadTransferee: '' });
      expect(c.node('a').raft.propose(enc('z'))).to.not.equal(undefined);
    });

    it('a transfer to another voter replaces the pending one', () => {
      const c = cluster();
      lag(c, 'c');
      c.cutLink('a', 'c');
      c.node('a').raft.transferLeader('c');
      expect(c.node('a').raft.transferLeader('b')).to.equal(true);
      c.stabilize();
      expect(c.leaders()).to.deep.equal(['b']);
    });

    // The transferee's side: TimeoutNow means "campaign now, skip PreVote".
    // [name, a's state / config, TimeoutNow term, → a's role and term after, messages it sends]
    const timeoutNow: Array<[string, State, Partial<RaftConfig>, number, string, string[]]> = [
      [
        'a follower campaigns at once at the next term, its Votes marked as a transfer',
        { term: 2, leader: 'b' },
        {},
        2,
        'candidate 3',
        ['a->b Vote term=3 last=3@2 ctx=transfer', 'a->c Vote term=3 last=3@2 ctx=transfer'],
      ],
      ['a TimeoutNow of an older term is ignored', { term: 2, leader: 'b' }, {}, 1, 'follower 2', []],
    ];
    for (const [name, st, cfg, term, want, sent] of timeoutNow) {
      it(`TimeoutNow: ${name}`, () => {
        const { r, storage } = follower(st, cfg);
        r.step(message({ type: 'TimeoutNow', from: 'b', to: 'a', term }));
        const out = drain(r, storage).map(fmtMessage);
        expect(`${r.status().role} ${r.status().term}`).to.equal(want);
        expect(out).to.deep.equal(sent);
      });
    }

    it('TimeoutNow: a learner does not campaign', () => {
      const c = cluster();
      const l = c.join('l');
      c.node('a').raft.proposeConfChange({ op: 'addLearner', node: 'l' });
      c.stabilize();
      const term = l.raft.status().term;
      l.raft.step(message({ type: 'TimeoutNow', from: 'a', to: 'l', term }));
      c.stabilize();
      expect(l.raft.status()).to.include({ role: 'follower', term });
      expect(c.leaders()).to.deep.equal(['a']);
    });
  });
});
