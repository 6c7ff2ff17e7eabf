// Limits of the public API (lockd.v1) per connection: request messages of at most MAX_REQUEST_BYTES
// (a larger one is refused with RESOURCE_EXHAUSTED before any handler sees it; a stream it arrives
// on ends), and at most MAX_STREAMS_PER_CONNECTION concurrent streams. The message limit is far
// above any valid request (fence values are ≤ 64 KiB, names ≤ 512 bytes) and bounds what one
// message can make the server decode.
// The peer service (raft.v1) shares the node's grpc.Server and keeps its own, larger limit (whole
// Raft messages, PEER_SERVER_OPTIONS), so the server's max_receive_message_length is the peer's and
// the public limit is enforced per service here, twice:
//  - on the wire: a server interceptor (PUBLIC_SERVER_OPTIONS) lowers the receive limit of each
//    public call's decoder to MAX_REQUEST_BYTES (grpc-js keeps it per call, from the server's
//    options). Without that, a public stream waited for and held up to the peer's 64 MiB of one
//    message (4,096 streams a connection), and inflated a 64 KiB gzip body to 64 MiB, before
//    anything looked at its size; now a length prefix over the limit, or an inflation past it,
//    ends the call at once (RESOURCE_EXHAUSTED) and nothing more of the message is kept;
//  - on decoding, should a grpc-js upgrade move that field (the wire test then fails): each public
//    service's request deserializer answers a marker for an oversized message instead of decoding
//    it, and the same interceptor ends the call when it meets a marker.
// When the public and peer listeners are split (security issue), the public server takes
// 'grpc.max_receive_message_length': MAX_REQUEST_BYTES and the stream limit, and the marker and
// interceptor go.
import * as grpc from '@grpc/grpc-js';

export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * Concurrent streams (calls) one client connection may have open: HTTP/2
 * SETTINGS_MAX_CONCURRENT_STREAMS. A conforming client queues further calls until one ends; one
 * that does not is refused (RST_STREAM REFUSED_STREAM). Every stream's buffers are bounded
 * (server-stream.ts), so this bounds what one connection can make the node hold. The number sits
 * above what one client legitimately keeps open (a KeepAlive per lease and an Observe per held lock
 * with the TS client, a full queue of 1,024 waiting Acquires on one lock plus a few calls) and far
 * below HTTP/2's default of no limit. It applies to the whole node server, so a follower spreads
 * what it forwards to the leader over several connections (forwarder.ts).
 */
export const MAX_STREAMS_PER_CONNECTION = 4096;

const TOO_LARGE = Symbol('request over the public message limit');

interface TooLarge {
  readonly [TOO_LARGE]: { readonly bytes: number; readonly limit: number };
}

function tooLarge(message: unknown): TooLarge[typeof TOO_LARGE] | undefined {
  return typeof message === 'object' && message !== null ? (message as Partial<TooLarge>)[TOO_LARGE] : undefined;
}

/** `service` with every request larger than `limit` bytes turned into a marker refuseOversized ends the call on. */
export function limitRequests<S extends grpc.ServiceDefinition>(service: S, limit = MAX_REQUEST_BYTES): S {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const [name, method] of Object.entries(service) as Array<[string, grpc.MethodDefinition<unknown, unknown>]>) {
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => (bytes.length > limit ? ({ [TOO_LARGE]: { bytes: bytes.length, limit } } satisfies TooLarge) : method.requestDeserialize(bytes)),
    };
  }
  return out as S;
}

/** Methods of the public API (lockd.v1); the rest of the server is the peer service. */
const PUBLIC_PATH = /^\/lockd\.v1\./;

/**
 * The receive limits grpc-js's BaseServerInterceptingCall takes from the server options: its
 * decoder refuses a length prefix over `maxReadMessageLength`, and its inflation stops past
 * `maxReceiveMessageSize`. Not public API (checked for shape, see the file comment).
 */
interface CallReceiveLimits {
  maxReceiveMessageSize: number;
  decoder: { maxReadMessageLength: number };
}

/** A grpc-js receive limit capped at MAX_REQUEST_BYTES (-1 is grpc-js's "unlimited"). */
const lowered = (limit: number): number => (limit < 0 || limit > MAX_REQUEST_BYTES ? MAX_REQUEST_BYTES : limit);

function hasReceiveLimits(call: unknown): call is CallReceiveLimits {
  const c = call as Partial<CallReceiveLimits> | undefined;
  return typeof c?.maxReceiveMessageSize === 'number' && typeof c.decoder?.maxReadMessageLength === 'number';
}

/**
 * Lowers a public call's receive limits to MAX_REQUEST_BYTES, and ends it with RESOURCE_EXHAUSTED
 * at the first marked (oversized) request; peer calls pass untouched. Runs before any data of the
 * call is read (grpc-js builds the interceptors synchronously with the call, its stream paused).
 */
const refuseOversized: grpc.ServerInterceptor = (method, call) => {
  if (PUBLIC_PATH.test(method.path) && hasReceiveLimits(call)) {
    call.maxReceiveMessageSize = lowered(call.maxReceiveMessageSize);
    call.decoder.maxReadMessageLength = lowered(call.decoder.maxReadMessageLength);
  }
  return new grpc.ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMessage: (message: unknown, pass: (m: unknown) => void) => {
          const over = tooLarge(message);
          if (!over) return pass(message);
          call.sendStatus({ code: grpc.status.RESOURCE_EXHAUSTED, details: `request message of ${over.bytes} bytes exceeds the limit of ${over.limit} bytes` });
        },
      }),
  });
};

/** Options the node's server needs for the public API (merged with the peer transport's). */
export const PUBLIC_SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.max_concurrent_streams': MAX_STREAMS_PER_CONNECTION,
  interceptors: [refuseOversized],
};
