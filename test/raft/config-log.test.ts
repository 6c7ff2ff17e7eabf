// Direct tests of src/raft/config-log.ts: the configurations the log holds, by index. A config entry is
// in effect once appended; truncating it rolls back to the one before it (not to "the last
// committed one"); pruning forgets only what nobody asks for; a snapshot replaces the history.
import { expect } from 'chai';
import { ConfigLog, isMember, isVoter } from '../../src/raft/config-log.js';
import { encodeConfigEntry, type ConfChangeOp, type Configuration } from '../../src/raft/membership.js';
import { InvariantError, type Entry } from '../../src/raft/types.js';

const conf = (voters: string, learners = '', removed = ''): Configuration => ({
  voters: voters.split(',').filter(Boolean),
  learners: learners.split(',').filter(Boolean),
  removed: removed.split(',').filter(Boolean),
});
const normal = (index: number, term = 1): Entry => ({ index, term, data: new TextEncoder().encode(`e${index}`) });
function confEntry(index: number, op: ConfChangeOp, node: string, config: Configuration, term = 1): Entry {
  return { index, term, type: 'config', data: encodeConfigEntry({ change: { op, node }, config }) };
}
const show = (c: { index: number; config: Configuration }) =>
  `${c.index}:${c.config.voters.join(',')}${c.config.learners.length ? `/${c.config.learners.join(',')}` : ''}`;

const ABC = conf('a,b,c');
const ABCD = conf('a,b,c,d');
const ABCD_E = conf('a,b,c,d', 'e');

/** Base a,b,c at 0; normal entries 1..9; +d at 10; normal 11..19; +e (learner) at 20. */
function history(): ConfigLog {
  const cl = new ConfigLog({ index: 0, config: ABC }, 'a');
  const ents: Entry[] = [];
  for (let i = 1; i <= 20; i++) {
    if (i === 10) ents.push(confEntry(10, 'addVoter', 'd', ABCD));
    else if (i === 20) ents.push(confEntry(20, 'addLearner', 'e', ABCD_E));
    else ents.push(normal(i));
  }
  cl.appended(ents);
  return cl;
}

