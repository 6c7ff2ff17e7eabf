// A real gRPC server speaking lockd.v1 with scripted answers, for the client behaviours a healthy
// cluster will not show on demand (a follower's UNAVAILABLE + leader trailer, a hung node, a
// keepalive stream that goes quiet). Unimplemented methods answer UNIMPLEMENTED.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { LeaseHandlers } from '../../src/proto/gen/lockd/v1/Lease.js';
import type { LockHandlers } from '../../src/proto/gen/lockd/v1/Lock.js';
import type { ClusterHandlers } from '../../src/proto/gen/lockd/v1/Cluster.js';
import type { FenceHandlers } from '../../src/proto/gen/lockd/v1/Fence.js';

export interface FakeServer {
  readonly address: string;
  stop(): Promise<void>;
}

export async function startFake(handlers: {
  lease?: Partial<LeaseHandlers>;
  lock?: Partial<LockHandlers>;
  cluster?: Partial<ClusterHandlers>;
  fence?: Partial<FenceHandlers>;
}): Promise<FakeServer> {
  const server = new grpc.Server();
  const v1 = lockdProto.lockd.v1;
  const untyped = (h: object): grpc.UntypedServiceImplementation => h as grpc.UntypedServiceImplementation;
  server.addService(v1.Lease.service, untyped(handlers.lease ?? {}));
  server.addService(v1.Lock.service, untyped(handlers.lock ?? {}));
  server.addService(v1.Fence.service, untyped(handlers.fence ?? {}));
  // By default a node that knows no leader (so the client falls back to its endpoint list).
  const status: Partial<ClusterHandlers> = { Status: (_c, cb) => cb(null, { nodeId: 'fake', role: 'follower' }) };
  server.addService(v1.Cluster.service, untyped(handlers.cluster ?? status));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    address: `127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}

/** UNAVAILABLE as lockd sends it: naming the leader in the message and the lockd-leader trailer. */
export function notLeader(leaderAddress: string): Partial<grpc.StatusObject> {
  const metadata = new grpc.Metadata();
  metadata.set('lockd-leader', leaderAddress);
  return { code: grpc.status.UNAVAILABLE, details: `fake is not the leader; the leader is n9 at ${leaderAddress}`, metadata };
}
