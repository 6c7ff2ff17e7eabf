// Nodes named by DNS: a 3-node cluster whose --peers, --advertise-peer and --advertise-client all
// say `localhost:PORT` (the listeners bind 127.0.0.1). Raft traffic, forwarding from a follower to
// the leader, the addresses clients are told and a leader transfer all go through the name.
import { expect } from 'chai';
import { LockClient } from '../../src/client/index.js';
import { ProcessCluster } from '../support/process-cluster.js';

const named = (address: string): string => address.replace(/^127\.0\.0\.1:/, 'localhost:');

describe('host names in --peers and the advertise flags (real processes)', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster | undefined;
  let client: LockClient | undefined;

  afterEach(async function () {
    client?.close();
    await cluster?.stop(this.currentTest?.state === 'failed');
    cluster = undefined;
  });

  it('elects, forwards, advertises and transfers over localhost names', async () => {
    let peers = '';
    const c: ProcessCluster = (cluster = await ProcessCluster.start({
      size: 3,
      startNodes: false,
      nodeFlags: (id): Record<string, string> => {
        const n = cluster!.node(id);
        return { '--peers': peers, '--advertise-peer': named(n.peerAddress), '--advertise-client': named(n.address) };
      },
    }));
    peers = c.nodes.map((n) => `${n.id}=${named(n.peerAddress)}`).join(',');
    for (const n of c.nodes) c.startNode(n.id);
    const leader = await c.waitForLeader();
    const st = await c.status(leader);
    // Every member's client address is the name it advertised (learned over the peer streams).
    expect(st.members.map((m) => m.address).sort()).to.deep.equal(c.nodes.map((n) => named(n.address)).sort());
    const follower = c.nodes.find((n) => n.id !== leader)!;
    expect((await c.status(follower.id)).leaderAddress).to.equal(named(c.node(leader).address));

    // A client that knows only one follower, by name: its calls are forwarded to the leader by name.
    client = new LockClient({ endpoints: [named(follower.address)] });
    const lock = await client.acquire('dns-named', { ttlMs: 5000 });
    const r = await c.transferLeader(follower.id, follower.id);
    expect(r).to.include({ leaderId: follower.id, leaderAddress: named(follower.address), transferred: true });
    expect(await c.waitForLeader()).to.equal(follower.id);
    expect((await client.inspect('dns-named')).fencingToken).to.equal(lock.token);
    await lock.release();
  });
});
