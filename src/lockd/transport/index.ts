// gRPC transport between lockd nodes (proto/raft.proto).
export { PeerTransport, type PeerTransportOptions, PEER_SERVER_OPTIONS, peerChannelOptions, DNS_RERESOLVE_MS } from './peer-transport.js';
export type { Backoff, PeerState } from './peer-stream.js';
export { DEFAULT_CHUNK_BYTES } from './snapshot-chunks.js';
