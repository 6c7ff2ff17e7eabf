// lockd.v1, the public API (proto/lockd.proto): what clients in any language speak.
import { loadProto } from './load.js';
import type { ProtoGrpcType } from './gen/lockd.js';

/** Services Lease, Lock, Fence, Auth, Cluster, Session. */
export const lockdProto: ProtoGrpcType = loadProto<ProtoGrpcType>('lockd.proto');
