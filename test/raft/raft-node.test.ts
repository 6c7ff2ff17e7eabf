// Unit tests for the consensus core, each tied to the rule of the Raft paper (or Ongaro's thesis) it checks.
import { expect } from 'chai';
import { MemoryStorage, RaftNode, InvariantError, message, type Entry, type Message } from '../../src/raft/index.js';
import { TestCluster, seededRandom, text } from './harness.js';

const enc = (s: string) => new TextEncoder().encode(s);
const ent = (index: number, term: number): Entry => ({ index, term, data: enc(`e${index}`) });

function lone(id = 'a', peers = ['a', 'b', 'c'], storage = new MemoryStorage(peers)): RaftNode {
  return new RaftNode({ id, peers, storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(7) });
}

/** Persist and "send" one Ready; returns its messages. */
function drain(r: RaftNode, storage?: MemoryStorage): Message[] {
  const out: Message[] = [];
  while (r.hasReady()) {
    const rd = r.ready();
    if (storage) {
      if (rd.hardState) storage.setHardState(rd.hardState);
      storage.append(rd.entries);
    }
    out.push(...rd.messages);
    r.advance(rd);
  }
  return out;
}

describe('raft core', () => {
  describe('§5.2 leader election', () => {
    it('elects exactly one leader in a 3- and a 5-node cluster', () => {
      for (const ids of [
        ['a', 'b', 'c'],
        ['a', 'b', 'c', 'd', 'e'],
      ]) {
        const c = new TestCluster(ids);
        c.tickAll(40);
        expect(c.leaders()).to.have.length(1);
        const terms = new Set([...c.nodes.values()].map((n) => n.raft.status().term));
        expect(terms.size).to.equal(1);
      }
    });

    it('a voter grants at most one vote per term (first come, first served)', () => {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      const r = lone('a', ['a', 'b', 'c'], storage);
      r.step(message({ type: 'Vote', from: 'b', to: 'a', term: 5 }));
      r.step(message({ type: 'Vote', from: 'c', to: 'a', term: 5 }));
      r.step(message({ type: 'Vote', from: 'b', to: 'a', term: 5 })); // a retransmission is granted again
      const resps = drain(r, storage).filter((m) => m.type === 'VoteResp');
      expect(resps.map((m) => [m.to, m.reject])).to.deep.equal([
        ['b', false],
        ['c', true],
        ['b', false],
      ]);
      expect(storage.hardState()).to.include({ term: 5, vote: 'b' });
    });

    // §5.4.1: vote only for a candidate whose log is at least as up to date.
    const upToDate: Array<[string, number, number, boolean]> = [
      ['higher last term wins', 1, 3, true],
      ['same term, longer log', 4, 2, true],
      ['same term, same length', 3, 2, true],
      ['same term, shorter log', 2, 2, false],
      ['lower last term loses even if longer', 9, 1, false],
    ];
    for (const [name, lastIndex, lastTerm, granted] of upToDate) {
      it(`§5.4.1 election restriction: ${name}`, () => {
        const storage = new MemoryStorage(['a', 'b', 'c']);
        storage.append([ent(1, 1), ent(2, 2), ent(3, 2)]);
        storage.setHardState({ term: 2, vote: '', commit: 0 });
        const r = lone('a', ['a', 'b', 'c'], storage);
        r.step(message({ type: 'Vote', from: 'b', to: 'a', term: 3, index: lastIndex, logTerm: lastTerm }));
        const resp = drain(r, storage).find((m) => m.type === 'VoteResp')!;
        expect(resp.reject).to.equal(!granted);
      });
    }

    it('a node that learns a higher term steps down and adopts it (fig. 2, all servers)', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.node('a').raft.step(message({ type: 'AppResp', from: 'b', to: 'a', term: 9 }));
      expect(c.node('a').raft.status()).to.include({ role: 'follower', term: 9 });
    });
  });

  describe('thesis §9.6 PreVote and §6.2 CheckQuorum', () => {
    it('an isolated node keeps campaigning without raising its term, and rejoins without disruption', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      const term = c.node('a').raft.status().term;
      c.isolate('c');
      c.tickAll(100);
      expect(c.node('c').raft.status().term).to.equal(term);
      c.heal();
      c.tickAll(5);
      expect(c.leaders()).to.deep.equal(['a']);
      expect(c.node('a').raft.status().term).to.equal(term);
    });

    it('a leader that cannot hear a majority for an election timeout steps down', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.isolate('a');
      c.tickAll(25);
      expect(c.node('a').raft.status().role).to.not.equal('leader');
    });

    it('followers that hear a live leader ignore a vote request (no disruption by a rejoining node)', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      const term = c.node('b').raft.status().term;
      c.node('b').raft.step(message({ type: 'Vote', from: 'c', to: 'b', term: term + 1, index: 99, logTerm: 99 }));
      expect(c.node('b').raft.status().term).to.equal(term);
    });
  });

  describe('§5.3 log replication', () => {
    it('replicates proposals to every node and applies them in order', () => {
      const c = new TestCluster(['a', 'b', 'c', 'd', 'e']);
      c.elect('a');
      for (let k = 0; k < 20; k++) c.propose('a', `p${k}`);
      const all = Array.from({ length: 20 }, (_, k) => `p${k}`);
      expect(c.node('a').applied.map(text)).to.deep.equal(all);
      // No commit-only App: followers learn the last commit index with the next heartbeat.
      for (const id of ['b', 'c', 'd', 'e']) expect(c.node(id).applied.map(text)).to.deep.equal(all.slice(0, 19));
      c.tickAll(1);
      for (const [, n] of c.nodes) expect(n.applied.map(text)).to.deep.equal(all);
    });

    it('a follower rejects an App whose previous entry does not match (consistency check)', () => {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      storage.append([ent(1, 1), ent(2, 1)]);
      const r = lone('b', ['a', 'b', 'c'], storage);
      r.step(message({ type: 'App', from: 'a', to: 'b', term: 2, index: 2, logTerm: 2, entries: [ent(3, 2)] }));
      const resp = drain(r, storage).find((m) => m.type === 'AppResp')!;
      expect(resp.reject).to.equal(true);
      expect(storage.lastIndex()).to.equal(2);
    });

    it("a follower truncates a conflicting suffix and takes the leader's entries", () => {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      storage.append([ent(1, 1), ent(2, 1), ent(3, 1)]);
      const r = lone('b', ['a', 'b', 'c'], storage);
      r.step(message({ type: 'App', from: 'a', to: 'b', term: 2, index: 1, logTerm: 1, entries: [ent(2, 2)], commit: 2 }));
      drain(r, storage);
      expect(storage.lastIndex()).to.equal(2);
      expect(storage.term(2)).to.equal(2);
    });

    it('fast backtracking: the conflict hint skips a whole divergent term in one round trip', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.isolate('a');
      // a, alone, appends many entries of its term that will never commit
      for (let k = 0; k < 30; k++) c.node('a').raft.propose(enc(`lost${k}`));
      c.stabilize();
      c.tickAll(40); // b or c takes over
      const [leader] = c.leaders().filter((id) => id !== 'a');
      c.propose(leader, 'kept');
      c.heal();
      const before = c.delivered.length;
      c.tickAll(3);
      const rejects = c.delivered.slice(before).filter((m) => m.type === 'AppResp' && m.from === 'a' && m.reject);
      expect(rejects.length).to.be.at.most(2);
      expect(c.node('a').applied.map(text)).to.deep.equal(['kept']);
    });
  });

  describe('§5.4.2 committing entries from previous terms (fig. 8)', () => {
    // a holds an entry of term 2 that b and c lack; a wins term 4 and backtracks b's log up to the
    // term-2 entry, which is then on a majority, while its own no-op (term 4) cannot get through.
    const rows: Array<[string, 'commit-previous-term-by-count' | undefined, number]> = [
      ['correct core: the old entry stays uncommitted', undefined, 1],
      ['planted bug: committed by counting replicas', 'commit-previous-term-by-count', 2],
    ];
    for (const [name, plantedBug, expectedCommit] of rows) {
      it(name, () => {
        const ids = ['a', 'b', 'c'];
        const c = new TestCluster(ids, { maxSizePerMsg: 1, plantedBug }, 1, (id) => {
          const s = new MemoryStorage(ids);
          s.append(id === 'a' ? [ent(1, 1), ent(2, 2)] : [ent(1, 1)]);
          s.setHardState({ term: 3, vote: '', commit: 1 });
          return s;
        });
        let probesToB = 0;
        c.filter = (m) => {
          if (m.type !== 'App' || !m.entries.some((e) => e.term === 4)) return true;
          return m.to === 'b' && probesToB++ === 0; // b's first probe gets through: its reject starts backtracking
        };
        c.elect('a');
        const a = c.node('a').raft;
        expect(a.status()).to.include({ role: 'leader', term: 4 });
        expect(c.node('b').storage.term(2)).to.equal(2); // the old entry is on a majority now
        expect(a.status().commit).to.equal(expectedCommit);
        if (plantedBug) return;
        c.filter = () => true;
        c.tickAll(3);
        expect(a.status().commit).to.equal(3); // committed through the term-4 no-op
        for (const [, n] of c.nodes) expect(n.applied.map(text)).to.deep.equal(['e1', 'e2']);
      });
    }
  });

  describe('durability: nothing acknowledged before it is persisted', () => {
    it('a leader does not count its own entry before advance() (its disk write)', () => {
      const storage = new MemoryStorage(['a']);
      const r = new RaftNode({ id: 'a', peers: ['a'], storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(1) });
      r.campaign();
      drain(r, storage);
      r.propose(enc('x'));
      const rd = r.ready();
      expect(rd.entries.map((e) => e.index)).to.deep.equal([2]);
      expect(rd.committedEntries.map((e) => e.index)).to.not.include(2);
      storage.append(rd.entries);
      r.advance(rd);
      expect(r.status().commit).to.equal(2);
    });

    it('a Ready says what must be synced (mustSync) and when no message may precede the write (termOrVoteChanged)', () => {
      const storage = new MemoryStorage(['a']);
      const r = new RaftNode({ id: 'a', peers: ['a'], storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(1) });
      const flags = () => {
        const rd = r.ready();
        if (rd.hardState) storage.setHardState(rd.hardState);
        storage.append(rd.entries);
        r.advance(rd);
        return { mustSync: rd.mustSync, termOrVoteChanged: rd.termOrVoteChanged };
      };
      r.campaign(); // one voter: term 1, its vote, leadership and the no-op in one batch
      expect(flags()).to.deep.equal({ mustSync: true, termOrVoteChanged: true });
      if (r.hasReady()) expect(flags(), 'the no-op commits').to.deep.equal({ mustSync: false, termOrVoteChanged: false });
      r.propose(enc('x'));
      expect(flags(), 'an entry').to.deep.equal({ mustSync: true, termOrVoteChanged: false });
      expect(r.hasReady() ? flags() : undefined, 'its commit alone').to.deep.equal({ mustSync: false, termOrVoteChanged: false });
    });

    // Simulator seed 1452 (membership nemesis): the ack of an entry a newer leader replaced in the
    // same batch named a copy that was never written.
    it('an ack of an older term than the Ready persists is dropped: the entry it names was replaced before the write', () => {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      storage.append([ent(1, 1)]);
      storage.setHardState({ term: 1, vote: '', commit: 1 });
      const r = lone('b', ['a', 'b', 'c'], storage);
      // One batch: the term-2 leader a appends 2@2, then the term-3 leader c replaces it with 2@3.
      r.step(message({ type: 'App', from: 'a', to: 'b', term: 2, index: 1, logTerm: 1, entries: [ent(2, 2)], commit: 1 }));
      r.step(message({ type: 'App', from: 'c', to: 'b', term: 3, index: 1, logTerm: 1, entries: [ent(2, 3)], commit: 1 }));
      const rd = r.ready();
      expect(rd.entries.map((e) => [e.index, e.term])).to.deep.equal([[2, 3]]);
      expect(rd.hardState?.term).to.equal(3);
      const acks = rd.messages.filter((m) => m.type === 'AppResp').map((m) => [m.to, m.term, m.index, m.reject]);
      expect(acks).to.deep.equal([['c', 3, 2, false]]);
      r.advance(rd);
    });

    it('input between ready() and advance() is refused loudly', () => {
      const r = lone();
      r.campaign();
      r.ready();
      expect(() => r.tick()).to.throw(InvariantError, /no input between ready\(\) and advance\(\)/);
    });

    it('a restart with a stored commit behind the snapshot (commit written unsynced) takes the snapshot as committed', () => {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      storage.append([ent(1, 1), ent(2, 1), ent(3, 1), ent(4, 1)]);
      storage.createSnapshot(3, enc('state'));
      storage.compact(3);
      storage.setHardState({ term: 1, vote: 'a', commit: 2 });
      const r = lone('b', ['a', 'b', 'c'], storage);
      expect(r.status()).to.include({ commit: 3, applied: 3, term: 1 });
    });

    it('a restarted node keeps its term, vote and log', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.propose('a', 'x');
      const { storage } = c.node('b');
      const restarted = new RaftNode({ id: 'b', peers: ['a', 'b', 'c'], storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(3) });
      const st = restarted.status();
      expect(st.term).to.equal(c.node('b').raft.status().term);
      expect(st.vote).to.equal('a');
      expect(st.lastIndex).to.equal(2);
    });
  });

  describe('thesis §6.4 ReadIndex', () => {
    it('answers a read with the commit index only after a quorum confirms leadership', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.propose('a', 'x');
      const a = c.node('a').raft;
      const acks: string[] = [];
      c.filter = (m) => {
        if (m.type === 'HeartbeatResp' && m.context === 'r1') acks.push(m.from);
        return true;
      };
      const got: Array<{ index: number; context: string; acksBefore: number }> = [];
      const ready = a.ready.bind(a);
      a.ready = () => {
        const rd = ready();
        for (const rs of rd.readStates) got.push({ ...rs, acksBefore: acks.length });
        return rd;
      };
      expect(a.readIndex('r1')).to.equal(true);
      c.stabilize();
      expect(got).to.have.length(1);
      expect(got[0]).to.include({ index: 2, context: 'r1' });
      expect(got[0].acksBefore).to.be.at.least(1); // self + one follower = quorum of 3
    });

    it('concurrent reads in one batch share one heartbeat round, and each is answered', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.propose('a', 'x');
      const a = c.node('a').raft;
      for (const ctx of ['r1', 'r2', 'r3']) expect(a.readIndex(ctx)).to.equal(true);
      const rd = a.ready();
      const beats = rd.messages.filter((m) => m.type === 'Heartbeat');
      expect(beats.map((m) => [m.to, m.context])).to.deep.equal([
        ['b', 'r3'],
        ['c', 'r3'],
      ]);
      const states = [...rd.readStates];
      c.node('a').storage.append(rd.entries);
      a.advance(rd);
      for (const m of rd.messages) c.node(m.to).raft.step(m);
      const orig = a.ready.bind(a);
      a.ready = () => {
        const r = orig();
        states.push(...r.readStates);
        return r;
      };
      c.stabilize();
      expect(states).to.deep.equal([
        { index: 2, context: 'r1' },
        { index: 2, context: 'r2' },
        { index: 2, context: 'r3' },
      ]);
    });

    it('a follower refuses ReadIndex (the server forwards to the leader instead)', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      expect(c.node('b').raft.readIndex('r')).to.equal(false);
    });

    it('a partitioned leader never answers a read', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.isolate('a');
      const a = c.node('a').raft;
      a.readIndex('r');
      let got = 0;
      const orig = a.ready.bind(a);
      a.ready = () => {
        const r = orig();
        got += r.readStates.length;
        return r;
      };
      c.tickAll(30);
      expect(got).to.equal(0);
    });

    it('planted bug read-without-quorum: a partitioned (deposed) leader answers a read with no ack at all', () => {
      const c = new TestCluster(['a', 'b', 'c'], { plantedBug: 'read-without-quorum' });
      c.elect('a');
      c.propose('a', 'x');
      c.isolate('a');
      // a is paused (it does not tick, so CheckQuorum cannot depose it yet); b and c move on.
      for (let k = 0; k < 20 && c.leaders().length < 2; k++) {
        c.node('b').raft.tick();
        c.node('c').raft.tick();
        c.stabilize();
      }
      const [next] = c.leaders().filter((id) => id !== 'a');
      c.propose(next, 'y'); // committed by b and c: a read at a that misses it is stale
      const a = c.node('a').raft;
      expect(a.status().role).to.equal('leader');
      a.readIndex('r');
      const rd = a.ready();
      a.advance(rd);
      expect(rd.readStates).to.deep.equal([{ index: 2, context: 'r' }]);
      expect(c.node(next).raft.status().commit).to.be.greaterThan(2);
    });
  });

  describe('§7 log compaction and InstallSnapshot', () => {
    it('a follower behind the compacted log catches up by snapshot', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.isolate('c');
      for (let k = 0; k < 10; k++) c.propose('a', `p${k}`);
      const { storage } = c.node('a');
      const applied = c.node('a').raft.status().applied;
      storage.createSnapshot(applied, enc('state-at-' + applied));
      storage.compact(applied);
      c.heal();
      let installed = false;
      c.filter = (m) => {
        if (m.type === 'Snap') installed = true;
        return true;
      };
      c.tickAll(5);
      expect(installed).to.equal(true);
      expect(c.node('c').storage.snapshot().metadata.index).to.equal(applied);
      c.propose('a', 'after');
      c.tickAll(1); // its commit reaches followers with the next heartbeat
      expect(c.node('c').applied.map(text)).to.deep.equal(['after']);
    });
  });

  describe("§7 snapshot fast-forward (a follower already holds the snapshot's last entry)", () => {
    // The overclaim sequence: follower b holds 1..5@1 + 6..8@2 (commit 4); the term-3 leader a
    // holds 1..5@1 (compacted into a snapshot at 5@1) + 6..8@3 and sends b Snap(5@1).
    type Bug = 'snapshot-fast-forward-overclaim';

    function follower(plantedBug?: Bug): { b: RaftNode; storage: MemoryStorage } {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      storage.append([ent(1, 1), ent(2, 1), ent(3, 1), ent(4, 1), ent(5, 1), ent(6, 2), ent(7, 2), ent(8, 2)]);
      storage.setHardState({ term: 2, vote: 'c', commit: 4 });
      const b = new RaftNode({ id: 'b', peers: ['a', 'b', 'c'], storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(7), plantedBug });
      return { b, storage };
    }

    /** a wins term 3 with c's vote, appends 6@3 (no-op), 7@3, 8@3, and has offered b 6..8. */
    function leader(plantedBug?: Bug): { a: RaftNode; storage: MemoryStorage } {
      const storage = new MemoryStorage(['a', 'b', 'c']);
      storage.append([ent(1, 1), ent(2, 1), ent(3, 1), ent(4, 1), ent(5, 1)]);
      storage.createSnapshot(5, enc('state@5'));
      storage.compact(5);
      storage.setHardState({ term: 2, vote: '', commit: 5 });
      const a = new RaftNode({ id: 'a', peers: ['a', 'b', 'c'], storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(7), plantedBug });
      a.campaign();
      drain(a, storage);
      a.step(message({ type: 'PreVoteResp', from: 'c', to: 'a', term: 3 }));
      drain(a, storage);
      a.step(message({ type: 'VoteResp', from: 'c', to: 'a', term: 3 }));
      a.propose(enc('e7'));
      a.propose(enc('e8'));
      drain(a, storage); // the probe App(5@1, [6]) to b is lost
      a.step(message({ type: 'HeartbeatResp', from: 'b', to: 'a', term: 3 }));
      const apps = drain(a, storage).filter((m) => m.type === 'App' && m.to === 'b');
      expect(apps.map((m) => [m.index, m.entries.map((e) => `${e.index}@${e.term}`)])).to.deep.equal([[5, ['6@3', '7@3', '8@3']]]);
      expect(a.status()).to.include({ role: 'leader', term: 3, lastIndex: 8, commit: 5 });
      return { a, storage };
    }

    const snap = (from: MemoryStorage) => message({ type: 'Snap', from: 'a', to: 'b', term: 3, snapshot: from.snapshot() });
    const acks = (ms: Message[]) => ms.filter((m) => m.type === 'AppResp').map((m) => [m.index, m.logTerm, m.reject]);

    it('answers with the snapshot index (its commit), not its last index: the tail 6..8@2 was never checked', () => {
      const { b, storage } = follower();
      b.step(snap(leader().storage));
      expect(acks(drain(b, storage))).to.deep.equal([[5, 1, false]]);
      expect(b.status()).to.include({ commit: 5, lastIndex: 8 });
    });

    it('planted bug snapshot-fast-forward-overclaim: the follower claims its whole stale tail (8), and the leader commits entries only it holds', () => {
      const { b, storage: bs } = follower('snapshot-fast-forward-overclaim');
      const { a, storage: as } = leader('snapshot-fast-forward-overclaim');
      b.step(snap(as));
      const out = drain(b, bs);
      expect(acks(out)).to.deep.equal([[8, 2, false]]);
      a.step(out.find((m) => m.type === 'AppResp')!);
      drain(a, as);
      expect(a.status().commit).to.equal(8); // 6..8@3 "committed" on a and nowhere else: b holds 6..8@2
    });

    it('the leader refuses a claimed match on an entry it does not hold (an InvariantError, not a commit)', () => {
      const { b, storage: bs } = follower('snapshot-fast-forward-overclaim'); // the lying follower
      const { a, storage: as } = leader();
      b.step(snap(as));
      const resp = drain(b, bs).find((m) => m.type === 'AppResp')!;
      expect(() => a.step(resp)).to.throw(InvariantError, /AppResp claims a match on an entry the leader holds.*8@2.*term 3/);
    });

    it('the leader refuses a claimed match past the highest index it sent that follower', () => {
      const { a } = leader();
      a.propose(enc('e9')); // 9@3 exists on a but went to nobody yet (b is in probe, waiting)
      const claim = message({ type: 'AppResp', from: 'b', to: 'a', term: 3, index: 9, logTerm: 3 });
      expect(() => a.step(claim)).to.throw(InvariantError, /past what the leader sent.*at 9.*is 8/);
    });

    it('the leader takes the correct answer and sends what follows the snapshot', () => {
      const { b, storage: bs } = follower();
      const { a, storage: as } = leader();
      b.step(snap(as));
      a.step(drain(b, bs).find((m) => m.type === 'AppResp')!);
      expect(a.status().progress.get('b')).to.include({ match: 5, state: 'replicate' });
      expect(a.status().commit).to.equal(5); // nothing past 5 is on a majority
      const apps = drain(a, as).filter((m) => m.type === 'App' && m.to === 'b');
      expect(apps.map((m) => [m.index, m.entries.map((e) => e.index)])).to.deep.equal([[5, [6, 7, 8]]]);
    });
  });

  describe('thesis §3.10 leadership transfer', () => {
    it('hands leadership to a caught-up follower via TimeoutNow', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.propose('a', 'x');
      expect(c.node('a').raft.transferLeader('c')).to.equal(true);
      c.stabilize();
      expect(c.leaders()).to.deep.equal(['c']);
    });

    it('refuses proposals while a transfer is in flight', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.isolate('c');
      c.node('a').raft.transferLeader('c');
      expect(c.node('a').raft.propose(enc('x'))).to.equal(undefined);
    });
  });

  describe('flow control', () => {
    it('probe state: one App to an unresponsive follower, then silence until it answers', () => {
      const c = new TestCluster(['a', 'b', 'c'], { maxSizePerMsg: 1 });
      let appsToC = 0;
      c.filter = (m) => {
        if (m.to !== 'c') return true;
        if (m.type === 'App') appsToC++;
        return false;
      };
      c.elect('a');
      for (let k = 0; k < 20; k++) c.propose('a', `p${k}`);
      expect(c.node('a').raft.status().progress.get('c')!.state).to.equal('probe');
      expect(appsToC).to.equal(1);
    });

    it('replicate state: at most the in-flight window is outstanding; lost Apps are recovered', () => {
      const c = new TestCluster(['a', 'b', 'c'], { maxInflightMsgs: 4, maxSizePerMsg: 1 });
      c.elect('a');
      expect(c.node('a').raft.status().progress.get('c')!.state).to.equal('replicate');
      let appsToC = 0;
      c.filter = (m) => {
        if (m.to !== 'c') return true;
        if (m.type === 'App') appsToC++;
        return false;
      };
      for (let k = 0; k < 20; k++) c.node('a').raft.propose(enc(`p${k}`));
      c.stabilize();
      expect(appsToC).to.equal(4);
      c.filter = () => true;
      c.tickAll(10);
      expect(c.node('c').applied).to.have.length(20);
    });

    it('replicate state: a lost App in a window that is not full is recovered at the next heartbeat', () => {
      const c = new TestCluster(['a', 'b', 'c'], { maxSizePerMsg: 1 });
      c.elect('a');
      let dropped = false;
      c.filter = (m) => {
        if (dropped || m.type !== 'App' || m.to !== 'c' || m.entries.length === 0) return true;
        dropped = true; // the App with p0 is lost; those after it arrive and are rejected (gap)
        return false;
      };
      for (let k = 0; k < 5; k++) c.node('a').raft.propose(enc(`p${k}`));
      c.stabilize();
      c.tickAll(3);
      expect(dropped).to.equal(true);
      expect(c.node('c').applied.map(text)).to.deep.equal(['p0', 'p1', 'p2', 'p3', 'p4']);
    });

    it('a slow follower whose acks are late, not lost, stays in replicate across heartbeats: nothing is resent', () => {
      const c = new TestCluster(['a', 'b', 'c'], { maxSizePerMsg: 1 });
      c.elect('a');
      c.propose('a', 'x');
      const a = c.node('a').raft;
      expect(a.status().progress.get('b')!.state).to.equal('replicate');
      const held: Message[] = [];
      const sentToB: number[] = [];
      c.filter = (m) => {
        if (m.type === 'App' && m.to === 'b') sentToB.push(...m.entries.map((e) => e.index));
        if (m.type === 'AppResp' && m.from === 'b') {
          held.push(m); // b's disk is slow: its acks come, but later
          return false;
        }
        return true;
      };
      for (let k = 0; k < 5; k++) a.propose(enc(`p${k}`));
      c.stabilize();
      c.tickAll(3); // three heartbeat rounds, each answered by b, with no ack from b in between
      expect(a.status().progress.get('b')!.state).to.equal('replicate');
      expect(sentToB).to.deep.equal([3, 4, 5, 6, 7]); // each entry once
      c.filter = () => true;
      for (const m of held) a.step(m);
      c.stabilize();
      expect(a.status().progress.get('b')).to.include({ state: 'replicate', match: a.status().lastIndex });
      expect(sentToB).to.deep.equal([3, 4, 5, 6, 7]);
    });

    it('a caught-up follower in probe is moved back to replicate by a heartbeat response', () => {
      const c = new TestCluster(['a', 'b', 'c']);
      c.elect('a');
      c.propose('a', 'x');
      const a = c.node('a').raft;
      a.reportUnreachable('b'); // e.g. one dropped connection: b is caught up, but a now probes it
      expect(a.status().progress.get('b')).to.include({ state: 'probe', match: a.status().lastIndex });
      c.tickAll(1);
      expect(a.status().progress.get('b')!.state).to.equal('replicate');
    });
  });
});
