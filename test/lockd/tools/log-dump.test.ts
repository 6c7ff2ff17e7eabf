// `lockctl log dump` on real data dirs: a 3-node cluster that took snapshots (--snapshot-every 20),
// one node stopped and dumped — entries decoded, --from, --type, --json, the snapshot summary — and
// the refusals: a running node's dir (LevelDB's lock), a dir that is not a data dir (left untouched).
// --compare on the dirs of another cluster whose logs really diverged: its leader, cut off from
// both followers (they are killed), appends an entry no majority stores; it dies, the followers come
// back and elect a new leader, whose first entry takes that index. The two followers compare
// identical; the old leader and a follower differ first at that index.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { Level } from 'level';
import { LockClient } from '../../../src/client/index.js';
import { LOCKCTL_MAIN } from '../../support/build.js';
import { ProcessCluster } from '../../support/process-cluster.js';
import { reapOnExit } from '../../support/reaper.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function lockctl(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [LOCKCTL_MAIN, ...args], { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
    reapOnExit(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The entry rows of a human dump: index, term, logical now (undefined: '?'), type, command. */
function rows(out: string): Array<{ index: number; term: number; now: number | undefined; type: string; command: string }> {
  return out.split('\n').flatMap((l) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+|\?)\s{2}(\S+)\s+(.*)$/.exec(l);
    return m ? [{ index: Number(m[1]), term: Number(m[2]), now: m[3] === '?' ? undefined : Number(m[3]), type: m[4], command: m[5] }] : [];
  });
}

