// How lockd loads its .proto files. Every server and client uses these options so that field naming
// and value types are the same everywhere, and match the generated types in src/proto/gen
// (`npm run gen` passes the same choices to proto-loader-gen-types):
//  - keepCase: false → fields are camelCase in TypeScript (lease_id → leaseId), the protobuf JSON
//    mapping's names;
//  - longs: Number → uint64/int64 arrive as JS numbers (indexes, terms, ids and tokens stay below
//    2^53; larger values would lose precision);
//  - enums: String → enum values are their names ('MESSAGE_TYPE_APP');
//  - bytes: Buffer (the default) → bytes fields arrive as Buffer, a Uint8Array;
//  - defaults: true → absent scalar/repeated fields read as 0 / '' / false / []; absent message
//    fields read as null;
//  - oneofs: true → a oneof's name holds the name of the field that is set.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

/**
 * The proto/ folder: two levels above this file both in the source tree (src/proto → proto/) and in
 * the build (dist/src/proto → dist/proto, which `npm run build` copies from proto/).
 */
export const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

export function loadProto<T>(file: string): T {
  const def = protoLoader.loadSync(file, { ...LOADER_OPTIONS, includeDirs: [PROTO_DIR] });
  return grpc.loadPackageDefinition(def) as unknown as T;
}
