// raft.v1, the peer protocol (proto/raft.proto): spoken only between lockd nodes, never by clients.
import { loadProto } from './load.js';
import type { ProtoGrpcType } from './gen/raft.js';

/** Service raft.v1.Raft. */
export const raftProto: ProtoGrpcType = loadProto<ProtoGrpcType>('raft.proto');
