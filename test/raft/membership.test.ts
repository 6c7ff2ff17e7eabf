// Membership changes in the core (src/raft/README.md): what the transcripts
// (test/raft/transcripts/conf_*.txt) do not show step by step — restarts, snapshots, the quorum
// without learners, the invariants on config entries, and that the planted bug alone breaks safety.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ConfChangeError, InvariantError, MemoryStorage, RaftNode, message, type Entry } from '../../src/raft/index.js';
import { TestCluster, seededRandom } from './harness.js';
import { parse, run } from './transcript.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'transcripts');
const confEntry = (index: number, term: number, op: string, node: string, voters: string[], learners: string[] = [], removed: string[] = []): Entry => ({
  index,
  term,
  type: 'config',
  data: new TextEncoder().encode(JSON.stringify({ op, node, voters, learners, removed })),
});
const noop = (index: number, term: number): Entry => ({ index, term, data: new Uint8Array(0) });

function restart(id: string, storage: MemoryStorage, peers = ['a', 'b', 'c']): RaftNode {
  return new RaftNode({ id, peers, storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(3) });
}

/** A 3-node cluster led by a, its no-op committed. */
function led(): TestCluster {
  const c = new TestCluster(['a', 'b', 'c']);
  c.elect('a');
  return c;
}

