// The replication counters (loop-counters.ts) that /metrics exposes: direction, the App entry
// counts, Ready batches and the synced/unsynced LevelDB writes.
import { expect } from 'chai';
import { LoopCounters } from '../../../src/lockd/observe/loop-counters.js';
import type { Entry, Message } from '../../../src/raft/types.js';

const entry = (index: number): Entry => ({ index, term: 1, type: 'normal', data: new Uint8Array(0) }) as Entry;
const msg = (type: Message['type'], entries: Entry[] = []): Message => ({
  type,
  from: 'n1',
  to: 'n2',
  term: 1,
  logTerm: 0,
  index: 0,
  entries,
  commit: 0,
  reject: false,
  rejectHint: 0,
  context: '',
});

describe('observe: LoopCounters', () => {
  it('counts messages by type and direction, the entries Apps carry and the empty Apps', () => {
    const c = new LoopCounters();
    c.message(msg('App', [entry(1), entry(2)]), true);
    c.message(msg('App'), true);
    c.message(msg('Heartbeat'), true);
    c.message(msg('AppResp'), false);
    c.message(msg('App', [entry(3)]), false);
    expect(c.sent).to.include({ App: 2, Heartbeat: 1, AppResp: 0 });
    expect(c.received).to.include({ App: 1, AppResp: 1, Heartbeat: 0 });
    expect(c.appEntriesSent).to.equal(2);
    expect(c.emptyAppsSent).to.equal(1);
  });

  it('counts Ready batches, the entries they append and commit, and synced and unsynced writes apart', () => {
    const c = new LoopCounters();
    c.ready({ entries: [entry(1), entry(2)], committedEntries: [] });
    c.ready({ entries: [], committedEntries: [entry(1), entry(2)] });
    c.write(true, 2);
    c.write(false, 0);
    c.write(true, 0);
    expect({ readies: c.readies, withEntries: c.readiesWithEntries, entries: c.readyEntries, committed: c.committedEntries }).to.deep.equal({
      readies: 2,
      withEntries: 1,
      entries: 2,
      committed: 2,
    });
    expect({ synced: c.syncedWrites, syncedEntries: c.syncedEntries, unsynced: c.unsyncedWrites }).to.deep.equal({ synced: 2, syncedEntries: 2, unsynced: 1 });
  });
});