describe('lockctl log dump', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster;
  let dir: string;
  const key = 'dump/row';

  /** SIGTERM n1 and wait until it is gone (a stopped node: its data dir unlocked). */
  async function stopN1(): Promise<void> {
    const n1 = cluster.node('n1');
    const exited = new Promise((r) => n1.proc!.once('exit', r));
    cluster.signal('n1', 'SIGTERM');
    await exited;
  }

  before(async () => {
    // As a per-node flag, not extraArgs: those come last on the command line and would win over the
    // restart's override below, so n1 would go on snapshotting and compact the entries this test reads.
    cluster = await ProcessCluster.start({ size: 3, nodeFlags: () => ({ '--snapshot-every': '20' }) });
    await cluster.waitForLeader();
    const client = new LockClient({ endpoints: cluster.nodes.map((n) => n.address) });
    try {
      // Enough entries for snapshots (every 20 applied) on every node...
      const first = await client.acquire('dump/lock', { ttlMs: 5_000, wait: false });
      for (let k = 0; k < 45; k++) await client.fenceWrite(key, `v${k}`, first.token);
      await first.release();
      await cluster.waitForApplied((await client.status()).commitIndex);
      // ...then n1 takes no more snapshots, so what follows stays in its log, after its last one.
      await stopN1();
      cluster.startNode('n1', { '--snapshot-every': '10000000' });
      await cluster.waitForLeader();
      const lock = await client.acquire('dump/lock', { ttlMs: 5_000, wait: false });
      await client.fenceWrite(key, 'last', lock.token);
      await lock.release();
      await cluster.waitForApplied((await client.status()).commitIndex);
    } finally {
      client.close();
    }
    await stopN1();
    dir = cluster.node('n1').dataDir;
  });
  after(async () => {
    await cluster?.stop();
  });

  it('prints the identity, hard state, snapshot summary and every entry after it, decoded', async () => {
    const r = await lockctl(['log', 'dump', '--data-dir', dir]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^data dir .*: node n1 of cluster test-\d+, voters n1, n2, n3$/m);
    expect(r.stdout).to.match(/^hard state: term \d+, voted for (n\d|\(nobody\)), commit index \d+$/m);
    const snap =
      /^snapshot: index (\d+), term \d+, voters n1, n2, n3, \d+ bytes: logical now \d+ ms, (\d+) leases, (\d+) locks held \(0 waiting\), (\d+) fenced keys/m.exec(
        r.stdout,
      );
    expect(snap, r.stdout).to.not.equal(null);
    expect(Number(snap![1])).to.be.at.least(40);
    expect(Number(snap![4])).to.equal(1); // dump/row
    const entries = rows(r.stdout);
    expect(entries.length).to.be.above(0);
    expect(entries[0].index).to.be.at.most(Number(snap![1]) + 1);
    entries.forEach((e, k) => k > 0 && expect(e.index).to.equal(entries[k - 1].index + 1));
    const last = entries.filter((e) => e.type === 'FenceWrite').at(-1)!;
    expect(last.command).to.match(/^key=dump\/row value="last" \(4 bytes\) token=\d+ requestId=/);
    expect(entries.some((e) => e.type === 'Release' && e.command.startsWith('name=dump/lock '))).to.equal(true);
    const end = entries.at(-1)!;
    expect(r.stdout).to.match(
      new RegExp(`^entries ${entries[0].index}\\.\\.${end.index}: ${entries.length} shown; the log ends at term ${end.term}, index ${end.index}$`, 'm'),
    );
  });

  it('--type keeps one kind of entry (any case); --from starts at an index', async () => {
    const all = rows((await lockctl(['log', 'dump', '--data-dir', dir])).stdout);
    const writes = await lockctl(['log', 'dump', '--data-dir', dir, '--type', 'fencewrite']);
    expect(writes.code, writes.stderr).to.equal(0);
    const w = rows(writes.stdout);
    expect(w.length)
      .to.equal(all.filter((e) => e.type === 'FenceWrite').length)
      .and.above(0);
    expect(w.every((e) => e.type === 'FenceWrite')).to.equal(true);
    const from = all[Math.floor(all.length / 2)].index;
    const tail = rows((await lockctl(['log', 'dump', '--data-dir', dir, '--from', String(from)])).stdout);
    expect(tail[0].index).to.equal(from);
    expect(tail.at(-1)!.index).to.equal(all.at(-1)!.index);
    const bad = await lockctl(['log', 'dump', '--data-dir', dir, '--type', 'Nonsense']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('not an entry type; one of: noop, Grant');
  });

  it("--exclude leaves types out (Tick,noop); NOW is logical now after each entry: the snapshot's plus every Tick's elapsed", async () => {
    const r = await lockctl(['log', 'dump', '--data-dir', dir]);
    const all = rows(r.stdout);
    const snapIndex = Number(/^snapshot: index (\d+)/m.exec(r.stdout)![1]);
    const snapNow = Number(/logical now (\d+) ms/.exec(r.stdout)![1]);
    let now = snapNow;
    for (const e of all) {
      if (e.index <= snapIndex) {
        expect(e.now, `entry ${e.index}, before the snapshot`).to.equal(undefined);
        continue;
      }
      if (e.type === 'Tick') now += Number(/elapsedMs=(\d+)/.exec(e.command)![1]);
      expect(e.now, `entry ${e.index}`).to.equal(now);
    }
    expect(all.some((e) => e.type === 'Tick')).to.equal(true);
    const quiet = await lockctl(['log', 'dump', '--data-dir', dir, '--exclude', 'tick,noop']);
    expect(quiet.code, quiet.stderr).to.equal(0);
    const kept = rows(quiet.stdout);
    expect(kept.map((e) => e.index)).to.deep.equal(all.filter((e) => e.type !== 'Tick' && e.type !== 'noop').map((e) => e.index));
    expect(quiet.stdout).to.match(/\(without Tick, noop\): \d+ shown/);
    const bad = await lockctl(['log', 'dump', '--data-dir', dir, '--exclude', 'Tick,Nope']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('--exclude "Nope" is not an entry type');
  });

  it('--outcomes: what each entry did, from a replay of the state machine from the snapshot on', async () => {
    const r = await lockctl(['log', 'dump', '--data-dir', dir, '--outcomes']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = rows(r.stdout);
    const outcome = (e: { command: string }) => /  ⇒ (.*)$/.exec(e.command)?.[1];
    expect(
      lines.every((e) => outcome(e) !== undefined),
      r.stdout,
    ).to.equal(true);
    // The last Acquire of dump/lock: granted by its own entry, its token that entry's index × 1024.
    const acquire = lines.filter((e) => e.type === 'Acquire').at(-1)!;
    const granted = /^ACQUIRED dump\/lock lease (\d+) token (\d+)$/.exec(outcome(acquire)!);
    expect(granted, outcome(acquire)).to.not.equal(null);
    expect(Math.floor(Number(granted![2]) / 1024)).to.equal(acquire.index);
    const release = lines.filter((e) => e.type === 'Release').at(-1)!;
    expect(outcome(release)).to.equal(`RELEASED dump/lock lease ${granted![1]} token ${granted![2]}`);
    expect(outcome(lines.filter((e) => e.type === 'FenceWrite').at(-1)!)).to.equal('ok');
    const grant = lines.filter((e) => e.type === 'Grant').at(-1);
    if (grant) expect(outcome(grant)).to.match(/^LEASE_GRANTED lease \d+$/);
    // --json carries the events; --compare takes no --outcomes.
    const json = await lockctl(['--json', 'log', 'dump', '--data-dir', dir, '--type', 'Acquire', '--outcomes']);
    const docs = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type?: string; outcome?: { events: Array<{ type: string }> } });
    expect(
      docs
        .filter((d) => d.type === 'Acquire')
        .at(-1)!
        .outcome!.events.map((e) => e.type),
    ).to.include('ACQUIRED');
    const both = await lockctl(['log', 'dump', '--data-dir', dir, '--compare', dir, '--outcomes']);
    expect(both.code).to.equal(2);
  });

  it('--json prints one object per line', async () => {
    const r = await lockctl(['--json', 'log', 'dump', '--data-dir', dir, '--type', 'Release']);
    expect(r.code, r.stderr).to.equal(0);
    const docs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(docs[0]).to.include({ nodeId: 'n1' });
    const releases = docs.filter((d) => d.type === 'Release');
    expect(releases.length).to.be.above(0);
    expect(releases[0].command).to.deep.include({ name: 'dump/lock' });
    // The summary says where the log ends as the up-to-date rule compares logs: (last term, last index).
    const all = rows((await lockctl(['log', 'dump', '--data-dir', dir])).stdout);
    const summary = docs.at(-1)!;
    expect(summary).to.deep.include({ last: all.at(-1)!.index, lastTerm: all.at(-1)!.term, logEnd: { term: all.at(-1)!.term, index: all.at(-1)!.index } });
  });

  it("refuses a running node's data dir, and leaves it alone", async () => {
    const r = await lockctl(['log', 'dump', '--data-dir', cluster.node('n2').dataDir]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/\(locked\): another process has it open — is its node running\?/);
    expect(r.stdout).to.equal('');
    expect((await cluster.status('n2')).nodeId).to.equal('n2');
  });

  it('refuses a data dir of an older storage format (1: JSON commands), saying why', async () => {
    const old = mkdtempSync(join(tmpdir(), 'lockd-format1-'));
    try {
      const payload = Buffer.from(JSON.stringify({ format: 1, clusterId: 'c1', nodeId: 'n1' }));
      const sealed = Buffer.concat([Buffer.alloc(4), payload]);
      sealed.writeUInt32BE(crc32(payload), 0);
      const db = new Level<string, Buffer>(old, { valueEncoding: 'buffer' });
      await db.put('m:identity', sealed);
      await db.close();
      const r = await lockctl(['log', 'dump', '--data-dir', old]);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain('(format): storage format 1 was written by a lockd before the binary command codec');
      expect(r.stdout).to.equal('');
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });

  it('refuses what is not a lockd data dir, creating nothing there', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'lockd-notadir-'));
    const foreign = mkdtempSync(join(tmpdir(), 'lockd-foreign-'));
    try {
      const r1 = await lockctl(['log', 'dump', '--data-dir', empty]);
      expect(r1.code).to.equal(1);
      expect(r1.stderr).to.contain('not a lockd data dir: no LevelDB database in it');
      expect(readdirSync(empty)).to.deep.equal([]);
      const r2 = await lockctl(['log', 'dump', '--data-dir', join(empty, 'missing')]);
      expect(r2.code).to.equal(1);
      expect(r2.stderr).to.contain('no such directory');
      expect(readdirSync(empty)).to.deep.equal([]);
      const db = new Level(foreign);
      await db.put('some', 'thing');
      await db.close();
      const r3 = await lockctl(['log', 'dump', '--data-dir', foreign]);
      expect(r3.code).to.equal(1);
      expect(r3.stderr).to.contain('without a lockd identity record');
      const r4 = await lockctl(['log', 'dump']);
      expect(r4.code).to.equal(2);
      expect(r4.stderr).to.contain('--data-dir is required');
    } finally {
      rmSync(empty, { recursive: true, force: true });
      rmSync(foreign, { recursive: true, force: true });
    }
  });
});

