// Real node processes on 127.0.0.1, real LevelDB, real gRPC: elections, crashes, pauses, snapshots,
// and refused data dirs. Proposals are lease grants (each is one log entry).
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { LeaseClient } from '../../src/proto/gen/lockd/v1/Lease.js';
import { LevelStorage } from '../../src/lockd/storage/index.js';
import { openLevel } from '../../src/lockd/storage/db.js';
import { entryKey } from '../../src/lockd/storage/keys.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';

const HOUR = 3_600_000;

function leaseClient(c: ProcessCluster, id: string): LeaseClient {
  return new lockdProto.lockd.v1.Lease(c.node(id).address, grpc.credentials.createInsecure());
}

/** Grant a lease through `id` (any node: followers forward); resolves with its id (= its log index). */
function grant(client: LeaseClient, ttlMs = HOUR): Promise<number> {
  return new Promise((resolve, reject) => client.Grant({ ttlMs }, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!.leaseId))));
}

async function grantMany(client: LeaseClient, n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let k = 0; k < n; k++) ids.push(await grant(client));
  return ids;
}

function listLeases(client: LeaseClient): Promise<number[]> {
  return new Promise((resolve, reject) =>
    client.List({}, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!.leases.map((l) => l.leaseId)))),
  );
}

/** Every stored entry of a node's data dir, read back through the storage layer (node must be stopped). */
async function storedLog(c: ProcessCluster, id: string): Promise<{ commit: number; entries: Map<number, string> }> {
  const s = await LevelStorage.open({ dir: c.node(id).dataDir, clusterId: c.clusterId, nodeId: id, voters: c.nodes.map((n) => n.id) });
  try {
    const m = s.memory;
    const entries = new Map<number, string>();
    for (const e of m.entries(m.firstIndex(), m.lastIndex() + 1)) entries.set(e.index, `${e.term}:${Buffer.from(e.data).toString('hex')}`);
    return { commit: m.hardState().commit, entries };
  } finally {
    await s.close();
  }
}

