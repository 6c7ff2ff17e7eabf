// What lockd puts in a membership change's context (ConfChange.context, opaque to the Raft core,
// carried in the config entry to every node): the addresses of every member after the change, and
// the request id of the operator's call. Every member's, not only the new one's, for the same
// reason the entry carries the whole configuration: a node that joins empty learns them all from
// the first config entry it appends (the bootstrap --peers are in no log).
//
// It is a network input on followers (from the leader), so it is decoded defensively: anything
// malformed yields undefined (the change itself still takes effect: addresses only help liveness).
import { MAX_MEMBERS, type NodeId } from '../../raft/index.js';
import { isAddress, NODE_ID_PATTERN } from './config.js';
import type { MemberAddresses } from './peer-directory.js';

export interface MemberContext {
  readonly addresses: Readonly<Record<NodeId, MemberAddresses>>;
  /** The operator's request id ('' absent): a retry of the same change answers as the first did. */
  readonly requestId: string;
  /** Set on the changes --force-new-cluster wrote (node/force-start.ts): who forced them, when. Informational. */
  readonly forced?: { readonly by: NodeId; readonly at: string };
}

const MAX_REQUEST_ID = 128;

export function encodeMemberContext(c: MemberContext): string {
  return JSON.stringify({ v: 1, addresses: c.addresses, ...(c.requestId ? { requestId: c.requestId } : {}), ...(c.forced ? { forced: c.forced } : {}) });
}

export function decodeMemberContext(raw: string | undefined): MemberContext | undefined {
  if (raw === undefined) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null) return undefined;
  const { addresses, requestId } = o as Record<string, unknown>;
  if (typeof addresses !== 'object' || addresses === null || Array.isArray(addresses)) return undefined;
  const entries = Object.entries(addresses as Record<string, unknown>);
  if (entries.length > MAX_MEMBERS) return undefined;
  const book: Record<NodeId, MemberAddresses> = {};
  for (const [id, a] of entries) {
    if (!NODE_ID_PATTERN.test(id) || typeof a !== 'object' || a === null) return undefined;
    const { peer, client } = a as Record<string, unknown>;
    if (typeof peer !== 'string' || !isAddress(peer)) return undefined;
    if (client !== undefined && (typeof client !== 'string' || !isAddress(client))) return undefined;
    book[id] = client === undefined ? { peer } : { peer, client };
  }
  if (requestId !== undefined && (typeof requestId !== 'string' || requestId.length > MAX_REQUEST_ID)) return undefined;
  return { addresses: book, requestId: requestId ?? '' };
}
