// Storage format migration on open (storage/migrate.ts), on real LevelDB in temp dirs: a data dir
// of the previous format (2, as the previous release wrote it) is copied beside itself and then
// migrated, its log and state unchanged; one of a newer format (a downgrade) is refused with what
// to do, and nothing is written or copied.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { chmodSync, cpSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Entry } from '../../../src/raft/types.js';
import { DataDirError, LevelStorage, migrateDataDir } from '../../../src/lockd/storage/index.js';
import { IDENTITY_KEY, entryKey } from '../../../src/lockd/storage/keys.js';
import { decodeIdentity, sealJson, unsealJson } from '../../../src/lockd/storage/records.js';
import { openLevel } from '../../../src/lockd/storage/db.js';
import { LockStateMachine } from '../../../src/lockd/state-machine/index.js';

/** A data dir the previous release wrote itself (test/fixtures/storage-2/README.md). */
const FIXTURE = fileURLToPath(new URL('../../fixtures/storage-2/n1', import.meta.url));

const VOTERS = ['n1', 'n2', 'n3'];
const WRITER = 'lockd/0.2.0 storage=3 snapshot=8 command=2 frame=1 backup=1';

/** The identity record exactly as the previous release's encodeIdentity wrote it (records.ts at compat/previous-release). */
const previousIdentity = (clusterId: string, nodeId: string): Buffer => sealJson({ format: 2, clusterId, nodeId });

function ents(from: number, to: number, term: number): Entry[] {
  const out: Entry[] = [];
  for (let i = from; i <= to; i++) out.push({ index: i, term, data: new TextEncoder().encode(`cmd-${i}`) });
  return out;
}

