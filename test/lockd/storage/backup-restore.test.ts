// The pieces of backup, restore and --force-new-cluster without any server: the backup file's
// checks, a state moved past the backup's index (tokens above every earlier one, leases with the
// deadlines they had), `lockd restore` writing a data dir (and its refusals), and the forced
// rewrite of a survivor's data dir (one-shot). Real LevelDB in temp dirs.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import {
  LockStateMachine,
  MAX_TOKEN_INDEX,
  encodeCommand,
  firstTokenOf,
  rebaseState,
  replayAndRebase,
  summarizeState,
  SNAPSHOT_FORMAT_VERSION,
  type Command,
} from '../../../src/lockd/state-machine/index.js';
import { BackupFileError, clusterFingerprint, decodeBackup, encodeBackup } from '../../../src/lockd/storage/backup-file.js';
import { DataDirError, LevelStorage, RESTORING_MARK, markRestoring } from '../../../src/lockd/storage/index.js';
import { forceNewCluster } from '../../../src/lockd/storage/force-new-cluster.js';
import { runRestore } from '../../../src/lockd/tools/restore/run-restore.js';
import { ConfigLog } from '../../../src/raft/config-log.js';
import { applyChange, encodeConfigEntry, type Configuration } from '../../../src/raft/membership.js';
import { Harness } from '../state-machine/harness.js';
import { harnessLoop } from '../node/loop-harness.js';

/** A state with a lease holding a lock, a fenced write and an access rule. */
function sampleState(): { h: Harness; leaseId: number; token: number } {
  const h = new Harness();
  const leaseId = h.grant(60_000);
  const token = h.acquire('db', leaseId).token;
  h.ok({ type: 'FenceWrite', key: 'row', value: new TextEncoder().encode('v1'), token });
  h.ok({ type: 'AclGrant', subject: 'alice', prefix: 'shared/', verb: 'lock', principal: 'root', admin: true, acl: true });
  h.tick(150);
  return { h, leaseId, token };
}

function backupOf(sm: LockStateMachine, clusterId = 'old-cluster'): Buffer {
  return encodeBackup(
    {
      stateFormat: SNAPSHOT_FORMAT_VERSION,
      index: sm.appliedIndex,
      term: 3,
      voters: ['n1', 'n2', 'n3'],
      learners: [],
      removed: [],
      takenBy: 'n1',
      takenAt: '2026-12-02T00:00:00.000Z',
      sourceCluster: clusterFingerprint(clusterId),
    },
    sm.snapshot(),
  );
}

describe('backup file', () => {
  it('round-trips, and refuses a damaged, truncated or foreign file with the reason', () => {
    const { h } = sampleState();
    const bytes = backupOf(h.sm);
    const { header, state } = decodeBackup(bytes);
    expect(header).to.include({ index: h.sm.appliedIndex, term: 3, takenBy: 'n1', fileFormat: 1 });
    expect(Buffer.from(state).equals(Buffer.from(h.sm.snapshot()))).to.equal(true);
    const damaged = Buffer.from(bytes);
    damaged[40] ^= 1;
    expect(() => decodeBackup(damaged)).to.throw(BackupFileError, /checksum mismatch/);
    expect(() => decodeBackup(bytes.subarray(0, bytes.length - 10))).to.throw(BackupFileError, /checksum mismatch/);
    expect(() => decodeBackup(Buffer.from('hello world, this is not a backup at all, nope'))).to.throw(BackupFileError, /not a lockd backup/);
    // Well-formed and checksummed, but crafted: an entry at index >= 1 has a term >= 1.
    const crafted = encodeBackup({ ...header, term: 0 }, state);
    expect(() => decodeBackup(crafted)).to.throw(BackupFileError, /header term is 0/);
  });
});

describe('a state moved past the backup (restore)', () => {
  it('keeps every lease deadline and the logical clock; the next grant gets a token above every earlier one; never moves back', () => {
    const { h, leaseId, token } = sampleState();
    const before = summarizeState(h.sm.snapshot());
    const ttlBefore = h.sm.timeToLive(leaseId)!;
    const at = h.sm.appliedIndex + 1_000_000;
    const moved = LockStateMachine.fromSnapshot(rebaseState(h.sm.snapshot(), at), { checkEveryApply: true });
    expect(moved.appliedIndex).to.equal(at);
    expect(moved.now).to.equal(h.sm.now);
    expect(moved.timeToLive(leaseId)).to.deep.equal(ttlBefore);
    expect(moved.inspectLock('db').holders.map((x) => x.token)).to.deep.equal([token]);
    const m = new Harness(moved);
    const lease2 = m.grant(10_000);
    const next = m.acquire('other', lease2).token;
    expect(next)
      .to.be.greaterThan(before.highestToken)
      .and.at.least(firstTokenOf(at + 1));
    expect(() => rebaseState(h.sm.snapshot(), h.sm.appliedIndex - 1)).to.throw(/only moves forward/);
  });
});

