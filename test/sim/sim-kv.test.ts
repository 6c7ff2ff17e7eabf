// The simulated disk's byte store (sim-kv.ts) and its faults, with LevelStorage itself over it (the production
// port), and the simulator's start path (sim-load.ts): unsynced writes lost on a power cut, a torn write and a
// bit flip refused by the records' CRC (and accepted by the planted loader bug), a failed write rejected with
// nothing written and the storage failed from then on.
import { expect } from 'chai';
import { DataDirError, LevelStorage } from '../../src/lockd/storage/index.js';
import type { Entry } from '../../src/raft/types.js';
import { Disk, type DiskWrite } from './disk.js';
import { Prng } from './prng.js';
import { KvWriteError, SimKv } from './sim-kv.js';
import { SIM_CLUSTER, SIM_WRITER, integrityProblem, loadSimDir } from './sim-load.js';
import { CONFIG_KEY, IDENTITY_KEY, entryKey } from '../../src/lockd/storage/keys.js';
import { encodeConfiguration, encodeEntry, encodeIdentity } from '../../src/lockd/storage/records.js';

const VOTERS = ['n1', 'n2', 'n3'];
const ents = (from: number, to: number, term: number): Entry[] =>
  Array.from({ length: to - from + 1 }, (_, k) => ({ index: from + k, term, data: new TextEncoder().encode(`command number ${from + k} of term ${term}`) }));

function openOn(kv: SimKv): Promise<LevelStorage> {
  return LevelStorage.open({ dir: '/sim/n1', clusterId: 'c1', nodeId: 'n1', voters: VOTERS, openKv: () => kv.store() });
}

const refusal = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('simulated KV (sim-kv.ts) under LevelStorage', () => {
  it('keeps synced writes and loses unsynced ones in a power cut; a process crash loses nothing handed to it', async () => {
    const kv = new SimKv();
    const s = await openOn(kv);
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 0 }, entries: ents(1, 2, 1) }, { sync: true });
    await s.persist({ entries: ents(3, 4, 1) }, { sync: false });
    await s.close();
    expect((await openOn(kv)).memory.lastIndex(), 'after a process crash').to.equal(4);
    kv.powerCut(0, new Prng(1));
    const r = await openOn(kv);
    expect(r.memory.lastIndex(), 'after a power cut').to.equal(2);
    expect(r.memory.hardState().term).to.equal(1);
  });

  it('a torn write fails its CRC: LevelStorage.open refuses the dir as corrupt; repaired, it opens on the intact records', async () => {
    const kv = new SimKv();
    const s = await openOn(kv);
    await s.persist({ hardState: { term: 1, vote: 'n1', commit: 0 }, entries: ents(1, 2, 1) }, { sync: true });
    await s.persist({ entries: ents(3, 3, 1) }, { sync: false });
    await s.close();
    // The unsynced batch (entry 3) was being written when the power went: it lands with its value's tail zeroed.
    expect(kv.powerCut(0, new Prng(2), [{ type: 'put', key: entryKey(3), value: encodeEntry(ents(3, 3, 1)[0]) }])).to.equal(true);
    expect(kv.damaged).to.equal(true);
    const err = await refusal(openOn(kv));
    expect(err).to.be.instanceOf(DataDirError);
    expect((err as DataDirError).problem).to.equal('corrupt');
    expect((err as Error).message).to.match(/checksum mismatch/);
    kv.repair();
    expect((await openOn(kv)).memory.lastIndex()).to.equal(2);
  });

  it('a bit flip in any stored value is refused as corrupt, whichever record it hits', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const kv = new SimKv();
      const s = await openOn(kv);
      await s.persist({ hardState: { term: 3, vote: 'n2', commit: 2 }, entries: ents(1, 3, 3) });
      await s.close();
      const key = kv.flipBit(new Prng(seed));
      expect(key, `seed ${seed}`).to.be.a('string');
      const err = await refusal(openOn(kv));
      expect((err as DataDirError).problem, `seed ${seed}: flipped ${key}`).to.equal('corrupt');
    }
  });

  it('EIO and ENOSPC: the write rejects with nothing of it stored, and the storage refuses every later write', async () => {
    for (const code of ['EIO', 'ENOSPC'] as const) {
      const kv = new SimKv();
      const s = await openOn(kv);
      await s.persist({ entries: ents(1, 1, 1) });
      kv.failNext = code;
      const err = await refusal(s.persist({ hardState: { term: 1, vote: '', commit: 1 }, entries: ents(2, 3, 1) }));
      expect(err).to.be.instanceOf(KvWriteError);
      expect((err as Error).message).to.contain(code);
      expect(s.memory.lastIndex(), 'the mirror shows nothing of it').to.equal(1);
      expect(await refusal(s.persist({ entries: ents(2, 2, 1) }))).to.match(/an earlier write failed/);
      await s.close();
      const r = await openOn(kv);
      expect(r.memory.lastIndex(), 'nothing of it on disk').to.equal(1);
      expect(r.memory.hardState().commit).to.equal(0);
    }
  });
});

describe('simulated start (sim-load.ts)', () => {
  function freshDisk(): Disk {
    const d = new Disk();
    d.kv.writeSync(
      [
        { type: 'put', key: IDENTITY_KEY, value: encodeIdentity({ clusterId: SIM_CLUSTER, nodeId: 'n1' }, SIM_WRITER) },
        { type: 'put', key: CONFIG_KEY, value: encodeConfiguration({ voters: VOTERS }) },
      ],
      true,
    );
    return d;
  }
  const batch = (from: number, to: number, term: number, commit: number): DiskWrite => ({
    kind: 'batch',
    sync: true,
    hardState: { term, vote: 'n1', commit },
    entries: ents(from, to, term),
  });

  it('reads back exactly what the disk image says was written, through the real loader', () => {
    const d = freshDisk();
    d.write(batch(1, 3, 1, 1));
    d.write(batch(3, 4, 2, 3)); // replaces entry 3
    const r = loadSimDir(d.kv, 'n1', []);
    expect(r.ok).to.equal(true);
    if (r.ok) expect(integrityProblem(r.verified, d.cached)).to.equal(undefined);
  });

  it('a torn write is refused by the correct loader and accepted by the planted torn-record-accepted, which the integrity check reports', () => {
    const d = freshDisk();
    d.write(batch(1, 2, 1, 1));
    const inflight = batch(3, 3, 1, 2);
    const cut = d.powerCut(new Prng(5), true, inflight);
    expect(cut.torn).to.equal(true);
    const r = loadSimDir(d.kv, 'n1', []);
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.error.problem).to.equal('corrupt');
    const bad = loadSimDir(d.kv, 'n1', [], 'torn-record-accepted');
    expect(bad.ok).to.equal(true);
    if (bad.ok) expect(integrityProblem(bad.verified, d.cached)).to.be.a('string');
    d.kv.repair();
    const again = loadSimDir(d.kv, 'n1', []);
    expect(again.ok && integrityProblem(again.verified, d.cached)).to.equal(undefined);
  });

  it('a failed write changes neither the byte store nor the image', () => {
    const d = freshDisk();
    d.write(batch(1, 2, 1, 1));
    d.kv.failNext = 'EIO';
    expect(() => d.write(batch(3, 3, 1, 2))).to.throw(KvWriteError);
    expect(d.cached.lastIndex()).to.equal(2);
    const r = loadSimDir(d.kv, 'n1', []);
    expect(r.ok && integrityProblem(r.verified, d.cached)).to.equal(undefined);
  });
});
