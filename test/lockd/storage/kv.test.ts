// The key-value port's LevelDB adapter (kv.ts): what LevelStorage and the loader ask of a store, on a real
// LevelDB in a temp dir, and LevelStorage over the port.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DataDirError } from '../../../src/lockd/storage/data-dir-errors.js';
import { LevelStorage } from '../../../src/lockd/storage/index.js';
import { ENTRY_RANGE, entryKey } from '../../../src/lockd/storage/keys.js';
import { type KvStore, openLevelKv } from '../../../src/lockd/storage/kv.js';

async function all(kv: KvStore, range: Parameters<KvStore['entries']>[0]): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of kv.entries(range)) out.push([k, v.toString()]);
  return out;
}

describe('storage KV port (LevelDB adapter)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lockd-kv-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gets, batches puts and deletes atomically, and reads ranges in key order with a limit', async () => {
    const kv = openLevelKv(dir);
    await kv.open();
    try {
      expect(await kv.get('m:x')).to.equal(undefined);
      await kv.batch(
        [
          { type: 'put', key: entryKey(3), value: Buffer.from('three') },
          { type: 'put', key: entryKey(1), value: Buffer.from('one') },
          { type: 'put', key: entryKey(2), value: Buffer.from('two') },
          { type: 'put', key: 'm:x', value: Buffer.from('meta') },
        ],
        { sync: true },
      );
      await kv.batch([{ type: 'del', key: entryKey(2) }], { sync: false });
      expect((await kv.get('m:x'))?.toString()).to.equal('meta');
      expect(await all(kv, ENTRY_RANGE)).to.deep.equal([
        [entryKey(1), 'one'],
        [entryKey(3), 'three'],
      ]);
      expect(await all(kv, { limit: 1 })).to.deep.equal([[entryKey(1), 'one']]);
    } finally {
      await kv.close();
    }
    const again = openLevelKv(dir);
    await again.open();
    try {
      expect((await again.get(entryKey(3)))?.toString()).to.equal('three'); // it was on disk
    } finally {
      await again.close();
    }
  });

  it('a second open of the same dir is refused as the DataDirError "locked" a start exits with', async () => {
    const a = openLevelKv(dir);
    await a.open();
    try {
      const err = await openLevelKv(dir)
        .open()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).to.be.instanceOf(DataDirError);
      expect((err as DataDirError).problem).to.equal('locked');
    } finally {
      await a.close();
    }
  });

  it('LevelStorage runs over the store openKv gives it (the production default is LevelDB)', async () => {
    let opened = 0;
    const opts = { dir, clusterId: 'c1', nodeId: 'n1', voters: ['n1', 'n2', 'n3'], openKv: (d: string) => (opened++, openLevelKv(d)) };
    const s = await LevelStorage.open(opts);
    await s.persist({ hardState: { term: 2, vote: 'n1', commit: 1 }, entries: [{ index: 1, term: 2, data: new Uint8Array([7]) }] });
    await s.close();
    const r = await LevelStorage.open(opts);
    try {
      expect(opened).to.equal(2);
      expect(r.memory.lastIndex()).to.equal(1);
      expect(r.memory.hardState()).to.deep.equal({ term: 2, vote: 'n1', commit: 1 });
    } finally {
      await r.close();
    }
  });
});