describe('lockd restore (in process)', () => {
  let base: string;
  let out: PassThrough;
  let err: PassThrough;
  const text = (s: PassThrough) => String(s.read() ?? '');
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'lockd-restore-'));
    out = new PassThrough();
    err = new PassThrough();
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const peers = 'n1=127.0.0.1:7101,n2=127.0.0.1:7102,n3=127.0.0.1:7103';
  const run = (args: string[]) => runRestore(args, { stdout: out, stderr: err });

  it('makes each node a data dir at backup + bump with a new cluster id shared through the file; refuses what would diverge', async () => {
    const { h } = sampleState();
    const file = join(base, 'backup.lockd');
    writeFileSync(file, backupOf(h.sm));
    const idFile = join(base, 'cluster-id');
    const common = ['--from', file, '--peers', peers, '--cluster-id-file', idFile, '--bump-index', '1000'];
    expect(await run(['--data-dir', join(base, 'n1'), '--id', 'n1', ...common]), text(err)).to.equal(0);
    expect(text(out)).to.match(/the log starts at \d+ \(--bump-index 1000\)/);
    expect(await run(['--data-dir', join(base, 'n2'), '--id', 'n2', ...common]), text(err)).to.equal(0);
    const clusterId = readFileSync(idFile, 'utf8').trim();
    const s = await LevelStorage.open({ dir: join(base, 'n2'), clusterId, nodeId: 'n2', voters: ['n1', 'n2', 'n3'] });
    try {
      const snap = s.memory.snapshot();
      expect(snap.metadata).to.deep.include({ index: h.sm.appliedIndex + 1000, term: 3, voters: ['n1', 'n2', 'n3'] });
      expect(LockStateMachine.fromSnapshot(snap.data).appliedIndex).to.equal(h.sm.appliedIndex + 1000);
      expect(s.memory.lastIndex()).to.equal(h.sm.appliedIndex + 1000);
    } finally {
      await s.close();
    }
    // Another --bump-index on the third node: refused (its log would disagree with the others').
    expect(await run(['--data-dir', join(base, 'n3'), '--id', 'n3', ...common.slice(0, -1), '7'])).to.equal(3);
    expect(text(err)).to.match(/made for another restore/);
    // A data dir that exists is never written over.
    expect(await run(['--data-dir', join(base, 'n1'), '--id', 'n1', ...common])).to.equal(3);
    expect(text(err)).to.match(/not an empty directory/);
    // The backed-up cluster's own id may not be reused.
    const oldId = join(base, 'old-id');
    writeFileSync(oldId, 'old-cluster\n', { mode: 0o600 });
    chmodSync(oldId, 0o600);
    expect(await run(['--data-dir', join(base, 'n9'), '--id', 'n1', '--from', file, '--peers', peers, '--cluster-id-file', oldId])).to.equal(3);
    expect(text(err)).to.match(/the id of the cluster the backup came from/);
    // An even number of voters, a damaged backup, a missing flag.
    expect(
      await run([
        '--data-dir',
        join(base, 'n8'),
        '--id',
        'n1',
        '--from',
        file,
        '--peers',
        'n1=127.0.0.1:1,n2=127.0.0.1:2',
        '--cluster-id-file',
        join(base, 'x'),
      ]),
    ).to.equal(2);
    const bad = join(base, 'bad.lockd');
    const b = backupOf(h.sm);
    b[50] ^= 0xff;
    writeFileSync(bad, b);
    expect(await run(['--data-dir', join(base, 'n7'), '--id', 'n1', '--from', bad, '--peers', peers, '--cluster-id-file', join(base, 'y')])).to.equal(3);
    expect(text(err)).to.match(/checksum mismatch/);
    // A directory given as the backup (e.g. the node's own data dir): refused by name, exit 3, nothing made.
    expect(await run(['--data-dir', join(base, 'n4'), '--id', 'n1', '--from', base, '--peers', peers, '--cluster-id-file', join(base, 'w')])).to.equal(3);
    expect(text(err)).to.match(/not a file \(a directory\)/);
    expect(existsSync(join(base, 'n4'))).to.equal(false);
    expect(await run(['--data-dir', join(base, 'n6'), '--id', 'n1', '--peers', peers])).to.equal(2);
    expect(
      await run(['--data-dir', join(base, 'n5'), '--id', 'n1', '--from', file, '--peers', peers, '--cluster-id-file', join(base, 'z'), '--bump-index=-1']),
    ).to.equal(2);
    expect(text(err)).to.match(/--bump-index must be an integer ≥ 0, got "-1"/);
  });

  it('an interrupted restore leaves a dir no node opens (the mark goes in first and out last)', async () => {
    const { h } = sampleState();
    const file = join(base, 'backup.lockd');
    writeFileSync(file, backupOf(h.sm));
    const idFile = join(base, 'cluster-id');
    expect(await run(['--data-dir', join(base, 'n1'), '--id', 'n1', '--from', file, '--peers', peers, '--cluster-id-file', idFile]), text(err)).to.equal(0);
    expect(existsSync(join(base, 'n1', RESTORING_MARK))).to.equal(false);
    // Interrupted after LevelStorage.open wrote the new identity, before the snapshot went in.
    const dir = join(base, 'cut');
    mkdirSync(dir);
    markRestoring(dir);
    const clusterId = readFileSync(idFile, 'utf8').trim();
    await (await LevelStorage.open({ dir, clusterId, nodeId: 'n1', voters: ['n1', 'n2', 'n3'], restoring: true })).close();
    const refused = await LevelStorage.open({ dir, clusterId, nodeId: 'n1', voters: ['n1', 'n2', 'n3'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(DataDirError);
    expect((refused as Error).message).to.match(/a lockd restore into it did not finish .*run the restore again/);
  });
});

describe('--force-new-cluster on a data dir', () => {
  let dir: string;
  const identity = { clusterId: 'c1', nodeId: 'n1' };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockd-force-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const opts = (again = false) => ({
    dir,
    identity,
    again,
    at: '2026-12-02T00:00:00.000Z',
    context: () => JSON.stringify({ v: 1, addresses: {}, forced: { by: 'n1', at: 'now' } }),
    bump: 100,
    maxIndex: MAX_TOKEN_INDEX - 1,
    rebase: replayAndRebase,
  });
  async function configOf(): Promise<{
    voters: readonly string[];
    learners: readonly string[];
    removed: readonly string[];
    last: number;
    commit: number;
    term: number;
  }> {
    const s = await LevelStorage.open({ dir, ...identity, voters: [] });
    try {
      const m = s.memory;
      // From the snapshot's configuration when there is one (a forced dir has), else the bootstrap one.
      const md = m.snapshot().metadata;
      const base =
        md.index > 0
          ? { index: md.configIndex ?? 0, config: { voters: [...md.voters], learners: [...(md.learners ?? [])], removed: [...(md.removed ?? [])] } }
          : { index: 0, config: { voters: [...s.voters], learners: [], removed: [] } };
      const log = new ConfigLog(base, 'n1');
      if (m.lastIndex() >= m.firstIndex()) log.appended(m.entries(m.firstIndex(), m.lastIndex() + 1));
      return { ...log.current().config, last: m.lastIndex(), commit: m.hardState().commit, term: m.hardState().term };
    } finally {
      await s.close();
    }
  }

  it('moves the whole log (committed or not) to a snapshot at last + bump, appends one removal per member in a new term, is one-shot, and refuses what it must not do', async () => {
    const s = await LevelStorage.open({ dir, ...identity, voters: ['n1', 'n2', 'n3'] });
    // 1 Grant (lease 1), 2 Acquire db (token 2·1024), 3 Tick, 4 Grant (lease 4), 5 Tick: only 3 known committed.
    const cmds: Command[] = [
      { type: 'Grant', ttlMs: 60_000, marginMs: 0 },
      { type: 'Acquire', name: 'db', leaseId: 1, wait: false },
      { type: 'Tick', elapsedMs: 100, marginMs: 0, renewed: [] },
      { type: 'Grant', ttlMs: 60_000, marginMs: 0 },
      { type: 'Tick', elapsedMs: 100, marginMs: 0, renewed: [] },
    ];
    const log = cmds.map((c, i) => ({ index: i + 1, term: 2, data: encodeCommand(c) }));
    await s.persist({ hardState: { term: 2, vote: 'n2', commit: 3 }, entries: log });
    await s.close();

    const forced = await forceNewCluster(opts());
    expect(forced).to.deep.include({
      kind: 'forced',
      removed: ['n2', 'n3'],
      first: 106,
      last: 107,
      term: 3,
      storedCommit: 3,
      survivorLast: 5,
      snapshotIndex: 105,
    });
    expect(await configOf()).to.deep.include({ voters: ['n1'], learners: [], removed: ['n2', 'n3'], last: 107, commit: 105, term: 3 });

    // The real driver loop on the forced log: n1 elects itself alone and commits everything it holds.
    const opened = await LevelStorage.open({ dir, ...identity, voters: ['n1', 'n2', 'n3'] });
    try {
      const snap = opened.memory.snapshot();
      expect(snap.metadata).to.deep.include({ index: 105, term: 3, voters: ['n1', 'n2', 'n3'] });
      expect(opened.memory.firstIndex()).to.equal(106); // the old entries are gone
      // The state is all five entries' (the uncommitted lease 4 included), as of 105, on the clock of entry 5.
      const sm = LockStateMachine.fromSnapshot(snap.data);
      expect(sm.appliedIndex).to.equal(105);
      expect(sm.now).to.equal(200);
      expect(sm.inspectLock('db')).to.deep.include({ held: true, token: firstTokenOf(2) });
      expect(sm.listLeases().map((l) => l.leaseId)).to.deep.equal([1, 4]);
      const applied: number[] = [];
      const { loop, run } = harnessLoop({ id: 'n1', voters: opened.voters, memory: opened.memory, preVote: true });
      loop.onApplied((e) => applied.push(e.index));
      for (let k = 0; k < 40 && !loop.isLeader(); k++) {
        loop.tick();
        run();
      }
      run();
      expect(loop.isLeader()).to.equal(true);
      expect(loop.status()).to.deep.include({ term: 4, commit: 108, voters: ['n1'], removed: ['n2', 'n3'] });
      expect(applied).to.deep.equal([106, 107, 108]);
      // A grant after the force: its lease id and token are past last + bump, so above anything
      // the old cluster issued at indexes 6..105 that this node never saw.
      sm.apply({ index: 109, term: 4, data: encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0 }) });
      const out = sm.apply({ index: 110, term: 4, data: encodeCommand({ type: 'Acquire', name: 'other', leaseId: 109, wait: false }) });
      expect(out.result).to.deep.include({ ok: true, token: firstTokenOf(110) });
    } finally {
      await opened.close();
    }

    // Again with the flag left on: nothing to do while n1 is alone.
    expect(await forceNewCluster(opts())).to.deep.include({ kind: 'alone', configIndex: 107 });
    // Members added since (n4 as a voter at entry 108): a leftover flag is refused...
    const s2 = await LevelStorage.open({ dir, ...identity, voters: [] });
    const after: Configuration = applyChange({ voters: ['n1'], learners: [], removed: ['n2', 'n3'] }, { op: 'addVoter', node: 'n4' });
    await s2.persist({
      hardState: { term: 4, vote: 'n1', commit: 108 },
      entries: [{ index: 108, term: 4, type: 'config', data: encodeConfigEntry({ change: { op: 'addVoter', node: 'n4' }, config: after }) }],
    });
    await s2.close();
    const refused = await forceNewCluster(opts()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(DataDirError);
    expect((refused as Error).message).to.match(/forced into a new cluster already .* --force-new-cluster-again/);
    expect((await configOf()).voters).to.deep.equal(['n1', 'n4']);
    // ...unless the operator says again.
    expect(await forceNewCluster(opts(true))).to.deep.include({
      kind: 'forced',
      removed: ['n4'],
      survivorLast: 108,
      snapshotIndex: 208,
      first: 209,
      last: 209,
      term: 5,
    });
    expect((await configOf()).voters).to.deep.equal(['n1']);
  });

  it('refuses a dir with no data, and a removed node', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const e1 = await forceNewCluster({ ...opts(), dir: empty }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(e1?.message).to.match(/no LevelDB database here/);
    const s = await LevelStorage.open({ dir, ...identity, voters: ['n1', 'n2', 'n3'] });
    const removed: Configuration = applyChange({ voters: ['n1', 'n2', 'n3'], learners: [], removed: [] }, { op: 'remove', node: 'n1' });
    await s.persist({
      hardState: { term: 2, vote: 'n2', commit: 1 },
      entries: [{ index: 1, term: 2, type: 'config', data: encodeConfigEntry({ change: { op: 'remove', node: 'n1' }, config: removed }) }],
    });
    await s.close();
    const e2 = await forceNewCluster(opts()).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(e2?.message).to.match(/n1 was removed from the cluster/);
  });

  it('refuses a bump that would carry the log past the last index that can mint a token, and leaves the dir as it was', async () => {
    const s = await LevelStorage.open({ dir, ...identity, voters: ['n1', 'n2', 'n3'] });
    await s.persist({
      hardState: { term: 2, vote: 'n2', commit: 1 },
      entries: [{ index: 1, term: 2, data: encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0 }) }],
    });
    await s.close();
    const e = await forceNewCluster({ ...opts(), bump: MAX_TOKEN_INDEX }).then(
      () => undefined,
      (x: unknown) => x as Error,
    );
    expect(e).to.be.instanceOf(DataDirError);
    expect(e?.message).to.match(/--bump-index \d+: the log would reach \d+, past the last index that can mint a fencing token/);
    expect(await configOf()).to.deep.include({ voters: ['n1', 'n2', 'n3'], last: 1, commit: 1, term: 2 });
  });
});
