// Where each member can be reached: its PEER address from --peers (what nodes dial), and its CLIENT
// address (what clients are told: Cluster.Status, the lockd-leader trailer, "the leader is X").
// A member's client address is learned from the member itself: each side of a peer stream states
// its advertised client address in the stream's metadata (transport/metadata.ts), and the
// transport checks it before it lands here. Until a member has been heard from, its client address
// is unknown ('') — never a guess, and never its peer address.
import type { NodeId } from '../../raft/types.js';
import type { StatedAddresses } from '../transport/metadata.js';
import { isAddress } from './config.js';

export class PeerDirectory {
  private readonly clientAddresses = new Map<NodeId, string>();
  /** HTTP addresses (--advertise-http), learned the same way: what the dashboard reconnects to. */
  private readonly httpAddresses = new Map<NodeId, string>();

  constructor(
    private readonly selfId: NodeId,
    /** Every member's peer address, this node included (--peers). */
    private readonly peerAddresses: ReadonlyMap<NodeId, string>,
    selfClientAddress: string,
    selfHttpAddress = '',
  ) {
    this.clientAddresses.set(selfId, selfClientAddress);
    if (selfHttpAddress) this.httpAddresses.set(selfId, selfHttpAddress);
  }

  members(): NodeId[] {
    return [...this.peerAddresses.keys()];
  }

  isMember(id: NodeId): boolean {
    return this.peerAddresses.has(id);
  }

  peerAddress(id: NodeId): string {
    return this.peerAddresses.get(id) ?? '';
  }

  /** The client address `id` advertised ('' until it is known). */
  clientAddress(id: NodeId): string {
    return this.clientAddresses.get(id) ?? '';
  }

  /**
   * Record what member `id` says its client and HTTP addresses are (an absent one is left as it
   * was); false, and nothing changes, if `id` is not a member or either is not an address.
   */
  learn(id: NodeId, stated: StatedAddresses): boolean {
    if (id === this.selfId || !this.peerAddresses.has(id)) return false;
    if ([stated.client, stated.http].some((a) => a !== undefined && !isAddress(a))) return false;
    if (stated.client !== undefined) this.clientAddresses.set(id, stated.client);
    if (stated.http !== undefined) this.httpAddresses.set(id, stated.http);
    return true;
  }

  /** The HTTP address `id` advertised ('' until known, or when it has none). */
  httpAddress(id: NodeId): string {
    return this.httpAddresses.get(id) ?? '';
  }
}