async function withDb<T>(dir: string, fn: (db: ReturnType<typeof openLevel>) => Promise<T>): Promise<T> {
  const db = openLevel(dir, { createIfMissing: false });
  await db.open();
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

describe('storage format migration', () => {
  let parent: string;
  let dir: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), 'lockd-migrate-'));
    dir = join(parent, 'n1');
  });
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  /** A data dir with a snapshot, entries after it and a hard state, whose identity is then put back as format 2 wrote it. */
  async function previousFormatDir(): Promise<void> {
    const s = await LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS });
    await s.persist({ hardState: { term: 2, vote: 'n2', commit: 6 }, entries: [...ents(1, 3, 1), ...ents(4, 7, 2)] });
    await s.compact(s.memory.createSnapshot(3, new Uint8Array([1, 2, 3])));
    await s.close();
    await withDb(dir, (db) => db.put(IDENTITY_KEY, previousIdentity('c1', 'n1')));
  }

  it('copies a format 2 dir beside itself, then migrates it to format 3 with its log, snapshot and hard state unchanged; once', async () => {
    await previousFormatDir();
    const s = await LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS, writer: WRITER });
    try {
      expect(s.migrated?.from).to.equal(2);
      expect(s.migrated?.to).to.equal(3);
      const backup = s.migrated!.backup;
      expect(backup.startsWith(`${dir}.storage-2-backup-`), backup).to.equal(true);
      expect(statSync(backup).mode & 0o777).to.equal(0o700);
      // The node's state as before: what Raft reads.
      expect(s.memory.hardState()).to.deep.equal({ term: 2, vote: 'n2', commit: 6 });
      expect(s.memory.snapshot().metadata.index).to.equal(3);
      expect([...s.memory.snapshot().data]).to.deep.equal([1, 2, 3]);
      expect(s.memory.firstIndex()).to.equal(4);
      expect(s.memory.lastIndex()).to.equal(7);
      expect(s.memory.entries(4, 8).map((e) => [e.index, e.term, new TextDecoder().decode(e.data)])).to.deep.equal([4, 5, 6, 7].map((i) => [i, 2, `cmd-${i}`]));
      await s.close();
      // The copy is the old dir: format 2, every entry.
      await withDb(backup, async (db) => {
        expect(unsealJson((await db.get(IDENTITY_KEY))!).format).to.equal(2);
        for (const i of [4, 5, 6, 7]) expect(await db.get(entryKey(i))).to.not.equal(undefined);
      });
      // The dir itself: format 3, naming its writer.
      await withDb(dir, async (db) => {
        const id = decodeIdentity((await db.get(IDENTITY_KEY))!);
        expect(id).to.deep.equal({ format: 3, clusterId: 'c1', nodeId: 'n1', writer: WRITER });
      });
      const again = await LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS, writer: WRITER });
      expect(again.migrated).to.equal(undefined);
      expect(again.memory.lastIndex()).to.equal(7);
      await again.close();
      expect((await readdir(parent)).filter((f) => f.includes('backup'))).to.have.length(1);
    } finally {
      await s.close();
    }
  });

  it("migrates a data dir the previous release wrote (checked-in fixture) and reaches that build's state from it", async () => {
    cpSync(FIXTURE, dir, { recursive: true });
    chmodSync(dir, 0o700);
    const s = await LevelStorage.open({ dir, clusterId: 'fixture', nodeId: 'n1', voters: VOTERS, writer: WRITER });
    try {
      expect(s.migrated?.from).to.equal(2);
      expect(s.memory.hardState()).to.deep.equal({ term: 1, vote: 'n1', commit: 6 });
      expect(s.memory.snapshot().metadata.index).to.equal(4);
      const sm = new LockStateMachine();
      sm.restore(s.memory.snapshot().data);
      for (const e of s.memory.entries(5, 7)) sm.apply(e);
      // What the previous release's own state machine had after the same six entries.
      expect(sm.stateDigest()).to.equal('5e1595aa8e83c42a');
      const lock = sm.inspectLock('db');
      expect([lock.holderLeaseId, lock.token, lock.waitingLeaseIds]).to.deep.equal([1, 2048, [5]]);
      const fence = sm.fenceRead('orders/42');
      expect([new TextDecoder().decode(fence.value), fence.token]).to.deep.equal(['paid', 2048]);
    } finally {
      await s.close();
    }
  });

  it("refuses another cluster's or another node's format 2 dir before copying or migrating anything (a wrong --data-dir must not leave the owner's dir unreadable to its own build)", async () => {
    await previousFormatDir();
    for (const [clusterId, nodeId] of [
      ['other', 'n1'],
      ['c1', 'n2'],
    ]) {
      const err = await LevelStorage.open({ dir, clusterId, nodeId, voters: VOTERS, writer: WRITER }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(DataDirError);
      expect((err as DataDirError).problem).to.equal('foreign');
      expect((err as Error).message).to.include('nothing was copied or migrated');
      expect(await readdir(parent)).to.deep.equal(['n1']);
      expect(await withDb(dir, async (db) => unsealJson((await db.get(IDENTITY_KEY))!).format)).to.equal(2);
    }
    // The owner's own open still migrates it.
    const s = await LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS, writer: WRITER });
    await s.close();
    expect((await readdir(parent)).length).to.equal(2);
    expect(await withDb(dir, async (db) => unsealJson((await db.get(IDENTITY_KEY))!).format)).to.equal(3);
  });

  it('refuses a dir of a newer storage format (a downgrade) saying which lockd wrote it and what to do, and writes or copies nothing', async () => {
    await previousFormatDir();
    const newer = sealJson({ format: 4, clusterId: 'c1', nodeId: 'n1', writer: 'lockd/0.3.0 storage=4' });
    await withDb(dir, (db) => db.put(IDENTITY_KEY, newer));
    for (const attempt of [
      () => LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS, writer: WRITER }),
      () => migrateDataDir(dir, WRITER, { clusterId: 'c1', nodeId: 'n1' }),
    ]) {
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(DataDirError);
      expect((err as DataDirError).problem).to.equal('format');
      expect((err as DataDirError).message)
        .to.include('storage format 4 was written by lockd/0.3.0 storage=4, a newer lockd than this build (which reads 3 and migrates 2)')
        .and.include('Downgrades are not supported: run that lockd version (or newer) on this data dir')
        .and.include('lockctl member remove');
    }
    await withDb(dir, async (db) => expect(await db.get(IDENTITY_KEY)).to.deep.equal(newer));
    expect(await readdir(parent)).to.deep.equal(['n1']);
  });

  it('does nothing to a dir with no database (a new node) or of the current format', async () => {
    expect(await migrateDataDir(dir, WRITER, { clusterId: 'c1', nodeId: 'n1' })).to.equal(undefined);
    const s = await LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS, writer: WRITER });
    expect(s.created).to.equal(true);
    expect(s.migrated).to.equal(undefined);
    await s.close();
    expect(await migrateDataDir(dir, WRITER, { clusterId: 'c1', nodeId: 'n1' })).to.equal(undefined);
    expect(await readdir(parent)).to.deep.equal(['n1']);
  });
});
