// A snapshot install replaces the applied state with no applied entry for what it covers: the loop
// says so once (onStateReplaced), after the state is restored, so the API layer can reconcile its
// waits and streams against it.
import { expect } from 'chai';
import pino from 'pino';
import { DriverLoop, type LoopStorage } from '../../../src/lockd/node/driver-loop.js';
import { MemoryStorage } from '../../../src/raft/memory-storage.js';
import { message } from '../../../src/raft/types.js';

describe('driver loop: snapshot install', () => {
  it('calls onStateReplaced once, with the snapshot index, after restoring the state; entries applied after it come as usual', () => {
    const memory = new MemoryStorage(['n1', 'n2']);
    const soon: (() => void)[] = [];
    const log: string[] = [];
    let state = 'empty';
    const storage: LoopStorage = {
      memory,
      write: (batch, _sync, done) => {
        if (batch.snapshot) memory.applySnapshot(batch.snapshot);
        memory.append(batch.entries);
        if (batch.hardState) memory.setHardState(batch.hardState);
        done();
      },
      compact: (_s, done) => done(),
    };
    const loop = new DriverLoop<string>({
      id: 'n1',
      voters: ['n1', 'n2'],
      raft: { electionTicks: 10, heartbeatTicks: 1, random: () => 0, preVote: false, checkQuorum: false },
      storage,
      applier: {
        apply: (e) => (log.push(`apply ${e.index}`), 'ok'),
        snapshot: () => new TextEncoder().encode(state),
        restore: (data, index) => {
          state = new TextDecoder().decode(data);
          log.push(`restore ${index}`);
        },
      },
      scheduler: { soon: (fn) => soon.push(fn) },
      logger: pino({ level: 'silent' }),
      snapshotEvery: 1000,
      onFatal: (e) => {
        throw e;
      },
    });
    loop.setOutbox({ send: () => {} });
    loop.onStateReplaced((index) => log.push(`replaced ${index} (state ${state})`));
    const run = () => {
      for (let k = 0; k < 50 && soon.length > 0; k++) soon.shift()!();
    };
    const snapshot = { metadata: { index: 7, term: 2, voters: ['n1', 'n2'] }, data: new TextEncoder().encode('at 7') };
    loop.step(message({ type: 'Snap', from: 'n2', to: 'n1', term: 2, snapshot }));
    run();
    expect(log).to.deep.equal(['restore 7', 'replaced 7 (state at 7)']);
    loop.step(
      message({
        type: 'App',
        from: 'n2',
        to: 'n1',
        term: 2,
        index: 7,
        logTerm: 2,
        commit: 8,
        entries: [{ index: 8, term: 2, type: 'normal', data: new Uint8Array(0) }],
      }),
    );
    run();
    expect(log).to.deep.equal(['restore 7', 'replaced 7 (state at 7)', 'apply 8']);
  });
});
