// A refusal must not tell a stranger what exists (real processes, mutual TLS, test-made
// certificates): TimeToLive of another principal's live lease answers exactly as a dead lease's;
// a peer stream opened with a client certificate of the cluster's CA gets one answer whatever
// member id it claims and whatever cluster id it sends.
import { useMtlsCluster } from '../support/mtls-cluster.js';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { raftProto } from '../../src/proto/raft-package.js';
import { CLUSTER_ID_HEADER, NODE_ID_HEADER } from '../../src/lockd/transport/metadata.js';
import { failure } from '../support/lockd-failure.js';

/** Open a raft.v1 stream claiming member `as` with `clusterId`; resolves with how it ended (OK: accepted). */
function peerStream(address: string, creds: grpc.ChannelCredentials, clusterId: string, as: string): Promise<{ code: grpc.status; details: string }> {
  const c = new raftProto.raft.v1.Raft(address, creds);
  const md = new grpc.Metadata();
  md.set(CLUSTER_ID_HEADER, clusterId);
  md.set(NODE_ID_HEADER, as);
  return new Promise((resolve) => {
    const done = (code: grpc.status, details: string) => {
      c.close();
      resolve({ code, details });
    };
    const call = c.Stream(md, { deadline: Date.now() + 5000 }, (err) => done(err ? err.code : grpc.status.OK, err?.details ?? ''));
    call.on('metadata', () => {
      call.cancel();
      done(grpc.status.OK, '');
    });
  });
}

describe('uniform refusals: no existence oracle (real processes, mTLS)', function () {
  this.timeout(90_000);
  const fx = useMtlsCluster();
  const clientAs = (who: string) => fx.clientAs(who);

  it("TimeToLive of another principal's live lease answers as a dead lease does: NOT_FOUND, the same message", async () => {
    const alice = clientAs('alice');
    const bob = clientAs('bob');
    const live = await alice.grantLease(30_000);
    const dead = await alice.grantLease(30_000);
    await alice.revokeLease(dead.id);
    expect((await alice.timeToLive(live.id)).owner).to.equal('alice');
    const ofLive = await failure(bob.timeToLive(live.id));
    const ofDead = await failure(bob.timeToLive(dead.id));
    expect(ofLive.codeName, ofLive.details).to.equal('NOT_FOUND');
    expect(ofDead.codeName, ofDead.details).to.equal('NOT_FOUND');
    expect(ofLive.details.replace(String(live.id), 'N')).to.equal(ofDead.details.replace(String(dead.id), 'N'));
    // The owner's own dead lease: the same answer it always was.
    expect((await failure(alice.timeToLive(dead.id))).codeName).to.equal('NOT_FOUND');
  });

  it('a peer stream with a client certificate: the same refusal for a member id, another id, and a wrong cluster id', async () => {
    const leader = await fx.cluster.waitForLeader();
    const member = fx.cluster.nodes.find((n) => n.id !== leader)!.id;
    const creds = fx.pki.channelCredentials(fx.certs('mallory'));
    const at = fx.cluster.node(leader).peerAddress;
    const answers = [
      await peerStream(at, creds, fx.cluster.clusterId, member),
      await peerStream(at, creds, fx.cluster.clusterId, 'n77'),
      await peerStream(at, creds, 'a-guess', member),
      await peerStream(at, creds, 'a-guess', 'n77'),
    ];
    for (const a of answers) expect(a.code, a.details).to.equal(grpc.status.UNAUTHENTICATED);
    const shape = (a: { details: string }) => a.details.replaceAll(member, 'ID').replaceAll('n77', 'ID');
    expect(new Set(answers.map(shape)).size, answers.map((a) => a.details).join('\n')).to.equal(1);
  });
});