describe('membership changes in the core', () => {
  it('the planted bug alone breaks conf_change_before_first_commit.txt: without it the change is refused and no invariant fails', () => {
    const text = readFileSync(join(dir, 'conf_change_before_first_commit.txt'), 'utf8');
    const withBug = run(parse(text).blocks).flat();
    expect(withBug.some((l) => l.includes('error: raft invariant'))).to.equal(true);
    const { blocks } = parse(text.replace(' bug=conf-change-before-first-commit', ''));
    const outputs = run(blocks);
    const at = blocks.findIndex((b) => b.command === 'conf b remove d');
    expect(outputs[at]).to.deep.equal(['refused no-commit-in-term']);
    expect(outputs.flat().filter((l) => l.includes('error:'))).to.deep.equal([]);
  });

  it('a restart keeps the configuration of the last config entry in the stored log, committed or not, and rolls it back when truncated', () => {
    const storage = new MemoryStorage(['a', 'b', 'c']);
    storage.append([noop(1, 1), confEntry(2, 1, 'addLearner', 'd', ['a', 'b', 'c'], ['d']), noop(3, 1), confEntry(4, 1, 'promote', 'd', ['a', 'b', 'c', 'd'])]);
    storage.setHardState({ term: 1, vote: 'a', commit: 3 });
    const b = restart('b', storage);
    let st = b.status();
    expect([st.configIndex, st.voters, st.learners]).to.deep.equal([4, ['a', 'b', 'c', 'd'], []]);
    // A term-2 leader whose log ends at 3: its entry 4 replaces ours, and with it the promote.
    b.step(message({ type: 'App', from: 'c', to: 'b', term: 2, index: 3, logTerm: 1, commit: 3, entries: [noop(4, 2)] }));
    st = b.status();
    expect([st.configIndex, st.voters, st.learners]).to.deep.equal([2, ['a', 'b', 'c'], ['d']]);
  });

  it('a snapshot carries the configuration in effect at its index; a node restored from it has it', () => {
    const c = led();
    c.join('d');
    c.node('a').raft.proposeConfChange({ op: 'addLearner', node: 'd' });
    c.stabilize();
    c.node('a').raft.proposeConfChange({ op: 'remove', node: 'd' });
    c.stabilize();
    c.propose('a', 'x');
    const a = c.node('a');
    const at = a.raft.status().commit;
    const meta = a.raft.configurationAt(at);
    expect(meta).to.deep.equal({ voters: ['a', 'b', 'c'], learners: [], removed: ['d'], configIndex: 3 });
    expect(a.raft.configurationAt(2)).to.deep.equal({ voters: ['a', 'b', 'c'], learners: ['d'], removed: [], configIndex: 2 });
    a.storage.createSnapshot(at, new Uint8Array([1]), meta);
    a.storage.compact(at);
    const again = restart('a', a.storage, ['a', 'b', 'c', 'z']).status();
    expect([again.voters, again.removed, again.configIndex]).to.deep.equal([['a', 'b', 'c'], ['d'], 3]);
  });

  it('learners count for neither commit nor CheckQuorum: a leader with only learners alive commits nothing and steps down', () => {
    const c = led();
    for (const id of ['d', 'e']) {
      c.join(id);
      c.node('a').raft.proposeConfChange({ op: 'addLearner', node: id });
      c.stabilize();
    }
    expect(c.node('d').raft.status().learners).to.deep.equal(['d', 'e']);
    c.isolate('b');
    c.isolate('c');
    const at = c.propose('a', 'x')!;
    expect(c.node('d').storage.lastIndex()).to.equal(at.index); // the learners have it...
    expect(c.node('a').raft.status().commit).to.be.below(at.index); // ...and it does not commit
    for (let k = 0; k < 25 && c.node('a').raft.status().role === 'leader'; k++) c.tickAll();
    expect(c.node('a').raft.status().role).to.not.equal('leader');
    // A learner never campaigns, however long it goes without a leader.
    c.isolate('a');
    for (let k = 0; k < 50; k++) c.tickAll();
    const campaigns = c.delivered.filter((m) => (m.from === 'd' || m.from === 'e') && (m.type === 'PreVote' || m.type === 'Vote'));
    expect(campaigns).to.deep.equal([]);
    expect(['d', 'e'].map((id) => c.node(id).raft.status().role)).to.deep.equal(['follower', 'follower']);
  });

  it("a learner's heartbeat ack does not confirm a ReadIndex: a leader cut off from the voters serves no read", () => {
    const c = led();
    c.join('d');
    c.node('a').raft.proposeConfChange({ op: 'addLearner', node: 'd' });
    c.stabilize();
    c.isolate('b');
    c.isolate('c');
    const a = c.node('a');
    expect(a.raft.readIndex('r1')).to.equal(true);
    for (let k = 0; k < 5; k++) c.tickAll(); // heartbeat rounds: only d answers
    expect(c.delivered.some((m) => m.from === 'd' && m.type === 'HeartbeatResp' && m.context === 'r1')).to.equal(true);
    expect(a.reads).to.deep.equal([]);
    // A voter's ack does: b is back, and with a it is a quorum of {a,b,c}.
    c.heal();
    c.isolate('c');
    c.tickAll();
    expect(a.reads).to.deep.equal(['r1']);
  });

  it('a config entry that changes two voters at once, or brings a removed id back, is an InvariantError on the follower that appends it', () => {
    const b = restart('b', new MemoryStorage(['a', 'b', 'c']));
    const bad = confEntry(1, 1, 'addVoter', 'd', ['a', 'b', 'c', 'd', 'e']);
    expect(() => b.step(message({ type: 'App', from: 'a', to: 'b', term: 1, index: 0, logTerm: 0, entries: [bad] }))).to.throw(
      InvariantError,
      'at most one voter',
    );
    const back = restart('c', new MemoryStorage(['a', 'b', 'c']));
    back.step(message({ type: 'App', from: 'a', to: 'c', term: 1, index: 0, logTerm: 0, entries: [confEntry(1, 1, 'remove', 'c', ['a', 'b'], [], ['c'])] }));
    const revived = confEntry(2, 1, 'addLearner', 'c', ['a', 'b'], ['c']);
    expect(() => back.step(message({ type: 'App', from: 'a', to: 'c', term: 1, index: 1, logTerm: 1, entries: [revived] }))).to.throw(
      InvariantError,
      'removed ids stay removed',
    );
  });

  it('a refused change appends nothing and says why', () => {
    const c = led();
    const a = c.node('a').raft;
    const before = a.status().lastIndex;
    const reason = (cc: Parameters<RaftNode['proposeConfChange']>[0]) => {
      try {
        a.proposeConfChange(cc);
      } catch (e) {
        if (e instanceof ConfChangeError) return e.reason;
        throw e;
      }
      return 'accepted';
    };
    expect(reason({ op: 'promote', node: 'b' })).to.equal('not-learner');
    expect(reason({ op: 'demote' as 'promote', node: 'b' })).to.equal('invalid-op');
    expect(reason({ op: 'addLearner', node: '' })).to.equal('invalid-id');
    expect(reason({ op: 'addLearner', node: 'x'.repeat(65) })).to.equal('invalid-id');
    expect(reason({ op: 'remove', node: 'q' })).to.equal('not-member');
    expect(a.status().lastIndex).to.equal(before);
    expect(a.hasReady()).to.equal(false);
  });
});
