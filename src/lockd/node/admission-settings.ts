// The admission limits of the public (client) port, as flags. The API layer enforces them
// (api/admission/); they are declared here, with the node's other flags, because config.ts parses
// every flag and the node sits below the API (src/README.md). Each limit has a name: the flag
// without its dashes' prefix, used in every refusal ("max-connections-per-address limit of 64
// reached") and as the `limit` label of its metrics, so an operator goes from a client's error to
// the gauge and the flag by one word.

export interface AdmissionSettings {
  /** Open client connections in all (TCP, before TLS): a further one is closed at once. */
  readonly maxConnections: number;
  /** Open client connections from one remote IP address. */
  readonly maxConnectionsPerAddress: number;
  /** Concurrent streams (calls) per client connection: HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS. */
  readonly maxStreamsPerConnection: number;
  /** Open streaming calls (KeepAlive, Session, Observe, ...) of one principal on this node. */
  readonly maxStreamsPerPrincipal: number;
  /** Unary calls of one principal in flight on this node (a waiting Acquire counts until it answers). */
  readonly maxUnaryPerPrincipal: number;
  /** Bytes of outbound stream messages a slow reader has not taken, over all streams of this node. */
  readonly outboundBytes: number;
  /** The same, for one stream: past it the stream ends with RESOURCE_EXHAUSTED. */
  readonly streamOutboundBytes: number;
  /** Bytes of decoded client requests being handled on this node (unary calls in flight, stream requests pending). */
  readonly inboundBytes: number;
}

const MiB = 1024 * 1024;

/** One limit's flag: its name (the flag, the refusal's and the metric label's word), the settings key, default and bounds. */
export interface AdmissionFlag {
  readonly flag: string;
  readonly key: keyof AdmissionSettings;
  readonly def: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The defaults sit above what a busy but well-behaved deployment uses and far below what exhausts a
 * node: a file descriptor, TLS state and HTTP/2 session per connection (~50-100 KiB); ~10 KiB of
 * grpc-js and HTTP/2 state per stream. Without --client-cert-auth every caller is the one principal
 * 'anonymous', so the per-principal limits are then limits of the whole node: their defaults leave
 * room for that. Requests being handled: 64 MiB is 16 requests at the 4 MiB message limit at once, or
 * 1,000 in-flight Fence.Writes of the largest value (64 KiB), while a busy node's ordinary requests
 * (under 1 KiB) fit by the ten thousand; a budget below 4 MiB refuses the largest valid requests
 * even on an idle node.
 */
export const ADMISSION_FLAGS: readonly AdmissionFlag[] = [
  { flag: 'max-connections', key: 'maxConnections', def: 4096, min: 1, max: 1_000_000 },
  { flag: 'max-connections-per-address', key: 'maxConnectionsPerAddress', def: 1024, min: 1, max: 1_000_000 },
  { flag: 'max-streams-per-connection', key: 'maxStreamsPerConnection', def: 4096, min: 1, max: 1_000_000 },
  { flag: 'max-streams-per-principal', key: 'maxStreamsPerPrincipal', def: 16_384, min: 1, max: 10_000_000 },
  { flag: 'max-unary-per-principal', key: 'maxUnaryPerPrincipal', def: 8192, min: 1, max: 10_000_000 },
  { flag: 'max-outbound-bytes', key: 'outboundBytes', def: 128 * MiB, min: 64 * 1024, max: 64 * 1024 * MiB },
  { flag: 'max-stream-outbound-bytes', key: 'streamOutboundBytes', def: 8 * MiB, min: 64 * 1024, max: 64 * 1024 * MiB },
  { flag: 'max-inbound-bytes', key: 'inboundBytes', def: 64 * MiB, min: 64 * 1024, max: 64 * 1024 * MiB },
];

export const DEFAULT_ADMISSION: AdmissionSettings = Object.fromEntries(ADMISSION_FLAGS.map((f) => [f.key, f.def])) as unknown as AdmissionSettings;

/** The flag (limit name) of a settings key. */
export function limitName(key: keyof AdmissionSettings): string {
  const f = ADMISSION_FLAGS.find((x) => x.key === key);
  if (!f) throw new Error(`no admission flag for ${key}`);
  return f.flag;
}
