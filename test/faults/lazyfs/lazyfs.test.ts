// lazyfs (lazyfs.py): a power cut drops what was not fsynced and keeps what was, for plain files
// (the calls LevelDB makes: create, append, fdatasync, rename of a synced temp file, mmap reads,
// truncate, lock files) and for LevelStorage itself — a synced persist survives the cut, and the
// same persist with the control build's unsafeNoSync is lost. Needs /dev/fuse, fuse3 and Debian's
// python3-pyfuse3 (scripts/test-deps.sh installs them); a machine without them fails here, saying
// which is missing, rather than skipping.
import { expect } from 'chai';
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LazyFs, lazyFsUnavailable } from './lazyfs.js';
import { LevelStorage } from '../../../src/lockd/storage/level-storage.js';

describe('lazyfs: a FUSE file system that loses unsynced writes on a power cut', function () {
  this.timeout(60_000);
  let dir: string;
  let fs: LazyFs | undefined;

  before(async () => {
    const why = lazyFsUnavailable();
    if (why) throw new Error(`lazyfs cannot run here: ${why}`);
    dir = mkdtempSync(join(tmpdir(), 'lazyfs-test-'));
    fs = await LazyFs.mount(dir);
  });
  after(async () => {
    await fs?.unmount();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a crash keeps fsynced data, synced renames and metadata, and drops every unsynced write', async () => {
    const m = fs!.mountpoint;
    // A log: a synced record, then an unsynced one.
    const log = openSync(join(m, 'log'), 'a');
    writeSync(log, 'record-1\n');
    fdatasyncSync(log);
    writeSync(log, 'record-2\n');
    // The daemon has the write before write() returns (no writeback cache in the kernel): a process
    // killed now has handed it everything it wrote, as the power cut's model needs.
    expect(await fs!.stats()).to.include({ files: 1, bytes: 9 });
    closeSync(log); // close is not a sync
    // The CURRENT pattern: a synced temp file renamed over; and a file never synced.
    writeFileSync(join(m, 'CURRENT.tmp'), 'MANIFEST-1\n');
    const tmp = openSync(join(m, 'CURRENT.tmp'), 'r+');
    fsyncSync(tmp);
    closeSync(tmp);
    renameSync(join(m, 'CURRENT.tmp'), join(m, 'CURRENT'));
    mkdirSync(join(m, 'sub'));
    writeFileSync(join(m, 'sub', 'never-synced'), 'lost');
    // A synced file truncated without a sync: the truncate is data, lost too.
    writeFileSync(join(m, 'cut'), '0123456789');
    const cut = openSync(join(m, 'cut'), 'r+');
    fsyncSync(cut);
    ftruncateSync(cut, 3);
    closeSync(cut);

    // Before the cut every reader sees every write (they are the files' content).
    expect(readFileSync(join(m, 'log'), 'utf8')).to.equal('record-1\nrecord-2\n');
    expect(readFileSync(join(m, 'cut'), 'utf8')).to.equal('012');
    expect(statSync(join(m, 'sub', 'never-synced')).size).to.equal(4);
    const pending = await fs!.stats();
    expect(pending.files).to.equal(3);

    const dropped = await fs!.crash();
    expect(dropped).to.include({ files: 3 });
    expect(await fs!.stats()).to.include({ files: 0, bytes: 0 });
    expect(readFileSync(join(m, 'log'), 'utf8')).to.equal('record-1\n');
    expect(readFileSync(join(m, 'CURRENT'), 'utf8')).to.equal('MANIFEST-1\n');
    expect(readdirSync(m).sort()).to.deep.equal(['CURRENT', 'cut', 'log', 'sub']);
    expect(readFileSync(join(m, 'sub', 'never-synced'), 'utf8')).to.equal('');
    expect(readFileSync(join(m, 'cut'), 'utf8')).to.equal('0123456789');
    // The backing dir holds exactly the durable bytes.
    expect(readFileSync(join(fs!.backing, 'log'), 'utf8')).to.equal('record-1\n');
  });

  it('a torn crash keeps a prefix of the unsynced writes, never more', async () => {
    const m = fs!.mountpoint;
    const f = openSync(join(m, 'torn'), 'a');
    writeSync(f, 'synced|');
    fsyncSync(f);
    for (let i = 0; i < 50; i++) writeSync(f, `w${i};`); // contiguous appends coalesce into one pending write
    closeSync(f);
    const full = readFileSync(join(m, 'torn'), 'utf8');
    const kept = new Set<number>();
    for (let seed = 1; seed <= 3; seed++) {
      writeFileSync(join(m, 'torn'), 'synced|'); // reset: the synced part only
      const g = openSync(join(m, 'torn'), 'r+');
      fsyncSync(g);
      writeSync(g, full.slice(7), 7);
      closeSync(g);
      await fs!.crash(seed);
      const after = readFileSync(join(m, 'torn'), 'utf8');
      expect(full.startsWith(after), `seed ${seed}: ${after}`).to.equal(true);
      expect(after.startsWith('synced|'), `seed ${seed}`).to.equal(true);
      kept.add(after.length);
    }
    expect(kept.size, 'three seeds tear at three places').to.be.greaterThan(1);
  });

  it('LevelStorage across torn power cuts: every synced entry is back, the unsynced tail is a prefix, LevelDB opens every time', async () => {
    const data = join(fs!.mountpoint, 'torn-level');
    const opts = { dir: data, clusterId: 'c', nodeId: 'n1', voters: ['n1', 'n2', 'n3'] };
    const entry = (index: number) => ({ term: 1, index, data: Buffer.alloc(300 + (index % 7) * 100, index % 251) });
    let synced = 0;
    const lasts: number[] = [];
    for (let cut = 1; cut <= 6; cut++) {
      const s = await LevelStorage.open(opts);
      let last = s.memory.lastIndex();
      try {
        expect(last, `cut ${cut}`).to.be.at.least(synced);
        for (let i = 1; i <= last; i++) expect(Buffer.from(s.memory.entries(i, i + 1)[0].data).equals(Buffer.from(entry(i).data)), `entry ${i}`).to.equal(true);
        for (let b = 0; b < 5; b++) {
          await s.persist({ hardState: { term: 1, vote: 'n1', commit: 0 }, entries: [last + 1, last + 2, last + 3].map(entry) }, { sync: true });
          last += 3;
        }
        synced = last;
        for (let b = 0; b < 5; b++) {
          await s.persist({ entries: [last + 1, last + 2].map(entry) }, { sync: false });
          last += 2;
        }
      } finally {
        await s.close();
      }
      await fs!.crash(cut);
      lasts.push(last);
    }
    const s = await LevelStorage.open(opts);
    try {
      expect(s.memory.lastIndex()).to.be.within(synced, lasts[lasts.length - 1]);
    } finally {
      await s.close();
    }
  });

  it("LevelStorage: a synced persist survives the cut; with the control build's unsafeNoSync the same persist is lost", async () => {
    const entries = (from: number, n: number) => Array.from({ length: n }, (_, k) => ({ term: 1, index: from + k, data: Buffer.from(`entry ${from + k}`) }));
    for (const unsafeNoSync of [false, true]) {
      const data = join(fs!.mountpoint, unsafeNoSync ? 'nosync' : 'synced');
      const opts = { dir: data, clusterId: 'c', nodeId: 'n1', voters: ['n1', 'n2', 'n3'], ...(unsafeNoSync ? { unsafeNoSync } : {}) };
      let s = await LevelStorage.open(opts);
      await s.persist({ hardState: { term: 1, vote: 'n1', commit: 0 }, entries: entries(1, 20) }, { sync: true });
      await s.persist({ hardState: { term: 1, vote: 'n1', commit: 20 }, entries: entries(21, 10) }, { sync: true });
      expect(s.memory.lastIndex()).to.equal(30);
      await s.close(); // LevelDB's close syncs nothing: as a kill -9 would leave it
      await fs!.crash();
      s = await LevelStorage.open(opts);
      try {
        if (unsafeNoSync) expect(s.memory.lastIndex(), 'nothing synced: the log is lost').to.equal(0);
        else {
          expect(s.memory.lastIndex()).to.equal(30);
          expect(s.memory.hardState()).to.deep.equal({ term: 1, vote: 'n1', commit: 20 });
        }
      } finally {
        await s.close();
      }
    }
  });
});