describe('raft config log (src/raft/config-log.ts)', () => {
  it('the base is in effect until a config entry is appended; normal entries change nothing', () => {
    const cl = new ConfigLog({ index: 0, config: ABC }, 'a');
    cl.appended([normal(1), normal(2)]);
    expect(show(cl.current())).to.equal('0:a,b,c');
    cl.appended([confEntry(3, 'addVoter', 'd', ABCD)]);
    expect(show(cl.current())).to.equal('3:a,b,c,d');
  });

  describe('at(i): the configuration in effect at an index', () => {
    const cl = history();
    // [index, configuration in effect there]
    const cases: Array<[number, string]> = [
      [0, '0:a,b,c'],
      [9, '0:a,b,c'],
      [10, '10:a,b,c,d'], // in effect from its own index on
      [19, '10:a,b,c,d'],
      [20, '20:a,b,c,d/e'],
      [1000, '20:a,b,c,d/e'],
    ];
    for (const [i, want] of cases) it(`at(${i}) = ${want}`, () => expect(show(cl.at(i))).to.equal(want));
  });

  describe('from(i): the configurations in effect anywhere from an index on (who may campaign, whom a leader tracks)', () => {
    const cl = history();
    const cases: Array<[number, string]> = [
      [0, '0:a,b,c 10:a,b,c,d 20:a,b,c,d/e'],
      [9, '0:a,b,c 10:a,b,c,d 20:a,b,c,d/e'],
      [10, '10:a,b,c,d 20:a,b,c,d/e'], // the one made at i is in effect at i
      [15, '10:a,b,c,d 20:a,b,c,d/e'],
      [20, '20:a,b,c,d/e'],
      [1000, '20:a,b,c,d/e'],
    ];
    for (const [i, want] of cases) it(`from(${i}) = ${want}`, () => expect(cl.from(i).map(show).join(' ')).to.equal(want));
  });

  it('countAfter: the config entries above an index (uncommitted, when it is the commit index)', () => {
    const cl = history();
    expect([0, 9, 10, 19, 20].map((i) => cl.countAfter(i))).to.deep.equal([2, 2, 1, 1, 0]);
  });

  describe('appended over a suffix: truncated config entries roll back', () => {
    // [name, first index of the new entries, whether they carry a config entry, → current]
    const cases: Array<[string, Entry[], string]> = [
      ['a new leader overwrites 15..: +e goes, +d is in effect again', [normal(15, 2), normal(16, 2)], '10:a,b,c,d'],
      ["overwriting exactly the config entry's index removes it", [normal(20, 2)], '10:a,b,c,d'],
      ['overwriting 10..: both go, back to the base', [normal(10, 2)], '0:a,b,c'],
      ['appending after the last entry keeps everything', [normal(21, 1)], '20:a,b,c,d/e'],
      ['a replacing entry may carry its own change', [normal(15, 2), confEntry(16, 'remove', 'c', conf('a,b,d', '', 'c'), 2)], '16:a,b,d'],
    ];
    for (const [name, ents, want] of cases) {
      it(name, () => {
        const cl = history();
        cl.appended(ents);
        expect(show(cl.current())).to.equal(want);
      });
    }

    it('the base is never truncated (an append never replaces a committed entry)', () => {
      const cl = new ConfigLog({ index: 5, config: ABC }, 'a');
      expect(() => cl.appended([normal(5, 2)])).to.throw(InvariantError, /the base configuration is never truncated/);
      cl.appended([normal(6, 2)]);
      expect(show(cl.current())).to.equal('5:a,b,c');
    });

    it('an empty append changes nothing', () => {
      const cl = history();
      cl.appended([]);
      expect(show(cl.current())).to.equal('20:a,b,c,d/e');
    });
  });

  describe('pruneTo: forget what nobody will ask for', () => {
    /** The lowest index at(i) still answers for. */
    const oldestKept = (cl: ConfigLog) => {
      for (let i = 0; ; i++) {
        try {
          cl.at(i);
          return i;
        } catch {
          // pruned
        }
      }
    };
    // [prune to, at(prune index), oldest kept, current]
    const cases: Array<[number, string, number, string]> = [
      [5, '0:a,b,c', 0, '20:a,b,c,d/e'], // nothing superseded yet
      [9, '0:a,b,c', 0, '20:a,b,c,d/e'],
      [10, '10:a,b,c,d', 10, '20:a,b,c,d/e'], // the base goes: +d is the oldest kept
      [15, '10:a,b,c,d', 10, '20:a,b,c,d/e'],
      [25, '20:a,b,c,d/e', 20, '20:a,b,c,d/e'], // the effective one is always kept
    ];
    for (const [to, atTo, oldest, current] of cases) {
      it(`pruneTo(${to})`, () => {
        const cl = history();
        cl.pruneTo(to);
        expect([show(cl.at(to)), oldestKept(cl), show(cl.current())]).to.deep.equal([atTo, oldest, current]);
      });
    }

    it('asking below the oldest kept configuration is an invariant violation', () => {
      const cl = history();
      cl.pruneTo(12);
      expect(show(cl.at(10))).to.equal('10:a,b,c,d');
      expect(() => cl.at(9)).to.throw(InvariantError, /configuration history kept/);
    });
  });

  it("restore: a snapshot's configuration is the whole history", () => {
    const cl = history();
    cl.restore({ index: 30, config: conf('a,b', 'c', 'd') });
    expect([show(cl.current()), show(cl.at(1000))]).to.deep.equal(['30:a,b/c', '30:a,b/c']);
    expect(() => cl.at(29)).to.throw(InvariantError);
    expect(() => cl.restore({ index: 31, config: conf('a,b', 'b') })).to.throw(InvariantError, /disjoint/);
  });

  describe('every appended config entry is checked against the one before it', () => {
    // [name, base, entry's configuration, error (undefined: accepted)]
    const cases: Array<[string, Configuration, Configuration, RegExp | undefined]> = [
      ['one voter added', ABC, ABCD, undefined],
      ['one voter removed', ABC, conf('a,b', '', 'c'), undefined],
      ['a learner added (no voter changes)', ABC, conf('a,b,c', 'd'), undefined],
      ['two voters added at once', ABC, conf('a,b,c,d,e'), /adds or removes at most one voter/],
      ['a voter swapped for another', ABC, conf('a,b,d'), /adds or removes at most one voter/],
      ['a removed id forgotten', conf('a,b', '', 'c'), conf('a,b'), /removed ids stay removed/],
      ['a voter that is also a learner', ABC, conf('a,b,c', 'c'), /disjoint/],
      // A node that joined with no configuration takes the first one it sees, whatever it is.
      ['a joining node (empty base) takes any configuration', conf(''), conf('a,b,c,d,e'), undefined],
    ];
    for (const [name, base, next, error] of cases) {
      it(name, () => {
        const cl = new ConfigLog({ index: 0, config: base }, 'a');
        const append = () => cl.appended([confEntry(1, 'addVoter', 'x', next)]);
        if (error) {
          expect(append).to.throw(InvariantError, error);
          expect(cl.current().index).to.equal(0);
        } else {
          append();
          expect(cl.current().index).to.equal(1);
        }
      });
    }

    it('a corrupt config entry is an invariant violation, not a configuration', () => {
      const cl = new ConfigLog({ index: 0, config: ABC }, 'a');
      const bad: Entry = { index: 1, term: 1, type: 'config', data: new TextEncoder().encode('{"op":"addVoter"') };
      expect(() => cl.appended([bad])).to.throw(InvariantError, /config entry is well formed/);
    });
  });

  it('isVoter and isMember', () => {
    const c = conf('a,b', 'c', 'd');
    expect(['a', 'c', 'd', 'x'].map((id) => [isVoter(c, id), isMember(c, id)])).to.deep.equal([
      [true, true],
      [false, true],
      [false, false],
      [false, false],
    ]);
  });
});
