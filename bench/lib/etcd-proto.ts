// etcd's gRPC API, loaded with @grpc/proto-loader from the trimmed protos in bench/etcd-proto/.
// Fields keep etcd's names (keepCase); int64s arrive as decimal strings because etcd lease ids use
// all 63 bits.
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const DIR = join(import.meta.dirname, '..', 'etcd-proto');

const def = protoLoader.loadSync(['rpc.proto', 'v3lock.proto'], {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [DIR],
});
const pkg = grpc.loadPackageDefinition(def) as unknown as {
  etcdserverpb: Record<'KV' | 'Watch' | 'Lease' | 'Maintenance', grpc.ServiceClientConstructor>;
  v3lockpb: Record<'Lock', grpc.ServiceClientConstructor>;
};

export const EtcdKV = pkg.etcdserverpb.KV;
export const EtcdWatch = pkg.etcdserverpb.Watch;
export const EtcdLease = pkg.etcdserverpb.Lease;
export const EtcdMaintenance = pkg.etcdserverpb.Maintenance;
export const EtcdLock = pkg.v3lockpb.Lock;

export interface ResponseHeader {
  cluster_id: string;
  member_id: string;
  revision: string;
  raft_term: string;
}

export interface KeyValue {
  key: Buffer;
  create_revision: string;
  mod_revision: string;
  version: string;
  value: Buffer;
  lease: string;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: KeyValue[];
  count: string;
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: Array<{ response: string; response_range?: RangeResponse }>;
}

export interface WatchResponse {
  header: ResponseHeader;
  watch_id: string;
  created: boolean;
  canceled: boolean;
  cancel_reason: string;
  events: Array<{ type: 'PUT' | 'DELETE'; kv: KeyValue }>;
}

export interface StatusResponse {
  header: ResponseHeader;
  version: string;
  leader: string;
  raftTerm: string;
  raftIndex: string;
}
