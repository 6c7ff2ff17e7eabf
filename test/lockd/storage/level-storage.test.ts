import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { Level } from 'level';
import type { Entry } from '../../../src/raft/types.js';
import { DataDirError, LevelStorage, type LevelStorageOptions } from '../../../src/lockd/storage/index.js';
import { CONFIG_KEY, HARD_STATE_KEY, ENTRY_RANGE, IDENTITY_KEY, entryKey } from '../../../src/lockd/storage/keys.js';
import { encodeHardState } from '../../../src/lockd/storage/records.js';
import { openLevel, writeBatch } from '../../../src/lockd/storage/db.js';

const VOTERS = ['n1', 'n2', 'n3'];

function ents(from: number, to: number, term: number): Entry[] {
  const out: Entry[] = [];
  for (let i = from; i <= to; i++) out.push({ index: i, term, data: new TextEncoder().encode(`cmd-${i}-t${term}`) });
  return out;
}

describe('LevelStorage', () => {
  let dir: string;
  const open: LevelStorage[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lockd-storage-'));
  });
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function openStorage(over: Partial<LevelStorageOptions> = {}): Promise<LevelStorage> {
    const s = await LevelStorage.open({ dir, clusterId: 'c1', nodeId: 'n1', voters: VOTERS, ...over });
    open.push(s);
    return s;
  }
  async function reopen(s: LevelStorage): Promise<LevelStorage> {
    await s.close();
    return openStorage();
  }
  /** Run fn on the raw LevelDB of the (closed) data dir. */
  async function raw(fn: (db: Level<string, Buffer>) => Promise<void>): Promise<void> {
    const db = new Level<string, Buffer>(dir, { valueEncoding: 'buffer' });
    await db.open();
    try {
      await fn(db);
    } finally {
      await db.close();
    }
  }
  async function refusal(over: Partial<LevelStorageOptions> = {}): Promise<DataDirError> {
    try {
      await openStorage(over);
    } catch (e) {
      expect(e).to.be.instanceOf(DataDirError);
      return e as DataDirError;
    }
    throw new Error('open succeeded but should have refused');
  }

  it('starts empty on a fresh dir with the configured voters', async () => {
    const s = await openStorage();
    expect(s.created).to.equal(true);
    expect(s.memory.lastIndex()).to.equal(0);
    expect(s.memory.firstIndex()).to.equal(1);
    expect(s.memory.initialState().voters).to.deep.equal(VOTERS);
  });

  it('round-trips hard state and entries, and keeps them across a restart', async () => {
    let s = await openStorage();
    await s.persist({ hardState: { term: 2, vote: 'n2', commit: 3 }, entries: ents(1, 5, 2) });
    expect(s.memory.lastIndex()).to.equal(5);
    expect(s.memory.hardState()).to.deep.equal({ term: 2, vote: 'n2', commit: 3 });

    s = await reopen(s);
    expect(s.created).to.equal(false);
    expect(s.memory.hardState()).to.deep.equal({ term: 2, vote: 'n2', commit: 3 });
    expect(s.memory.firstIndex()).to.equal(1);
    expect(s.memory.entries(1, 6)).to.deep.equal(ents(1, 5, 2));
  });

  it('replaces a conflicting suffix on disk, not only in memory', async () => {
    let s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 0 }, entries: ents(1, 6, 1) });
    await s.persist({ hardState: { term: 2, vote: 'n2', commit: 2 }, entries: ents(3, 4, 2) });
    expect(s.memory.lastIndex()).to.equal(4);

    s = await reopen(s);
    expect(s.memory.lastIndex()).to.equal(4);
    expect(s.memory.entries(1, 5)).to.deep.equal([...ents(1, 2, 1), ...ents(3, 4, 2)]);
    await s.close();
    await raw(async (db) => {
      const keys = await db.keys(ENTRY_RANGE).all();
      expect(keys).to.deep.equal([1, 2, 3, 4].map(entryKey));
    });
  });

  it('installs a snapshot from a Ready batch, replacing the whole log', async () => {
    let s = await openStorage();
    await s.persist({ entries: ents(1, 5, 1) });
    const snapshot = { metadata: { index: 8, term: 3, voters: VOTERS }, data: new Uint8Array([7, 7, 7]) };
    await s.persist({ hardState: { term: 3, vote: '', commit: 8 }, entries: ents(9, 10, 3), snapshot });
    expect(s.memory.firstIndex()).to.equal(9);

    s = await reopen(s);
    expect(s.memory.snapshot()).to.deep.equal(snapshot);
    expect(s.memory.firstIndex()).to.equal(9);
    expect(s.memory.lastIndex()).to.equal(10);
    expect(s.memory.term(8)).to.equal(3);
    expect(s.memory.entries(9, 11)).to.deep.equal(ents(9, 10, 3));
  });

  it('compacts: stores the snapshot and deletes the entries it covers', async () => {
    let s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 10 }, entries: ents(1, 10, 1) });
    const data = new TextEncoder().encode('state@6');
    await s.compact(s.memory.createSnapshot(6, data));
    expect(s.memory.firstIndex()).to.equal(7);

    s = await reopen(s);
    expect(s.memory.firstIndex()).to.equal(7);
    expect(s.memory.lastIndex()).to.equal(10);
    expect(s.memory.snapshot()).to.deep.equal({ metadata: { index: 6, term: 1, voters: VOTERS }, data });
    expect(s.memory.entries(7, 11)).to.deep.equal(ents(7, 10, 1));
    await s.close();
    await raw(async (db) => {
      expect(await db.keys(ENTRY_RANGE).all()).to.deep.equal([7, 8, 9, 10].map(entryKey));
    });
  });

  it('rejects a misuse without writing anything and stays usable', async () => {
    const s = await openStorage();
    await s.persist({ entries: ents(1, 3, 1) });
    let err: unknown;
    await s.persist({ entries: ents(5, 6, 1) }).catch((e: unknown) => (err = e));
    expect(String(err)).to.match(/gap after the last index 3/);
    await s.persist({ entries: ents(4, 4, 1) });
    expect(s.memory.lastIndex()).to.equal(4);
  });

  it('refuses a data dir of another cluster or another node', async () => {
    await (await openStorage()).close();
    open.length = 0;
    const other = await refusal({ clusterId: 'c2' });
    expect(other.problem).to.equal('foreign');
    // It says why without naming either cluster id (an id is a secret of the cluster).
    expect(other.message).to.include(dir).and.include('belongs to another cluster').and.include('--cluster-id');
    expect(other.message).not.to.include('"c1"');
    expect(other.message).not.to.include('"c2"');
    const node = await refusal({ nodeId: 'n2' });
    expect(node.problem).to.equal('foreign');
    expect(node.message).to.include(dir).and.include('belongs to node "n1", not "n2"');
  });

  it('stores the voters it was made for and refuses a start that names other ids (the same ids in another order are fine)', async () => {
    const s = await openStorage({ voters: ['n3', 'n1', 'n2'] });
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 0 }, entries: ents(1, 2, 1) });
    await s.close();
    open.length = 0;
    const five = await refusal({ voters: ['n1', 'n2', 'n3', 'n4', 'n5'] });
    expect(five.problem).to.equal('voters');
    expect(five.message).to.include('{n1, n2, n3}').and.include('{n1, n2, n3, n4, n5}');
    const swapped = await refusal({ voters: ['n1', 'n2', 'n4'] });
    expect(swapped.message).to.include('{n1, n2, n3}').and.include('{n1, n2, n4}');
    const again = await openStorage({ voters: ['n2', 'n3', 'n1'] }); // same ids, another order: fine
    expect(again.voters).to.deep.equal(['n1', 'n2', 'n3']);
    expect(again.memory.lastIndex()).to.equal(2);
  });

  it("a data dir from before the voters were stored adopts its snapshot's voters, and is checked from then on", async () => {
    const s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 3 }, entries: ents(1, 3, 1) });
    await s.compact({ metadata: { index: 3, term: 1, voters: VOTERS }, data: new Uint8Array([1]) });
    await s.close();
    open.length = 0;
    await raw((db) => db.del(CONFIG_KEY));
    expect((await refusal({ voters: ['n1', 'n2', 'n3', 'n4', 'n5'] })).problem).to.equal('voters'); // the snapshot says 3
    await (await openStorage()).close(); // records the configuration
    open.length = 0;
    await raw(async (db) => {
      expect(await db.get(CONFIG_KEY)).to.not.equal(undefined);
    });
    expect((await refusal({ voters: ['n1', 'n2', 'n4'] })).problem).to.equal('voters');
  });

  it("keeps a config entry's type across a restart (an old entry reads as normal), and a snapshot's learners, removed ids and config index", async () => {
    let s = await openStorage();
    const change = new TextEncoder().encode('{"op":"addLearner"}');
    const config: Entry = { index: 2, term: 1, data: change, type: 'config' };
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 3 }, entries: [...ents(1, 1, 1), config, ...ents(3, 3, 1)] });
    s = await reopen(s);
    expect(s.memory.entries(1, 4)).to.deep.equal([...ents(1, 1, 1), config, ...ents(3, 3, 1)]);
    expect(s.memory.entries(1, 2)[0]).to.not.have.property('type');

    const metadata = { index: 3, term: 1, voters: ['n1', 'n2', 'n4'], learners: ['n5'], removed: ['n3'], configIndex: 2 };
    await s.compact({ metadata, data: new Uint8Array([9]) });
    s = await reopen(s);
    expect(s.memory.snapshot().metadata).to.deep.equal(metadata);
    expect(s.memory.initialState().voters).to.deep.equal(['n1', 'n2', 'n4']);
  });

  it('once the log or a snapshot holds a configuration, a start naming other voter ids is not refused (--peers gives addresses only)', async () => {
    let s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 2 }, entries: ents(1, 2, 1) });
    await s.close();
    open.length = 0;
    expect((await refusal({ voters: ['n1', 'n2', 'n3', 'n4'] })).problem).to.equal('voters'); // no configuration in the log yet
    s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 3 }, entries: [{ index: 3, term: 1, data: new Uint8Array([1]), type: 'config' }] });
    await s.close();
    open.length = 0;
    s = await openStorage({ voters: ['n1', 'n2', 'n3', 'n4'] });
    expect(s.configured).to.equal(true);
    expect(s.voters).to.deep.equal(VOTERS); // the bootstrap voters, the base the log's config entries replay over
    // Compacted past the config entry: the snapshot's configuration index says so.
    await s.compact({ metadata: { index: 3, term: 1, voters: ['n1', 'n2', 'n3', 'n4'], configIndex: 3 }, data: new Uint8Array([1]) });
    await s.close();
    open.length = 0;
    expect((await openStorage({ voters: ['n1', 'n4', 'n5'] })).configured).to.equal(true);
  });

  it('a data dir made by --join (no voters) takes any --peers, and a new cluster of an even number of voters is refused', async () => {
    const joined = await openStorage({ voters: [] });
    expect(joined.memory.initialState().voters).to.deep.equal([]);
    await joined.savePeers({ n1: { peer: '127.0.0.1:1' } });
    await joined.close();
    open.length = 0;
    const again = await openStorage({ voters: ['n1', 'n2', 'n3', 'n4'] });
    expect(again.voters).to.deep.equal([]);
    expect(again.peerBook).to.deep.equal({ n1: { peer: '127.0.0.1:1' } });
    await again.close();
    open.length = 0;
    await rm(dir, { recursive: true, force: true });
    const even = await refusal({ voters: ['n1', 'n2', 'n3', 'n4'] });
    expect(even.problem).to.equal('voters');
    expect(even.message).to.match(/odd number/);
  });

  it('refuses a data dir of storage format 1 (JSON commands, before the binary command codec) as format, saying why, and changes nothing', async () => {
    const s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 2 }, entries: ents(1, 2, 1) });
    await s.close();
    open.length = 0;
    const old = Buffer.from(JSON.stringify({ format: 1, clusterId: 'c1', nodeId: 'n1' }));
    const sealed = Buffer.concat([Buffer.alloc(4), old]);
    sealed.writeUInt32BE(crc32(old), 0);
    await raw((db) => db.put(IDENTITY_KEY, sealed));
    const err = await refusal();
    expect(err.problem).to.equal('format');
    expect(err.message)
      .to.include('storage format 1 was written by a lockd before the binary command codec (this build reads 3)')
      .and.include('fresh data dirs');
    await raw(async (db) => {
      expect(await db.get(IDENTITY_KEY)).to.deep.equal(sealed);
      expect(await db.get(entryKey(2))).to.not.equal(undefined);
    });
    sealed.set(Buffer.from(JSON.stringify({ format: 7, clusterId: 'c1', nodeId: 'n1' })), 4);
    sealed.writeUInt32BE(crc32(sealed.subarray(4)), 0);
    await raw((db) => db.put(IDENTITY_KEY, sealed));
    const newer = await refusal();
    expect(newer.problem).to.equal('format');
    expect(newer.message)
      .to.include('storage format 7 was written, a newer lockd than this build (which reads 3 and migrates 2)')
      .and.include('Downgrades are not supported');
    sealed.set(Buffer.from(JSON.stringify({ format: 0, clusterId: 'c1', nodeId: 'n1' })), 4);
    sealed.writeUInt32BE(crc32(sealed.subarray(4, 4 + JSON.stringify({ format: 0, clusterId: 'c1', nodeId: 'n1' }).length)), 0);
    await raw((db) => db.put(IDENTITY_KEY, sealed.subarray(0, 4 + JSON.stringify({ format: 0, clusterId: 'c1', nodeId: 'n1' }).length)));
    expect((await refusal()).message).to.include('unknown storage format 0 (this build reads 3)');
  });

  it('writeBatch stores what the public batch() stores, byte for byte, and goes the public way on a database still opening or closed', async () => {
    const a = openLevel(join(dir, 'a'));
    const b = openLevel(join(dir, 'b'));
    const ops = [
      { type: 'put' as const, key: entryKey(1), value: Buffer.from([0, 1, 255]) },
      { type: 'put' as const, key: 'm:ünï', value: Buffer.alloc(0) },
      { type: 'del' as const, key: entryKey(1) },
      { type: 'put' as const, key: entryKey(2), value: Buffer.from('two') },
    ];
    await writeBatch(a, ops, true); // still opening: deferred by the public path
    await b.open();
    await b.batch(ops, { sync: true });
    await writeBatch(b, [{ type: 'put', key: entryKey(3), value: Buffer.from('three') }], false);
    await writeBatch(a, [{ type: 'put', key: entryKey(3), value: Buffer.from('three') }], false);
    const dump = async (db: typeof a) => {
      const out: [string, string][] = [];
      for await (const [k, v] of db.iterator()) out.push([k, v.toString('hex')]);
      return out;
    };
    expect(await dump(a)).to.deep.equal(await dump(b));
    expect((await dump(a)).map(([k]) => k)).to.deep.equal([entryKey(2), entryKey(3), 'm:ünï']);
    await a.close();
    await b.close();
    let err: unknown;
    await writeBatch(a, ops, true).catch((e: unknown) => (err = e));
    expect(String(err)).to.match(/not open/i);
  });

  it('refuses an entry that fails its checksum', async () => {
    const s = await openStorage();
    await s.persist({ entries: ents(1, 3, 1) });
    await s.close();
    await raw(async (db) => {
      const value = await db.get(entryKey(2));
      value![value!.length - 1] ^= 0xff; // flip bits in the entry's data
      await db.put(entryKey(2), value!);
    });
    const err = await refusal();
    expect(err.problem).to.equal('corrupt');
    expect(err.message).to.include(entryKey(2)).and.include('checksum mismatch');
  });

  it('refuses a log with a gap', async () => {
    const s = await openStorage();
    await s.persist({ entries: ents(1, 4, 1) });
    await s.close();
    await raw((db) => db.del(entryKey(2)));
    const err = await refusal();
    expect(err.problem).to.equal('corrupt');
    expect(err.message).to.include('gap in the log: entry 3 follows 1');
  });

  it('refuses a log missing committed entries', async () => {
    const s = await openStorage();
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 2 }, entries: ents(1, 2, 1) });
    await s.close();
    await raw((db) => db.put(HARD_STATE_KEY, encodeHardState({ term: 1, vote: 'n1', commit: 5 })));
    expect((await refusal()).message).to.include('committed, but the log ends at 2');
  });

  it('refuses a path LevelDB cannot use', async () => {
    await writeFile(join(dir, 'file'), 'not a directory');
    const err = await refusal({ dir: join(dir, 'file') });
    expect(err.problem).to.equal('unusable');
    expect(err.message).to.include('LevelDB failed to open');
  });

  it('refuses a data dir another process (or handle) holds open', async () => {
    await openStorage();
    expect((await refusal()).problem).to.equal('locked');
  });
});
