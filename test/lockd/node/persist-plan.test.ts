// The driver loop's step 1 as a table (persist-plan.ts): what one Ready writes, when it is synced,
// and where a commit-only hard state waits. Pure: no loop, no storage.
import { expect } from 'chai';
import { planPersist } from '../../../src/lockd/node/persist-plan.js';
import type { Entry, HardState, Ready } from '../../../src/raft/types.js';

const entry = (index: number, type?: 'config'): Entry => ({ term: 2, index, data: new Uint8Array(0), ...(type ? { type } : {}) });

function ready(r: Partial<Ready>): Ready {
  return { termOrVoteChanged: false, mustSync: false, entries: [], committedEntries: [], messages: [], readStates: [], ...r };
}

describe('node: what a Ready batch persists (planPersist)', () => {
  const hs = (term: number, vote: string, commit: number): HardState => ({ term, vote, commit });
  const cases: Array<{
    name: string;
    rd: Ready;
    before?: HardState;
    write?: { hardState?: HardState; entries: number; snapshot?: boolean };
    after?: HardState;
  }> = [
    { name: 'nothing durable, nothing carried: no write', rd: ready({}) },
    { name: 'new entries (mustSync): one synced write with them', rd: ready({ mustSync: true, entries: [entry(5), entry(6)] }), write: { entries: 2 } },
    {
      name: 'a new term or vote: written with its hard state',
      rd: ready({ mustSync: true, termOrVoteChanged: true, hardState: hs(3, 'n1', 4) }),
      write: { hardState: hs(3, 'n1', 4), entries: 0 },
    },
    { name: 'commit-only hard state: not written, carried', rd: ready({ hardState: hs(2, 'n1', 7), committedEntries: [entry(7)] }), after: hs(2, 'n1', 7) },
    {
      name: 'a newer commit-only hard state replaces the carried one',
      rd: ready({ hardState: hs(2, 'n1', 8) }),
      before: hs(2, 'n1', 7),
      after: hs(2, 'n1', 8),
    },
    {
      name: 'no hard state of its own: the carried one stays carried',
      rd: ready({ committedEntries: [entry(8)] }),
      before: hs(2, 'n1', 7),
      after: hs(2, 'n1', 7),
    },
    {
      name: 'the next synced write takes the carried hard state along',
      rd: ready({ mustSync: true, entries: [entry(9)] }),
      before: hs(2, 'n1', 8),
      write: { hardState: hs(2, 'n1', 8), entries: 1 },
    },
    {
      name: 'a committed config entry forces a synced write of the commit',
      rd: ready({ hardState: hs(2, 'n1', 9), committedEntries: [entry(9, 'config')] }),
      write: { hardState: hs(2, 'n1', 9), entries: 0 },
    },
    {
      name: 'a snapshot (mustSync) is written',
      rd: ready({ mustSync: true, snapshot: { data: new Uint8Array(1), metadata: { index: 10, term: 2, voters: ['n1'] } } as Ready['snapshot'] }),
      write: { entries: 0, snapshot: true },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planPersist(c.rd, c.before);
      expect(plan.unwrittenHard, 'carried').to.deep.equal(c.after);
      if (!c.write) return expect(plan.write, 'write').to.equal(undefined);
      expect(plan.write, 'write').to.not.equal(undefined);
      expect(plan.write!.hardState, 'written hard state').to.deep.equal(c.write.hardState);
      expect(plan.write!.entries.length, 'written entries').to.equal(c.write.entries);
      expect(plan.write!.snapshot !== undefined, 'snapshot written').to.equal(!!c.write.snapshot);
      expect(plan.write!.entries).to.equal(c.rd.entries); // the Ready's own entries, not a copy
    });
  }
});
