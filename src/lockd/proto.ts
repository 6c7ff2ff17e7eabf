// The one place that loads proto/*.proto. Every server and client uses these loaded packages so
// that field naming and value types are the same everywhere, and match the generated types in
// src/lockd/gen (`npm run gen` passes the same choices to proto-loader-gen-types):
//  - keepCase: false → fields are camelCase in TypeScript (lease_id → leaseId), the protobuf JSON
//    mapping's names;
//  - longs: Number → uint64/int64 arrive as JS numbers (indexes, terms, ids and tokens stay below
//    2^53; larger values would lose precision);
//  - enums: String → enum values are their names ('MESSAGE_TYPE_APP');
//  - bytes: Buffer (the default) → bytes fields arrive as Buffer, a Uint8Array;
//  - defaults: true → absent scalar/repeated fields read as 0 / '' / false / []; absent message
//    fields read as null;
//  - oneofs: true → a oneof's name holds the name of the field that is set.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as LockdProto } from './gen/lockd.js';
import type { ProtoGrpcType as RaftProto } from './gen/raft.js';

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/** proto/ at the package root, found by walking up (the same from src/lockd and dist/src/lockd). */
export function protoDir(start: string = import.meta.dirname): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, 'lockd.proto'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`proto/lockd.proto not found above ${start}`);
  }
}

function load<T>(file: string): T {
  const dir = protoDir();
  const def = protoLoader.loadSync(join(dir, file), { ...LOADER_OPTIONS, includeDirs: [dir] });
  return grpc.loadPackageDefinition(def) as unknown as T;
}

/** raft.v1: the peer protocol (service raft.v1.Raft). */
export const raftProto: RaftProto = load<RaftProto>('raft.proto');
/** lockd.v1: the public API (services Lease, Lock, Fence, Cluster). */
export const lockdProto: LockdProto = load<LockdProto>('lockd.proto');
