// gRPC server reflection on the client port: what grpcurl / Postman / evans need to call lockd
// without a copy of proto/ — the service list, a method's descriptor, and a call made from the
// descriptor alone. Not on the peer port.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { lockdProto } from '../../../src/proto/lockd-package.js';
import { ProcessCluster } from '../../support/process-cluster.js';
import { fileDescriptorSet, ReflectionClient } from '../../support/reflection-client.js';

/** The lockd.v1 services, from the package the server itself loads. */
const LOCKD_SERVICES = Object.entries(lockdProto.lockd.v1)
  .filter(([, v]) => typeof v === 'function' && 'service' in v)
  .map(([k]) => `lockd.v1.${k}`);

function failure(p: Promise<unknown>): Promise<grpc.ServiceError> {
  return p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: grpc.ServiceError) => e,
  );
}

describe('gRPC server reflection on the client port', function () {
  let cluster: ProcessCluster;
  let leader = '';
  const clients: ReflectionClient[] = [];
  const reflect = (address: string) => {
    const c = new ReflectionClient(address);
    clients.push(c);
    return c;
  };

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    leader = await cluster.waitForLeader();
  });
  after(async () => {
    for (const c of clients) c.close();
    await cluster?.stop();
  });

  it('lists exactly the lockd.v1 services and grpc.health.v1.Health, on the leader and on a follower', async () => {
    expect(LOCKD_SERVICES).to.include.members(['lockd.v1.Lease', 'lockd.v1.Lock', 'lockd.v1.Fence', 'lockd.v1.Cluster', 'lockd.v1.Session']);
    const follower = cluster.nodes.find((n) => n.id !== leader)!;
    for (const node of [cluster.node(leader), follower]) {
      expect(await reflect(node.address).services(), node.id).to.deep.equal([...LOCKD_SERVICES, 'grpc.health.v1.Health'].sort());
    }
  });

  it("resolves a method's descriptor by symbol, and a client built from it alone calls the node", async () => {
    const r = reflect(cluster.node(leader).address);
    const def = protoLoader.loadFileDescriptorSetFromBuffer(fileDescriptorSet(await r.fileContainingSymbol('lockd.v1.Lock.Acquire')), {
      longs: Number,
      defaults: true,
    });
    const acquire = (def['lockd.v1.Lock'] as protoLoader.ServiceDefinition).Acquire;
    expect(acquire.path).to.equal('/lockd.v1.Lock/Acquire');
    expect([acquire.requestStream, acquire.responseStream]).to.deep.equal([false, false]);
    const fields = (acquire.requestType.type as { field: Array<{ name: string; number: number }> }).field.map((f) => [f.name, f.number]);
    expect(fields).to.deep.include.members([
      ['name', 1],
      ['lease_id', 2],
      ['wait', 3],
      ['request_id', 4],
    ]);
    expect((def['lockd.v1.Lease'] as protoLoader.ServiceDefinition).KeepAlive).to.include({ requestStream: true, responseStream: true });

    // A call from the reflected descriptor only, as grpcurl makes it.
    const Cluster = grpc.makeGenericClientConstructor(def['lockd.v1.Cluster'] as protoLoader.ServiceDefinition, 'Cluster');
    const c = new Cluster(cluster.node(leader).address, grpc.credentials.createInsecure());
    try {
      const st = await new Promise<{ node_id: string; role: string }>((resolve, reject) =>
        (
          c as unknown as { Status(req: object, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r: { node_id: string; role: string }) => void): void }
        ).Status({}, { deadline: Date.now() + 5000 }, (e, res) => (e ? reject(e) : resolve(res))),
      );
      expect(st).to.include({ node_id: leader, role: 'leader' });
    } finally {
      c.close();
    }
  });

  it('answers an unknown symbol with NOT_FOUND in the stream, and refuses an oversized request', async () => {
    const r = reflect(cluster.node(leader).address);
    const a = await r.ask({ fileContainingSymbol: 'raft.v1.Raft' });
    expect(a.errorResponse?.errorCode).to.equal(grpc.status.NOT_FOUND);
    const big = await failure(r.ask({ fileContainingSymbol: 'x'.repeat(5000) }));
    expect(big.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('is not served on the peer port', async () => {
    const e = await failure(reflect(cluster.node(leader).peerAddress).services());
    expect(e.code).to.equal(grpc.status.UNIMPLEMENTED);
  });
});
