// Limits of the public API (lockd.v1) per connection: request messages of at most MAX_REQUEST_BYTES
// (a larger one is refused with RESOURCE_EXHAUSTED before any handler sees it; a stream it arrives
// on ends), and at most MAX_STREAMS_PER_CONNECTION concurrent streams. The message limit is far
// above any valid request (fence values are ≤ 64 KiB, names ≤ 512 bytes) and bounds what one
// message can make the server decode.
// On the public listener the limit is the transport's ('grpc.max_receive_message_length' in
// PUBLIC_SERVER_OPTIONS): a request announcing more is refused as soon as its 5-byte prefix is read,
// and a compressed one once it inflates past the limit, so no client makes a node buffer more. The
// peer listener serves the same services to forwarding members but takes whole Raft messages (its
// server limit is the peer transport's, 64 MiB), so there the limit is enforced per service: each
// public service's request deserializer answers a marker for an oversized message instead of
// decoding it, and a server interceptor (PUBLIC_SERVER_OPTIONS) ends the call when it meets a marker.
import * as grpc from '@grpc/grpc-js';
import { PUBLIC_PREFIX } from '../node/listeners.js';
import { DEFAULT_ADMISSION, type AdmissionSettings } from '../node/admission-settings.js';

export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * Concurrent streams (calls) one client connection may have open by default
 * (--max-streams-per-connection): HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS. A conforming client queues further calls until one ends; one
 * that does not is refused (RST_STREAM REFUSED_STREAM). Every stream's buffers are bounded
 * (server-stream.ts), so this bounds what one connection can make the node hold. The number sits
 * above what one client legitimately keeps open (a KeepAlive per lease and an Observe per held lock
 * with the TS client, a full queue of 1,024 waiting Acquires on one lock plus a few calls) and far
 * below HTTP/2's default of no limit. The peer port keeps this value whatever the flag says
 * (transport/peer-transport.ts), and a follower spreads what it forwards to the leader over several
 * connections (forwarder.ts).
 */
export const MAX_STREAMS_PER_CONNECTION = DEFAULT_ADMISSION.maxStreamsPerConnection;

const TOO_LARGE = Symbol('request over the public message limit');

/**
 * Paths limited below MAX_REQUEST_BYTES (e.g. health's 1 KiB): a marker may reach such a call on
 * the public listener, whose transport limit is MAX_REQUEST_BYTES and refuses anything larger
 * before it is decoded.
 */
const limitedBelowTransport = new Set<string>();

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
    if (limit < MAX_REQUEST_BYTES) limitedBelowTransport.add(method.path);
    out[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) =>
        bytes.length > limit ? ({ [TOO_LARGE]: { bytes: bytes.length, limit } } satisfies TooLarge) : method.requestDeserialize(bytes),
    };
  }
  return out as S;
}

/**
 * Ends a call with RESOURCE_EXHAUSTED at the first marked (oversized) request; other calls pass
 * untouched. A lockd.v1 call at the full public limit cannot meet a marker: lockd.v1 paths are served
 * only on the public listener (the peer port serves them renamed, as lockd.forwarded.v1), whose
 * transport refuses larger messages first. Those calls, most of a node's, skip the intercepting
 * layer and its objects and callbacks per call (~1 % of a busy leader's CPU under unary load);
 * every other call (forwarded, health, reflection, Raft) keeps it.
 */
const refuseOversized: grpc.ServerInterceptor = (method, call) => {
  // grpc-js chains interceptors as calls (reduce over ServerInterceptingCallInterface); the type is narrower than what it takes.
  if (method.path.startsWith(PUBLIC_PREFIX) && !limitedBelowTransport.has(method.path)) return call as grpc.ServerInterceptingCall;
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

/**
 * Options the node's servers need for the public API (on the peer listener, merged under the peer
 * transport's), with `maxStreamsPerConnection` from --max-streams-per-connection (node/admission-settings.ts).
 */
export function publicServerOptions(
  settings: Pick<AdmissionSettings, 'maxStreamsPerConnection'> = { maxStreamsPerConnection: MAX_STREAMS_PER_CONNECTION },
): grpc.ServerOptions {
  return {
    'grpc.max_receive_message_length': MAX_REQUEST_BYTES,
    'grpc.max_concurrent_streams': settings.maxStreamsPerConnection,
    interceptors: [refuseOversized],
  };
}

/** publicServerOptions with the default limits. */
export const PUBLIC_SERVER_OPTIONS: grpc.ServerOptions = publicServerOptions();
