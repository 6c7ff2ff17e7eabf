import * as grpc from '@grpc/grpc-js';
import { expect } from 'chai';
import { type Message, message } from '../../../src/raft/types.js';
import { raftProto } from '../../../src/proto/raft-package.js';
import { CLUSTER_ID_HEADER, MAX_BUILD_LENGTH, NODE_ID_HEADER, VERSION_HEADER, type StatedAddresses } from '../../../src/lockd/transport/metadata.js';
import { messageToProto } from '../../../src/lockd/transport/convert.js';
import { type TestNode, attach, startCluster, startServer, stopNode, waitFor } from './harness.js';

function app(from: string, to: string, index: number): Message {
  const data = new TextEncoder().encode(`entry ${index}`);
  return message({ type: 'App', from, to, term: 3, logTerm: 2, index: index - 1, commit: index - 1, entries: [{ term: 3, index, data }] });
}

function snap(from: string, to: string, bytes: number): Message {
  const data = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) data[i] = (i * 31 + (i >> 11)) & 0xff;
  return message({ type: 'Snap', from, to, term: 4, snapshot: { metadata: { index: 500, term: 4, voters: ['n1', 'n2', 'n3'] }, data } });
}

describe('PeerTransport', () => {
  let nodes: TestNode[] = [];
  afterEach(() => {
    for (const n of nodes) stopNode(n);
    nodes = [];
  });

  it('delivers every message type field-for-field, in order, between three nodes', async () => {
    nodes = await startCluster(['n1', 'n2', 'n3']);
    const [n1, n2, n3] = nodes;
    await waitFor('n1 streams up', () => n1.transport.peerState('n2') === 'up' && n1.transport.peerState('n3') === 'up');

    const vote = message({ type: 'Vote', from: 'n1', to: 'n3', term: 7, logTerm: 6, index: 42 });
    const resp = message({ type: 'AppResp', from: 'n1', to: 'n2', term: 7, index: 9, reject: true, rejectHint: 5, logTerm: 4 });
    const hb = message({ type: 'Heartbeat', from: 'n1', to: 'n2', term: 7, commit: 8, context: 'read-1' });
    const burst: Message[] = [];
    for (let i = 1; i <= 1000; i++) burst.push(app('n1', 'n2', i));
    n1.transport.send([vote, resp, hb]);
    for (let i = 0; i < burst.length; i += 100) n1.transport.send(burst.slice(i, i + 100));

    await waitFor('n2 gets 1002 messages', () => n2.received.length === 1002);
    await waitFor('n3 gets the vote', () => n3.received.length === 1);
    expect(n3.received[0]).to.deep.equal(vote);
    expect(n2.received.slice(0, 2)).to.deep.equal([resp, hb]);
    expect(n2.received.slice(2)).to.deep.equal(burst);
    expect(n1.unreachable).to.deep.equal([]);
    expect(
      n1.logs
        .filter((l) => l.msg === 'peer up')
        .map((l) => l.peer)
        .sort(),
    ).to.deep.equal(['n2', 'n3']);
  });

  it('sends a big snapshot in chunks and reassembles it before delivery', async () => {
    nodes = await startCluster(['n1', 'n2'], { chunkBytes: 256 * 1024 });
    const [n1, n2] = nodes;
    await waitFor('stream up', () => n1.transport.peerState('n2') === 'up');
    const big = snap('n1', 'n2', 5 * 1024 * 1024 + 123);
    const after = app('n1', 'n2', 501);
    n1.transport.send([big, after]);

    await waitFor('snapshot and the next message delivered', () => n2.received.length === 2);
    const got = n2.received[0];
    expect(got.snapshot?.metadata).to.deep.equal(big.snapshot?.metadata);
    expect(Buffer.from(got.snapshot!.data).equals(Buffer.from(big.snapshot!.data))).to.equal(true);
    expect({ ...got, snapshot: undefined }).to.deep.equal({ ...big, snapshot: undefined });
    expect(n2.received[1]).to.deep.equal(after);
    await waitFor('snapshot reported sent', () => n1.snapshotStatus.length === 1);
    expect(n1.snapshotStatus).to.deep.equal([['n2', true]]);
  });

  it("carries an entry's type (a config entry stays one) and a snapshot's membership", async () => {
    nodes = await startCluster(['n1', 'n2']);
    const [n1, n2] = nodes;
    await waitFor('stream up', () => n1.transport.peerState('n2') === 'up');
    const conf = new TextEncoder().encode('{"op":"addLearner","node":"n3","voters":["n1","n2"],"learners":["n3"],"removed":[]}');
    const withConf = message({
      type: 'App',
      from: 'n1',
      to: 'n2',
      term: 3,
      logTerm: 3,
      index: 4,
      commit: 4,
      entries: [
        { term: 3, index: 5, data: conf, type: 'config' },
        { term: 3, index: 6, data: new Uint8Array([7]) },
      ],
    });
    const metadata = { index: 9, term: 3, voters: ['n1', 'n2'], learners: ['n3'], removed: ['n0'], configIndex: 5 };
    const snapshot = message({ type: 'Snap', from: 'n1', to: 'n2', term: 3, snapshot: { metadata, data: new Uint8Array([1, 2]) } });
    n1.transport.send([withConf, snapshot]);
    await waitFor('both delivered', () => n2.received.length === 2);
    expect(n2.received[0]).to.deep.equal(withConf);
    expect(n2.received[1].snapshot?.metadata).to.deep.equal(metadata);
  });

  it('refuses a stream from another cluster without revealing the real cluster id, and logs who asked', async () => {
    const [a, b] = await Promise.all([startServer(), startServer()]);
    const good = attach('n2', b.server, b.port, new Map([['n1', `127.0.0.1:${a.port}`]]), {}, 'c1');
    const foreign = attach('n1', a.server, a.port, new Map([['n2', `127.0.0.1:${b.port}`]]), {}, 'other');
    nodes = [good, foreign];

    await waitFor('the foreign sender sees the refusal', () => foreign.logs.some((l) => l.msg === 'peer down'));
    foreign.transport.send([app('n1', 'n2', 1)]);
    const down = foreign.logs.find((l) => l.msg === 'peer down')!;
    expect(down.code).to.equal('FAILED_PRECONDITION');
    expect(String(down.details)).to.include('wrong cluster id');
    expect(String(down.details)).to.not.include('c1'); // the stranger learns only that it is wrong
    expect(foreign.transport.peerState('n2')).to.not.equal('up');
    const refused = good.logs.find((l) => l.msg === 'refused peer stream')!;
    expect(refused.remoteClusterId).to.equal('other');
    expect(String(refused.remote)).to.match(/^127\.0\.0\.1:\d+$/); // the caller's address, for the operator
    expect(refused.level).to.equal(40); // warn
    expect(good.received).to.deep.equal([]);
    expect(foreign.unreachable).to.include('n2');
  });

  it('refuses an envelope tagged with another cluster id, even on an accepted stream', async () => {
    nodes = await startCluster(['n1', 'n2']);
    const n2 = nodes[1];
    const client = new raftProto.raft.v1.Raft(`127.0.0.1:${n2.port}`, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set(CLUSTER_ID_HEADER, 'c1');
      md.set(NODE_ID_HEADER, 'n1');
      const err = await new Promise<grpc.ServiceError | null>((resolve) => {
        const call = client.Stream(md, (e) => resolve(e));
        call.write({ clusterId: 'c1', senderId: 'n1', message: messageToProto(app('n1', 'n2', 1)) });
        call.write({ clusterId: 'c9', senderId: 'n1', message: messageToProto(app('n1', 'n2', 2)) });
      });
      expect(err?.code).to.equal(grpc.status.FAILED_PRECONDITION);
      expect(err?.details).to.include('envelope tagged with cluster id "c9"');
      expect(n2.received.map((m) => m.entries[0].index)).to.deep.equal([1]);
    } finally {
      client.close();
    }
  });

  it('takes an oversized lockd-version header cut to its bound, and serves the next stream after a 256 KB one', async () => {
    const stated: StatedAddresses[] = [];
    nodes = await startCluster(['n1', 'n2'], { onAddresses: (_id, s) => (stated.push(s), true) });
    const n2 = nodes[1];
    const client = new raftProto.raft.v1.Raft(`127.0.0.1:${n2.port}`, grpc.credentials.createInsecure());
    const stream = (build: string, index: number) =>
      new Promise<grpc.ServiceError | null>((resolve) => {
        const md = new grpc.Metadata();
        md.set(CLUSTER_ID_HEADER, 'c1');
        md.set(NODE_ID_HEADER, 'n1');
        md.set(VERSION_HEADER, build);
        const call = client.Stream(md, (e) => resolve(e));
        call.write({ clusterId: 'c1', senderId: 'n1', message: messageToProto(app('n1', 'n2', index)) });
        setTimeout(() => call.end(), 200);
      });
    try {
      // 6 KB: within grpc-js's metadata limit; the node keeps MAX_BUILD_LENGTH characters of it.
      await stream(`lockd 9.9.9 ${'x'.repeat(6000)}`, 1);
      await waitFor('the envelope on the 6 KB stream is delivered', () => n2.received.some((m) => m.entries[0]?.index === 1));
      const big = stated.find((s) => s.build?.startsWith('lockd 9.9.9'));
      expect(big?.build).to.have.length(MAX_BUILD_LENGTH);
      // 256 KB: past the HTTP/2 header list the server takes; the stream is reset before lockd sees
      // it (nothing delivered), and the node serves the next stream.
      const err = await stream(`lockd 8.8.8 ${'y'.repeat(256 * 1024)}`, 2);
      expect(err?.details).to.match(/RST_STREAM/);
      expect(n2.received.some((m) => m.entries[0]?.index === 2)).to.equal(false);
      for (const s of stated) expect(s.build?.length ?? 0).to.be.at.most(MAX_BUILD_LENGTH);
      await stream('lockd 0.2.0', 3);
      await waitFor('a normal stream after it is served', () => n2.received.some((m) => m.entries[0]?.index === 3));
    } finally {
      client.close();
    }
  });

  it('drops and reports while a peer is down, reconnects when it restarts, and delivery resumes in order', async () => {
    nodes = await startCluster(['n1', 'n2']);
    const [n1, n2] = nodes;
    await waitFor('stream up', () => n1.transport.peerState('n2') === 'up');
    n1.transport.send([app('n1', 'n2', 1)]);
    await waitFor('first delivery', () => n2.received.length === 1);

    stopNode(n2);
    await waitFor('n1 notices n2 is down', () => n1.transport.peerState('n2') === 'down');
    n1.transport.send([app('n1', 'n2', 2)]); // dropped: Raft would retransmit
    expect(n1.unreachable.filter((id) => id === 'n2').length).to.be.at.least(2); // the transition, then the drop

    // The same node comes back on the same port.
    const again = await startServer(n2.port);
    const n2b = attach('n2', again.server, again.port, new Map([['n1', `127.0.0.1:${n1.port}`]]));
    nodes = [n1, n2b];
    await waitFor('stream back up', () => n1.transport.peerState('n2') === 'up', 5000);
    for (let i = 3; i <= 50; i++) n1.transport.send([app('n1', 'n2', i)]);
    await waitFor('delivery resumes', () => n2b.received.length === 48);
    expect(n2b.received.map((m) => m.entries[0].index)).to.deep.equal(Array.from({ length: 48 }, (_, k) => k + 3));

    const transitions = n1.logs.filter((l) => l.peer === 'n2' && (l.msg === 'peer up' || l.msg === 'peer down')).map((l) => l.msg);
    expect(transitions).to.deep.equal(['peer up', 'peer down', 'peer up']); // once per transition, not per retry
  });
});
