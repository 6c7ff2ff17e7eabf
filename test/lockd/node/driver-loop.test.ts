// The driver loop's contract with its storage and network, on a two-voter node whose writes complete only when
// the test says so: what is sent before and after a write, what is synced, and that input arriving while a write
// is in flight joins the next batch (group commit). RaftDriver and the simulator both run this loop.
import { expect } from 'chai';
import pino from 'pino';
import { DriverLoop, type LoopStorage, type Persistable } from '../../../src/lockd/node/driver-loop.js';
import { NotLeaderError } from '../../../src/lockd/node/proposal-errors.js';
import { MemoryStorage } from '../../../src/raft/memory-storage.js';
import { message, type Message, type Snapshot } from '../../../src/raft/types.js';

interface Write {
  readonly batch: Persistable;
  readonly sync: boolean;
  done(err?: Error): void;
}

/** n1 of {n1, n2}, with a storage whose writes wait in `writes` and a scheduler the test runs by hand. */
function harness() {
  const memory = new MemoryStorage(['n1', 'n2']);
  const writes: Write[] = [];
  const sent: Message[] = [];
  const log: string[] = [];
  const soon: (() => void)[] = [];
  const fatal: Error[] = [];
  const storage: LoopStorage = {
    memory,
    write: (batch, sync, done) => {
      log.push(`write sync=${sync} entries=${batch.entries.length}`);
      writes.push({
        batch,
        sync,
        done: (err) => {
          if (!err) {
            memory.append(batch.entries);
            if (batch.hardState) memory.setHardState(batch.hardState);
          }
          done(err);
        },
      });
    },
    compact: (_snap: Snapshot, done) => done(),
  };
  const loop = new DriverLoop<string>({
    id: 'n1',
    voters: ['n1', 'n2'],
    raft: { electionTicks: 10, heartbeatTicks: 1, random: () => 0, preVote: false, checkQuorum: false },
    storage,
    applier: { apply: (e) => `applied ${e.index}`, snapshot: () => new Uint8Array(0), restore: () => {} },
    scheduler: { soon: (fn) => soon.push(fn) },
    logger: pino({ level: 'silent' }),
    snapshotEvery: 1000,
    onFatal: (e) => fatal.push(e),
  });
  loop.setOutbox({
    send: (ms) => {
      for (const m of ms) {
        sent.push(m);
        log.push(`send ${m.type}`);
      }
    },
  });
  const run = () => {
    for (let k = 0; k < 20 && soon.length > 0; k++) soon.shift()!();
  };
  const complete = () => writes.shift()!.done();
  return { loop, writes, sent, log, run, complete, fatal };
}

/** Make n1 leader of term 1 with n2's vote; returns with n1's first leader batch (its no-op) written out. */
function elect(h: ReturnType<typeof harness>) {
  h.loop.campaign();
  h.run();
  expect(h.writes).to.have.length(1); // term 1 and the vote for itself, synced, before the Vote is sent
  expect(h.sent).to.have.length(0);
  h.complete();
  expect(h.sent.map((m) => m.type)).to.deep.equal(['Vote']);
  h.run();
  h.sent.length = 0;
  h.log.length = 0;
  h.loop.step(message({ type: 'VoteResp', from: 'n2', to: 'n1', term: 1 }));
  h.run();
}

/** n2's acknowledgment of index `index` (an entry of term 1). */
const ack = (index: number) => message({ type: 'AppResp', from: 'n2', to: 'n1', term: 1, index, logTerm: 1 });

