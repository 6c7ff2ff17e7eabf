// A one-voter node (n1, with the learner n2) campaigns, wins and replicates to its learner in one
// batch. Its messages carry the new term, so none may leave before that term and its vote are on
// disk: a crash before the write would let it win the same term again and lead it twice. The
// storage's writes complete only when the test says so; every message is checked against what is
// written when it is sent.
import { expect } from 'chai';
import { encodeConfigEntry } from '../../../src/raft/membership.js';
import { MemoryStorage } from '../../../src/raft/memory-storage.js';
import type { Entry, Message } from '../../../src/raft/types.js';
import { harnessLoop } from './loop-harness.js';

/** The data dir of n1 after leading term 1: its no-op and "add learner n2", committed. */
function storedTerm1(): MemoryStorage {
  const memory = new MemoryStorage(['n1']);
  const addLearner: Entry = {
    term: 1,
    index: 2,
    type: 'config',
    data: encodeConfigEntry({ change: { op: 'addLearner', node: 'n2' }, config: { voters: ['n1'], learners: ['n2'], removed: [] } }),
  };
  memory.append([{ term: 1, index: 1, data: new Uint8Array(0) }, addLearner]);
  memory.setHardState({ term: 1, vote: 'n1', commit: 2 });
  return memory;
}

/** n1 restarted on `memory`; writes wait in `pending` until completed; `sent` records each message with the term on disk then. */
function restart(memory: MemoryStorage, preVote: boolean) {
  const sent: { m: Message; storedTerm: number }[] = [];
  const fatal: Error[] = [];
  const onWrite = (sync: boolean) => expect(sync, 'a new term is synced').to.equal(true);
  const { loop, held: pending, run } = harnessLoop({ id: 'n1', voters: ['n1'], memory, preVote, hold: true, onWrite, onFatal: (e) => fatal.push(e) });
  loop.setOutbox({
    send: (ms) => {
      for (const m of ms) sent.push({ m, storedTerm: memory.hardState().term });
    },
  });
  return { loop, pending, sent, run, fatal };
}

describe('driver loop: a one-voter leader', () => {
  for (const preVote of [false, true]) {
    it(`sends nothing of its new term before the term and its vote are written (preVote ${preVote})`, () => {
      const memory = storedTerm1();
      const n1 = restart(memory, preVote);
      n1.loop.campaign();
      n1.run();
      expect(n1.loop.isLeader(), 'elected in one batch').to.equal(false); // roles change once the batch is done
      expect(n1.pending, 'one write: term 2, the vote, the no-op').to.have.length(1);
      expect(
        n1.sent.map(({ m }) => `${m.type} term ${m.term} to ${m.to}`),
        'sent before the write is done',
      ).to.deep.equal([]);

      // A crash here loses the write: restarted, it wins term 2 again, and n2 has heard nothing of the first.
      n1.loop.stop();
      const again = restart(memory, preVote);
      again.loop.campaign();
      again.run();
      expect(again.sent).to.deep.equal([]);
      again.pending.shift()!();
      again.run();
      expect(again.fatal).to.deep.equal([]);
      expect(again.loop.isLeader()).to.equal(true);
      expect(memory.hardState()).to.include({ term: 2, vote: 'n1' });
      const apps = again.sent.filter(({ m }) => m.type === 'App' && m.to === 'n2');
      expect(apps, 'the new leader replicates to its learner').to.not.have.length(0);
      for (const { m, storedTerm } of again.sent) expect(storedTerm, `${m.type} of term ${m.term}: term on disk when sent`).to.be.at.least(m.term);
    });
  }
});
