// What a node knows again after a restart from what its driver loop wrote: a follower (n3 of
// {n1, n2, n3}) whose storage keeps exactly the writes the loop made, restarted as a new loop on
// them. lockd-node.ts stops a node at start when driver.selfRemoved() says its own log holds,
// committed, the change that removed it; that must survive a restart.
import { expect } from 'chai';
import { encodeConfigEntry } from '../../../src/raft/membership.js';
import { MemoryStorage } from '../../../src/raft/memory-storage.js';
import { message, type Entry } from '../../../src/raft/types.js';
import { harnessLoop } from './loop-harness.js';

const VOTERS = ['n1', 'n2', 'n3'];

/** A loop on `memory`, whose writes (synced or not) complete at once and land in `memory`. */
function follower(memory: MemoryStorage) {
  const fatal: Error[] = [];
  const { loop, run } = harnessLoop({ id: 'n3', voters: VOTERS, memory, onFatal: (e) => fatal.push(e) });
  return { loop, run, fatal };
}

describe('driver loop: restart from what was written', () => {
  it('a follower that learned its own removal committed still knows it after a restart (lockd-node stops it at start)', () => {
    const memory = new MemoryStorage(VOTERS);
    const n3 = follower(memory);
    const removal: Entry = {
      term: 1,
      index: 2,
      type: 'config',
      data: encodeConfigEntry({ change: { op: 'remove', node: 'n3' }, config: { voters: ['n1', 'n2'], learners: [], removed: ['n3'] } }),
    };
    // The leader's no-op and "remove n3", with the commit index of the no-op only.
    n3.loop.step(
      message({
        type: 'App',
        from: 'n1',
        to: 'n3',
        term: 1,
        index: 0,
        logTerm: 0,
        commit: 1,
        entries: [{ term: 1, index: 1, data: new Uint8Array(0) }, removal],
      }),
    );
    n3.run();
    expect(n3.loop.selfRemoved()).to.equal(false);
    // The removal commits on n1 and n2; n1's broadcast at a committed config change tells n3 (an empty App).
    n3.loop.step(message({ type: 'App', from: 'n1', to: 'n3', term: 1, index: 2, logTerm: 1, commit: 2, entries: [] }));
    n3.run();
    expect(n3.fatal).to.deep.equal([]);
    expect(n3.loop.appliedIndex()).to.equal(2);
    expect(n3.loop.selfRemoved()).to.equal(true); // lockd-node: "was removed from the cluster", exit 4

    // Restarted from its data dir (what the loop wrote), it must still know: else it runs on as a
    // non-voter until some peer refuses its stream, and forever if none is reachable.
    n3.loop.stop();
    const again = follower(memory);
    expect(memory.hardState().commit, 'stored commit index').to.be.at.least(2);
    expect(again.loop.selfRemoved()).to.equal(true);
  });
});
