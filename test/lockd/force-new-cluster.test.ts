// Recovery from a lost quorum on real processes: `--force-new-cluster` on one
// surviving voter makes it a one-voter cluster from its own log; operators add members; locks held
// before are still held (or ended, as the replicated state says), tokens keep increasing, and the
// flag is one-shot (a leftover one is refused, exit 3). Then the wedge an outside review built —
// two voters added that never start, leaving no margin, and one more node lost — recovered by the
// procedure docs/operating.md §5 gives (log dump to pick the survivor, force, wipe and re-add the rest).
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { LockClient } from '../../src/client/index.js';
import { Members } from '../support/membership-client.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { lockctl } from '../support/lockctl-run.js';

describe('--force-new-cluster (real processes)', function () {
  this.timeout(180_000);
  let cluster: ProcessCluster | undefined;
  const closers: Array<{ close(): void }> = [];

  afterEach(async function () {
    for (const c of closers.splice(0)) c.close();
    await cluster?.stop(this.currentTest?.state === 'failed');
    cluster = undefined;
  });

  const clientOf = (c: ProcessCluster, timeoutMs = 10_000): LockClient => {
    const client = new LockClient({ endpoints: c.nodes.map((n) => n.address), watchLocks: false, timeoutMs });
    closers.push(client);
    return client;
  };

  /** SIGTERM a node and wait until it has exited (its data dir unlocked). */
  const stopNode = async (c: ProcessCluster, id: string): Promise<void> => {
    const p = c.node(id).proc!;
    if (!c.isRunning(id)) return;
    const exited = new Promise((r) => p.once('exit', r));
    c.signal(id, 'SIGTERM');
    await exited;
  };

  /** A new member under a new id: learner, started with --join (peers: the live members and itself), caught up, promoted. */
  const addMember = async (c: ProcessCluster, via: string, id: string, live: readonly string[]): Promise<void> => {
    const n = await c.addNode(id);
    const members = new Members(c.node(via).address);
    closers.push(members.client);
    await Members.retrying(`add ${id}`, () => members.add({ id, peerUrl: n.peerAddress, clientUrl: n.address, learner: true, requestId: `add-${id}` }));
    const peers = [...live, id].map((x) => `${x}=${c.node(x).peerAddress}`).join(',');
    c.startNode(id, { '--peers': peers }, ['--join']);
    await members.caughtUp(id, 'learner');
    await Members.retrying(`promote ${id}`, () => members.promote({ id, requestId: `promote-${id}` }));
  };

  /** Writes fail while there is no quorum (bounded: the client gives up at its deadline). */
  const expectNoQuorum = async (c: ProcessCluster): Promise<void> => {
    const client = clientOf(c, 2500);
    const r = await client.acquire('no-quorum', { ttlMs: 5000, wait: false }).then(
      () => 'acquired',
      (e: Error) => e.message,
    );
    expect(r).to.match(/UNAVAILABLE|DEADLINE_EXCEEDED/);
  };

  it('a 3-node cluster loses 2 nodes for good; the survivor is forced; two new members join; held locks stay held, ended ones end; tokens keep increasing; the flag is one-shot', async () => {
    const c = (cluster = await ProcessCluster.start({ size: 3 }));
    const leader = await c.waitForLeader();
    const client = clientOf(c);
    const keeper = await client.grantLease(60_000); // kept alive by this client all along
    const held = await client.acquire('held', { lease: keeper, wait: false });
    const shortLease = await client.grantLease(1500);
    const short = await client.acquire('short', { lease: shortLease, wait: false });
    await client.fenceWrite('row', 'v1', held.token);
    const highest = Math.max(held.token, short.token);
    await c.waitForApplied((await client.status()).commitIndex);

    // The leader and one follower are lost for good, disks and all.
    const survivor = c.nodes.find((n) => n.id !== leader)!.id;
    const lost = c.nodes.map((n) => n.id).filter((id) => id !== survivor);
    shortLease.close(); // its holder is gone too: no more keepalives
    for (const id of lost) {
      await c.kill(id);
      rmSync(c.node(id).dataDir, { recursive: true, force: true });
    }
    await expectNoQuorum(c);

    await stopNode(c, survivor);
    c.startNode(survivor, {}, ['--force-new-cluster']);
    const log = await c.waitForLog(survivor, 'FORCED NEW CLUSTER');
    expect(log).to.match(new RegExp(`${survivor} is now the only voter.*removing ${lost.join(', ')} for good`));
    const line = log.split('\n').find((l) => l.includes('FORCED NEW CLUSTER'))!;
    expect(JSON.parse(line)).to.include({ level: 40, event: 'forced new cluster' });
    process.stderr.write(`      the forced node's warning:\n${(JSON.parse(line) as { msg: string }).msg}\n`);
    await c.waitForLeader([survivor]);
    const members = new Members(c.node(survivor).address);
    closers.push(members.client);
    const list = await members.list();
    expect(list.members.map((m) => [m.id, m.role])).to.deep.equal([[survivor, 'voter']]);
    expect(list.removedIds).to.have.members(lost);

    // The state is the survivor's log: the kept-alive lock still held, under its token...
    expect(await client.inspect('held')).to.deep.include({ held: true, fencingToken: held.token, holderLeaseId: keeper.id });
    expect(Buffer.from((await client.fenceRead('row')).value).toString()).to.equal('v1');
    // ...and the lock whose lease nobody renews ends by expiry on the new leader's clock.
    await waitFor('the unrenewed lease to expire', async () => ((await client.inspect('short')).held ? undefined : true), 20_000, 100);

    // Operators add members under new ids.
    await addMember(c, survivor, 'n4', [survivor]);
    await addMember(c, survivor, 'n5', [survivor, 'n4']);
    const voters = [survivor, 'n4', 'n5'];
    await c.waitForLeader(voters);
    expect((await members.list()).members.filter((m) => m.role === 'voter').map((m) => m.id)).to.have.members(voters);
    const fresh = await client.acquire('short', { ttlMs: 5000, wait: false });
    expect(fresh.token).to.be.above(highest);

    // One-shot: the survivor restarted with the flag left on is refused (it would remove n4 and n5).
    await stopNode(c, survivor);
    const dump = await lockctl(['log', 'dump', '--data-dir', c.node(survivor).dataDir, '--type', 'config']);
    expect(dump.code, dump.stderr).to.equal(0);
    expect(dump.stdout).to.match(new RegExp(`remove ${lost[0]} → voters [^\\n]*FORCED by ${survivor}`));
    process.stderr.write(`      lockctl log dump --type config:\n${dump.stdout}`);
    const again = await c.runToExit(c.argsFor(survivor, {}, ['--force-new-cluster']));
    expect(again.code, again.output).to.equal(3);
    expect(again.output).to.match(/forced into a new cluster already .*members were added since/);
    c.startNode(survivor);
    await c.waitForLeader(voters);
    expect(await client.inspect('held')).to.deep.include({ held: true, fencingToken: held.token });
    expect((await members.list()).members.filter((m) => m.role === 'voter').map((m) => m.id)).to.have.members(voters);
  });

  it('a survivor that fell behind: after forcing, new tokens and lease ids are above every one the lost majority issued without it', async () => {
    const c = (cluster = await ProcessCluster.start({ size: 3 }));
    const leader = await c.waitForLeader();
    const client = clientOf(c);
    const keeper = await client.grantLease(60_000);
    const held = await client.acquire('held', { lease: keeper, wait: false });
    await c.waitForApplied((await client.status()).commitIndex);
    // The survivor stops; the other two (a majority) go on granting leases and locks it never sees.
    const survivor = c.nodes.find((n) => n.id !== leader)!.id;
    const lost = c.nodes.map((n) => n.id).filter((id) => id !== survivor);
    await stopNode(c, survivor);
    let highestToken = held.token;
    let highestLease = keeper.id;
    for (let i = 0; i < 5; i++) {
      const lease = await client.grantLease(60_000);
      const g = await client.acquire(`later-${i}`, { lease, wait: false });
      highestToken = Math.max(highestToken, g.token);
      highestLease = Math.max(highestLease, lease.id);
      lease.close();
    }
    const oldCommit = (await client.status()).commitIndex;
    for (const id of lost) {
      await c.kill(id);
      rmSync(c.node(id).dataDir, { recursive: true, force: true });
    }
    const dump = await lockctl(['--json', 'log', 'dump', '--data-dir', c.node(survivor).dataDir]);
    expect(dump.code, dump.stderr).to.equal(0);
    const behind = JSON.parse(dump.stdout.trim().split('\n').pop()!) as { last: number };
    expect(behind.last, 'the survivor lacks what the majority committed').to.be.below(oldCommit);
    expect(highestToken).to.be.above(behind.last * 1024); // tokens at indexes the survivor never saw

    c.startNode(survivor, {}, ['--force-new-cluster']);
    const log = await c.waitForLog(survivor, 'FORCED NEW CLUSTER');
    const line = JSON.parse(log.split('\n').find((l) => l.includes('FORCED NEW CLUSTER'))!) as { survivorLast: number; snapshotIndex: number };
    expect(line).to.deep.include({ survivorLast: behind.last, snapshotIndex: behind.last + 1_000_000_000 });
    await c.waitForLeader([survivor]);
    // The survivor's own state is kept: the lock it knew of, under its token.
    expect(await client.inspect('held')).to.deep.include({ held: true, fencingToken: held.token });
    // A lock the majority granted after the survivor stopped is unknown here: free, and granted again under a greater token.
    const lease = await client.grantLease(10_000);
    closers.push(lease);
    expect(lease.id).to.be.above(highestLease);
    const again = await client.acquire('later-0', { lease, wait: false });
    expect(again.token).to.be.above(highestToken);
    const fresh = await client.acquire('fresh', { lease, wait: false });
    expect(fresh.token).to.be.above(highestToken);
  });

  it("the review's wedge: two voters added that never start, then one node lost; recovered by the documented procedure", async () => {
    const c = (cluster = await ProcessCluster.start({ size: 3 }));
    const leader = await c.waitForLeader();
    const client = clientOf(c);
    const keeper = await client.grantLease(60_000);
    const held = await client.acquire('held', { lease: keeper, wait: false });
    const members = new Members(c.node(leader).address);
    closers.push(members.client);
    // Added as voters (no --learner), never started: 5 voters, 3 of them alive, no margin left.
    for (const id of ['n4', 'n5']) {
      const n = await c.addNode(id);
      await Members.retrying(`add ${id}`, () => members.add({ id, peerUrl: n.peerAddress, clientUrl: n.address, learner: false, requestId: `add-${id}` }));
    }
    await c.waitForApplied((await client.status()).commitIndex, ['n1', 'n2', 'n3']);
    // One more node lost (its disk gone): 2 of 5 voters. Nothing commits, not even a removal of n4.
    const gone = ['n1', 'n2', 'n3'].find((id) => id !== leader)!;
    await c.kill(gone);
    rmSync(c.node(gone).dataDir, { recursive: true, force: true });
    await expectNoQuorum(c);
    const left = ['n1', 'n2', 'n3'].filter((id) => id !== gone);

    // The procedure: stop the survivors, pick the one whose log is most up to date — highest
    // (last term, last index), Raft's rule — and force it.
    for (const id of left) await stopNode(c, id);
    const end = new Map<string, { term: number; index: number }>();
    for (const id of left) {
      const d = await lockctl(['--json', 'log', 'dump', '--data-dir', c.node(id).dataDir]);
      expect(d.code, d.stderr).to.equal(0);
      end.set(id, (JSON.parse(d.stdout.trim().split('\n').pop()!) as { logEnd: { term: number; index: number } }).logEnd);
    }
    const [survivor, other] = [...left].sort((a, b) => end.get(b)!.term - end.get(a)!.term || end.get(b)!.index - end.get(a)!.index);
    c.startNode(survivor, {}, ['--force-new-cluster']);
    await c.waitForLog(survivor, 'FORCED NEW CLUSTER');
    await c.waitForLeader([survivor]);
    expect(await client.inspect('held')).to.deep.include({ held: true, fencingToken: held.token });
    // The other survivor was removed with the rest: its machine comes back wiped, under a new id.
    rmSync(c.node(other).dataDir, { recursive: true, force: true });
    await addMember(c, survivor, 'n6', [survivor]);
    await addMember(c, survivor, 'n7', [survivor, 'n6']);
    await c.waitForLeader([survivor, 'n6', 'n7']);
    const survivorMembers = new Members(c.node(survivor).address);
    closers.push(survivorMembers.client);
    const list = await survivorMembers.list();
    expect(list.members.filter((m) => m.role === 'voter').map((m) => m.id)).to.have.members([survivor, 'n6', 'n7']);
    expect(list.removedIds).to.include.members(['n4', 'n5', gone, other]);
    const fresh = await client.acquire('after', { ttlMs: 5000, wait: false });
    expect(fresh.token).to.be.above(held.token);
  });
});