describe('lockd cluster (real processes)', function () {
  this.timeout(90_000);
  let cluster: ProcessCluster | undefined;
  const clients: LeaseClient[] = [];

  afterEach(async function () {
    for (const cl of clients.splice(0)) cl.close();
    const failed = this.currentTest?.state === 'failed';
    await cluster?.stop(failed); // keep data and logs of a failed test for study
    cluster = undefined;
  });

  for (const size of [3, 5] as const) {
    it(`a ${size}-node cluster elects exactly one leader, and every node follows it`, async () => {
      cluster = await ProcessCluster.start({ size });
      const leader = await cluster.waitForLeader();
      const sts = await cluster.statuses();
      expect(sts).to.have.length(size);
      expect(sts.filter((s) => s.role === 'leader').map((s) => s.nodeId)).to.deep.equal([leader]);
      expect(new Set(sts.map((s) => s.term)).size).to.equal(1);
      const leaderStatus = sts.find((s) => s.nodeId === leader)!;
      expect(leaderStatus.members.map((m) => m.id).sort()).to.deep.equal(cluster.nodes.map((n) => n.id));
    });
  }

  it('kill -9 the leader: a new leader is elected; the killed node restarts, rejoins as follower and catches up', async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const first = await cluster.waitForLeader();
    const survivor = cluster.nodes.find((n) => n.id !== first)!.id;
    const client = leaseClient(cluster, survivor);
    clients.push(client);
    await grantMany(client, 5);
    await cluster.kill(first);
    const second = await cluster.waitForLeader(cluster.nodes.map((n) => n.id).filter((id) => id !== first));
    expect(second).to.not.equal(first);
    const ids = await grantMany(client, 5);
    cluster.startNode(first);
    await cluster.waitForLeader();
    await cluster.waitForApplied(ids[ids.length - 1]);
    const st = await cluster.status(first);
    expect(st.role).to.equal('follower');
    expect(st.leaderId).to.equal(second);
    // Live leases keep the leader's clock ticking (one entry per ~100 ms): poll for a moment at
    // which every node stands at the same applied index.
    await waitFor('the same applied index on every node', async () => {
      const all = await cluster!.statuses();
      return all.length === 3 && new Set(all.map((s) => s.appliedIndex)).size === 1 ? true : undefined;
    });
  });

  it('a node that was down while the log was compacted catches up by snapshot', async () => {
    cluster = await ProcessCluster.start({ size: 3, extraArgs: ['--snapshot-every', '10'] });
    const leader = await cluster.waitForLeader();
    const lagging = cluster.nodes.find((n) => n.id !== leader)!.id;
    const client = leaseClient(cluster, leader);
    clients.push(client);
    await cluster.kill(lagging);
    const ids = await grantMany(client, 30);
    await waitFor('a snapshot on the leader', () => (/"event":"snapshot taken"/.test(cluster!.log(leader)) ? true : undefined));
    cluster.startNode(lagging);
    await cluster.waitForApplied(ids[ids.length - 1]);
    await cluster.waitForLog(lagging, /"event":"snapshot installed"/);
    const onLagging = leaseClient(cluster, lagging);
    clients.push(onLagging);
    expect(await listLeases(onLagging)).to.include.members(ids);
  });

  it('the whole cluster killed with -9 and restarted keeps every committed entry, identical on every node', async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const leader = await cluster.waitForLeader();
    const client = leaseClient(cluster, leader);
    clients.push(client);
    const ids = await grantMany(client, 20);
    await Promise.all(cluster.nodes.map((n) => cluster!.kill(n.id)));

    // On disk: every acknowledged entry (and every entry up to a stored commit index) is held by a
    // majority, the same on every node that holds it. The stored commit index itself may lag the last
    // acknowledged entry: a commit-only hard state is not written at all, only along with the next
    // entries (the commit is re-learned from the quorum), so kill -9 may lose it — not the entries.
    const logs = await Promise.all(cluster.nodes.map((n) => storedLog(cluster!, n.id)));
    const upTo = Math.max(ids[ids.length - 1], ...logs.map((l) => l.commit));
    for (let i = 1; i <= upTo; i++) {
      const versions = new Set(logs.map((l) => l.entries.get(i)).filter((v) => v !== undefined));
      expect(versions.size, `entry ${i}`).to.equal(1);
      expect(logs.filter((l) => l.entries.has(i)).length, `entry ${i} on a majority`).to.be.at.least(2);
    }

    for (const n of cluster.nodes) cluster.startNode(n.id);
    const newLeader = await cluster.waitForLeader();
    const after = leaseClient(cluster, newLeader);
    clients.push(after);
    expect(await listLeases(after)).to.include.members(ids);
  });

  it('SIGSTOP the leader past the election timeout: the others elect a new one; after SIGCONT the old leader steps down and converges', async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const old = await cluster.waitForLeader();
    const others = cluster.nodes.map((n) => n.id).filter((id) => id !== old);
    cluster.signal(old, 'SIGSTOP');
    const next = await cluster.waitForLeader(others);
    expect(next).to.not.equal(old);
    const client = leaseClient(cluster, next);
    clients.push(client);
    const id = await grant(client);
    cluster.signal(old, 'SIGCONT');
    await cluster.waitForLeader();
    await cluster.waitForApplied(id);
    const st = await cluster.status(old);
    expect(st.role).to.equal('follower');
    expect(st.leaderId).to.equal(next);
  });

  it('refuses a data dir of another cluster, and one with a corrupted entry, with a clear error', async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const leader = await cluster.waitForLeader();
    const client = leaseClient(cluster, leader);
    clients.push(client);
    await grantMany(client, 3);
    const victim = cluster.nodes.find((n) => n.id !== leader)!.id;
    await cluster.kill(victim);

    const foreign = await cluster.runToExit(cluster.argsFor(victim, { '--cluster-id': 'someone-else' }));
    expect(foreign.code).to.equal(3);
    expect(foreign.output).to.match(/refusing data dir .* \(foreign\)/);

    const db = openLevel(cluster.node(victim).dataDir);
    await db.open();
    await db.put(entryKey(2), Buffer.from('this is not an entry'));
    await db.close();
    const corrupt = await cluster.runToExit(cluster.argsFor(victim));
    expect(corrupt.code).to.equal(3);
    expect(corrupt.output).to.match(/refusing data dir .* \(corrupt\)/);
  });

  it('a bad flag is a clear error at start (exit 2), not a crash later', async () => {
    // Addresses and data dirs only: the refused node needs no running peers.
    cluster = await ProcessCluster.start({ size: 3, startNodes: false });
    const missing = await cluster.runToExit(['--id', 'n1']);
    expect(missing.code).to.equal(2);
    expect(missing.output).to.match(/missing --listen/);
    const notMember = await cluster.runToExit(cluster.argsFor('n1', { '--id': 'n9' }));
    expect(notMember.code).to.equal(2);
    expect(notMember.output).to.match(/--peers must include this node \(n9\)/);
    // The listener split and TLS flags: each mistake named before anything starts.
    const cases: Array<[string[], RegExp]> = [
      [cluster.argsFor('n1', { '--peer-listen': cluster.node('n1').address }), /--listen and --peer-listen are both/],
      [cluster.argsFor('n1', { '--peer-listen': '127.0.0.1:1' }), /--peers says n1 is at .*, but this node's peer address is 127\.0\.0\.1:1/],
      [cluster.argsFor('n1', { '--listen': '0.0.0.0:7001' }), /--advertise-client is 0\.0\.0\.0:7001, which nobody can dial/],
      [cluster.argsFor('n1', { '--tls-cert': '/nonexistent.crt' }), /--tls-cert, --tls-key and --tls-ca go together/],
      [[...cluster.argsFor('n1'), '--client-cert-auth'], /--client-cert-auth needs TLS/],
      [
        cluster.argsFor('n1', { '--tls-cert': '/nonexistent.crt', '--tls-key': '/nonexistent.key', '--tls-ca': '/nonexistent.ca' }),
        /cannot read --tls-ca \/nonexistent\.ca/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await cluster.runToExit(args);
      expect(r.code, r.output).to.equal(2);
      expect(r.output).to.match(message);
    }
  });
});