describe('driver loop (shared by RaftDriver and the simulator)', () => {
  it('a vote and a term are synced and waited for before any message that depends on them', () => {
    const h = harness();
    h.loop.campaign();
    h.run();
    expect(h.writes.map((w) => [w.sync, w.batch.hardState])).to.deep.equal([[true, { term: 1, vote: 'n1', commit: 0 }]]);
    expect(h.sent).to.deep.equal([]);
    h.complete();
    expect(h.sent.map((m) => [m.type, m.term])).to.deep.equal([['Vote', 1]]);
  });

  it('a leader sends its replication before its own write, and counts its entry only once the write is done', () => {
    const h = harness();
    elect(h);
    // The no-op of term 1: App to n2 went out while the write of the entry is still in flight.
    expect(h.log).to.deep.equal(['send App', 'write sync=true entries=1']);
    expect(h.sent[0]).to.include({ type: 'App', to: 'n2' });
    h.loop.step(ack(1));
    h.run();
    expect(h.loop.status().commit).to.equal(0); // n2 has it, n1's own copy is not on disk yet
    h.complete();
    h.run();
    expect(h.loop.status().commit).to.equal(1);
  });

  it('input arriving while a write is in flight joins the next batch: one write for both proposals', () => {
    const h = harness();
    elect(h);
    const results: string[] = [];
    h.loop.propose(new Uint8Array([1]), { resolve: (r) => results.push(r.result), reject: (e) => results.push(e.message) });
    h.loop.propose(new Uint8Array([2]), { resolve: (r) => results.push(r.result), reject: (e) => results.push(e.message) });
    h.run();
    expect(h.writes).to.have.length(1); // still the no-op's write: the proposals wait in the inbox
    h.complete();
    h.run();
    expect(h.writes.map((w) => w.batch.entries.map((e) => e.index))).to.deep.equal([[2, 3]]);
    h.complete();
    h.loop.step(ack(1));
    h.run();
    h.loop.step(ack(3));
    h.run();
    expect(h.fatal).to.deep.equal([]);
    expect(results).to.deep.equal(['applied 2', 'applied 3']);
  });

  it('a batch whose only change is the commit index writes nothing and sends nothing: the commit goes with the next entries', () => {
    const h = harness();
    elect(h);
    h.complete(); // the no-op is on disk
    h.run();
    h.log.length = 0;
    h.loop.step(ack(1));
    h.run();
    expect(h.fatal).to.deep.equal([]);
    // Commit 0 → 1: applied and advanced with no disk write and no commit-only App to n2.
    expect(h.loop.appliedIndex()).to.equal(1);
    expect(h.log).to.deep.equal([]);
    expect(h.writes).to.deep.equal([]);
    expect(h.loop.busy).to.equal(false);
    // The next proposal's synced write carries commit 1, and its App tells n2.
    h.loop.propose(new Uint8Array([7]), { resolve: () => {}, reject: () => {} });
    h.run();
    expect(h.log).to.deep.equal(['send App', 'write sync=true entries=1']);
    expect(h.writes.map((w) => w.batch.hardState)).to.deep.equal([{ term: 1, vote: 'n1', commit: 1 }]);
    expect(h.sent.at(-1)).to.include({ type: 'App', to: 'n2', commit: 1 });
  });

  it('a proposal to a node that does not lead is refused with NotLeaderError; a failed write stops the loop once', () => {
    const h = harness();
    let refused: Error | undefined;
    h.loop.propose(new Uint8Array([1]), { resolve: () => {}, reject: (e) => (refused = e) });
    h.run();
    expect(refused).to.be.instanceOf(NotLeaderError);
    h.loop.campaign();
    h.run();
    h.writes.shift()!.done(new Error('disk full'));
    h.loop.tick();
    h.run();
    expect(h.fatal.map((e) => e.message)).to.deep.equal(['disk full']);
    expect(h.loop.busy).to.equal(false);
    expect(h.sent).to.deep.equal([]); // the Vote never left
  });

  it('stopping answers every call at once: proposals and reads queued for the next batch, and any made afterwards', () => {
    const h = harness();
    elect(h);
    const answers: string[] = [];
    const cb = (what: string) => ({ resolve: () => answers.push(`${what} resolved`), reject: (e: Error) => answers.push(`${what}: ${e.message}`) });
    // Queued in the same event-loop turn as the stop: no batch ran them yet.
    h.loop.propose(new Uint8Array([1]), cb('queued proposal'));
    h.loop.readBarrier(cb('queued read'));
    let transferred: boolean | undefined;
    h.loop.transferLeader('n2', (ok) => (transferred = ok));
    h.loop.stop();
    h.loop.propose(new Uint8Array([2]), cb('later proposal'));
    h.loop.readBarrier(cb('later read'));
    expect(answers).to.deep.equal([
      'queued proposal: node is shutting down',
      'queued read: node is shutting down',
      'later proposal: node is shutting down',
      'later read: node is shutting down',
    ]);
    expect(transferred).to.equal(false);
    h.run();
    expect(answers).to.have.length(4); // nothing ran after the stop
  });
});
