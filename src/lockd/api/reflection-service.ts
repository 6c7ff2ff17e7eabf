// gRPC server reflection (grpc.reflection.v1 and v1alpha, via @grpc/reflection) on the node's
// client port, so grpcurl, Postman or evans can call lockd without a copy of proto/. It describes
// exactly the public services — it loads only lockd.proto (lockd.v1) and health.proto
// (grpc.health.v1), never raft.proto or the forwarded names — and it is registered with addPublic:
// the peer port does not answer it (UNIMPLEMENTED).
//
// Hostile input: a reflection request names a file or a symbol, so 4 KiB is plenty (larger ones
// are refused before parsing, RESOURCE_EXHAUSTED). The library answers every request with a write
// and never looks at backpressure, and an answer (a whole file descriptor, kilobytes) is larger than
// the request: a client that sends and never reads would make the node buffer answers without
// bound. So the stream is not read while its answers do not drain, as for every other stream of
// the API (server-stream.ts): unread requests stay in the client.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { dirname } from 'node:path';
import { LOADER_OPTIONS, PROTO_DIR } from '../../proto/load.js';
import type { ServiceRegistry } from '../node/listeners.js';
import { limitRequests } from './public-limits.js';

const MAX_REFLECTION_REQUEST_BYTES = 4096;

/** Pause reading `call` whenever a write does not fit its buffers, until it drains. */
function withBackpressure(call: grpc.ServerDuplexStream<unknown, unknown>): grpc.ServerDuplexStream<unknown, unknown> {
  const write = call.write.bind(call) as (m: unknown) => boolean;
  call.write = ((message: unknown) => {
    const fits = write(message);
    if (!fits && !call.isPaused()) {
      call.pause();
      call.once('drain', () => call.resume());
    }
    return fits;
  }) as typeof call.write;
  return call;
}

export function registerReflection(registry: ServiceRegistry): void {
  const healthDir = dirname(dirname(dirname(healthProtoPath))); // .../proto (health.proto is health/v1/health.proto)
  // keepCase: the descriptors carry the .proto's own field names (lease_id), as protoc's do; with
  // the servers' camelCase option they would name fields by their JSON names (leaseId).
  const options = { ...LOADER_OPTIONS, keepCase: true };
  const pkg = {
    ...protoLoader.loadSync('lockd.proto', { ...options, includeDirs: [PROTO_DIR] }),
    ...protoLoader.loadSync('health/v1/health.proto', { ...options, includeDirs: [healthDir] }),
  };
  new ReflectionService(pkg).addToServer({
    addService: (def, impl) => {
      const handlers: grpc.UntypedServiceImplementation = {};
      for (const [name, handler] of Object.entries(impl)) {
        handlers[name] = ((call: grpc.ServerDuplexStream<unknown, unknown>) =>
          (handler as (c: typeof call) => void)(withBackpressure(call))) as grpc.UntypedHandleCall;
      }
      registry.addPublic(limitRequests(def, MAX_REFLECTION_REQUEST_BYTES), handlers);
    },
  });
}
