// The real DriverLoop on in-memory storage, run by hand: the scheduler's tasks run only when the test
// calls run(), and with `hold` each disk write waits in `held` until the test completes it. Shared by
// the driver tests that need to see what happens between a batch being taken and being written.
import pino from 'pino';
import { DriverLoop, type LoopStorage } from '../../../src/lockd/node/driver-loop.js';
import type { MemoryStorage } from '../../../src/raft/memory-storage.js';
import type { Snapshot } from '../../../src/raft/types.js';

export interface HarnessOptions {
  readonly id: string;
  readonly voters: readonly string[];
  readonly memory: MemoryStorage;
  readonly preVote?: boolean;
  /** Writes wait in `held` until the test calls them (else they complete at once). */
  readonly hold?: boolean;
  /** Sees every write's sync flag as it is asked. */
  readonly onWrite?: (sync: boolean) => void;
  /** Default: throw, failing the test at once. */
  readonly onFatal?: (e: Error) => void;
}

export function harnessLoop(o: HarnessOptions) {
  const { memory } = o;
  const held: (() => void)[] = [];
  const soon: (() => void)[] = [];
  const storage: LoopStorage = {
    memory,
    write: (batch, sync, done) => {
      o.onWrite?.(sync);
      const persist = () => {
        memory.append(batch.entries);
        if (batch.hardState) memory.setHardState(batch.hardState);
        done();
      };
      if (o.hold) held.push(persist);
      else persist();
    },
    compact: (_snap: Snapshot, done) => done(),
  };
  const loop = new DriverLoop<string>({
    id: o.id,
    voters: [...o.voters],
    raft: { electionTicks: 10, heartbeatTicks: 1, random: () => 0, preVote: o.preVote ?? false, checkQuorum: false },
    storage,
    applier: { apply: (e) => `applied ${e.index}`, snapshot: () => new Uint8Array(0), restore: () => {} },
    scheduler: { soon: (fn) => soon.push(fn) },
    logger: pino({ level: 'silent' }),
    snapshotEvery: 1000,
    onFatal:
      o.onFatal ??
      ((e) => {
        throw e;
      }),
  });
  loop.setOutbox({ send: () => {} });
  /** Run the scheduled tasks (bounded: a loop that keeps scheduling is a test failure, not a hang). */
  const run = () => {
    for (let k = 0; k < 20 && soon.length > 0; k++) soon.shift()!();
  };
  return { loop, held, run };
}
