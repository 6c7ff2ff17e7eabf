// Call metadata that tags a peer stream with its cluster and sender, checked before any envelope.
import type * as grpc from '@grpc/grpc-js';

export const CLUSTER_ID_HEADER = 'lockd-cluster-id';
export const NODE_ID_HEADER = 'lockd-node-id';
/**
 * The client address (HOST:PORT, at most 300 characters) of the node that sends it: the dialer in
 * its request metadata, the acceptor in its response metadata. It is how members learn what to
 * tell clients about each other (node/peer-directory.ts); it is never dialed by a node.
 */
export const CLIENT_ADDRESS_HEADER = 'lockd-client-address';
export const MAX_CLIENT_ADDRESS_LENGTH = 300;
/**
 * The HTTP address (HOST:PORT, same bound) of the sender's --http-listen endpoint, stated like the
 * client address, so that each member can tell the study dashboard where the others' are. Never
 * dialed by a node either.
 */
export const HTTP_ADDRESS_HEADER = 'lockd-http-address';
/**
 * The sender's build line (node/versions.ts: `lockd/0.2.0 storage=3 snapshot=8 command=2 frame=1
 * backup=1`), stated like the client address on both sides of every stream, so that every node
 * knows each member's version (the cluster version, node/cluster-version.ts). A node of the
 * previous release states none, and ignores this header (gRPC metadata it does not read). Never
 * a reason to refuse a stream; cut to MAX_BUILD_LENGTH.
 */
export const VERSION_HEADER = 'lockd-version';
export const MAX_BUILD_LENGTH = 300;
/**
 * Set (to "1") in the trailers of a refused stream whose sender this node knows was removed from
 * the cluster by a committed change: the sender stops itself (ids are never reused).
 */
export const REMOVED_TRAILER = 'lockd-removed';

/** What a peer stated in a stream's metadata (undefined: the header was absent), unchecked. */
export interface StatedAddresses {
  readonly client?: string;
  readonly http?: string;
  /** The build line (VERSION_HEADER); absent: a lockd that states none (the previous release). */
  readonly build?: string;
}

/** The addresses stated in `md` (a peer stream's request or response metadata). */
export function statedIn(md: grpc.Metadata): StatedAddresses {
  const client = md.get(CLIENT_ADDRESS_HEADER)[0];
  const http = md.get(HTTP_ADDRESS_HEADER)[0];
  const build = md.get(VERSION_HEADER)[0];
  return {
    ...(client === undefined ? {} : { client: String(client) }),
    ...(http === undefined ? {} : { http: String(http) }),
    ...(build === undefined ? {} : { build: String(build).slice(0, MAX_BUILD_LENGTH) }),
  };
}