describe("lockctl log dump --compare: two nodes' data dirs entry by entry", function () {
  this.timeout(60_000);
  let cluster: ProcessCluster;
  let oldLeader: string;
  let followers: string[];
  let commitBefore: number;
  let oldTerm: number;

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    oldLeader = await cluster.waitForLeader();
    followers = cluster.nodes.map((n) => n.id).filter((id) => id !== oldLeader);
    const client = new LockClient({ endpoints: cluster.nodes.map((n) => n.address) });
    try {
      const lock = await client.acquire('compare/lock', { ttlMs: 5_000, wait: false });
      await client.fenceWrite('compare/row', 'v1', lock.token);
      await lock.release();
      await lock.lease.revoke(); // no live lease: no Ticks, so the logs stop growing
      const st = await cluster.status(oldLeader);
      commitBefore = st.commitIndex;
      oldTerm = st.term;
      await cluster.waitForApplied(commitBefore);
    } finally {
      client.close();
    }
    // The leader alone: what it appends now no majority stores.
    for (const id of followers) await cluster.kill(id);
    const lonely = new LockClient({ endpoints: [cluster.node(oldLeader).address], timeoutMs: 1_000 });
    try {
      await lonely.grantLease(5_000).then(
        () => expect.fail('granted without a majority'),
        () => undefined,
      );
    } finally {
      lonely.close();
    }
    await cluster.kill(oldLeader);
    for (const id of followers) cluster.startNode(id);
    const fresh = await cluster.waitForLeader(followers);
    const st = await cluster.status(fresh);
    await cluster.waitForApplied(st.commitIndex, followers);
    for (const id of followers) {
      const exited = new Promise((r) => cluster.node(id).proc!.once('exit', r));
      cluster.signal(id, 'SIGTERM');
      await exited;
    }
  });
  after(async () => {
    await cluster?.stop();
  });

  it('two followers: identical up to the last entry both hold', async () => {
    const [a, b] = followers.map((id) => cluster.node(id).dataDir);
    const r = await lockctl(['log', 'dump', '--data-dir', a, '--compare', b]);
    expect(r.code, r.stderr).to.equal(0);
    const m = /^identical up to (\d+): entries 1\.\.(\d+) compared \((n\d)'s log 1\.\.(\d+), (n\d)'s 1\.\.(\d+)\)/m.exec(r.stdout);
    expect(m, r.stdout).to.not.equal(null);
    expect(Number(m![1])).to.equal(Math.min(Number(m![4]), Number(m![6])));
    expect(Number(m![1]), "up to the new leader's first entry, at least").to.be.at.least(commitBefore + 1);
    expect([m![3], m![5]]).to.deep.equal(followers);
  });

  it('the old leader and a follower: the first difference is the index the old leader appended alone; --json says the same', async () => {
    const dirs = [cluster.node(oldLeader).dataDir, cluster.node(followers[0]).dataDir];
    const r = await lockctl(['log', 'dump', '--data-dir', dirs[0], '--compare', dirs[1]]);
    expect(r.code, r.stderr).to.equal(0);
    const at = commitBefore + 1;
    expect(r.stdout, r.stdout).to.match(
      new RegExp(`^first difference at index ${at} \\(identical up to ${commitBefore}; ${oldLeader}'s log 1\\.\\.\\d+, ${followers[0]}'s 1\\.\\.\\d+\\)$`, 'm'),
    );
    // Each side's entry at that index: the lonely leader's Grant in its term, the new leader's empty entry in a later one.
    const row = (node: string) => new RegExp(`^  ${node}\\s+${at}\\s+(\\d+)\\s+(\\S+)`, 'm').exec(r.stdout);
    const mine = row(oldLeader);
    const theirs = row(followers[0]);
    expect(mine, r.stdout).to.not.equal(null);
    expect(theirs, r.stdout).to.not.equal(null);
    expect([Number(mine![1]), mine![2]]).to.deep.equal([oldTerm, 'Grant']);
    expect(Number(theirs![1])).to.be.above(oldTerm);
    expect(theirs![2]).to.equal('noop');

    const j = await lockctl(['--json', 'log', 'dump', '--data-dir', dirs[0], '--compare', dirs[1]]);
    const docs = j.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(docs.find((d) => 'firstDifference' in d)).to.deep.include({ firstDifference: at, identicalUpTo: commitBefore });
  });

  it('refuses one dir twice (exit 2) and --compare with filters (exit 2)', async () => {
    const dir = cluster.node(followers[0]).dataDir;
    const twice = await lockctl(['log', 'dump', '--data-dir', dir, '--compare', `${dir}/`]);
    expect(twice.code).to.equal(2);
    expect(twice.stderr).to.contain('is the same data dir as --data-dir');
    const filtered = await lockctl(['log', 'dump', '--data-dir', dir, '--compare', cluster.node(oldLeader).dataDir, '--type', 'Tick']);
    expect(filtered.code).to.equal(2);
    expect(filtered.stderr).to.contain('--compare compares whole logs');
  });
});
