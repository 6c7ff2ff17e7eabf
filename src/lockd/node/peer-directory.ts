// Where each member can be reached: its PEER address (what nodes dial), and its CLIENT address
// (what clients are told: Cluster.Status, the lockd-leader trailer, "the leader is X").
//
// Peer addresses come from --peers (the operator's word for this start: it wins), then from
// membership changes: a config entry carries every member's addresses (member-context.ts), and
// this node adds the ids it does not know yet. An address it already has is kept (a machine that
// moved is told by restarting its peers with new --peers, as before membership changes).
//
// A member's client address is learned from the member itself: each side of a peer stream states
// its advertised client address in the stream's metadata (transport/metadata.ts), and the
// transport checks it before it lands here. Until a member has been heard from, its client address
// is the one the operator gave when adding it (MemberAdd client_url), else unknown ('') — never a
// guess, and never its peer address.
//
// Membership itself (who votes, who is a learner, who was removed) is the Raft core's
// configuration; the node copies it here after every change (lockd-node.ts), so the transport and
// the forwarding gate refuse removed ids (ids are never reused).
import type { NodeId } from '../../raft/types.js';
import type { StatedAddresses } from '../transport/metadata.js';
import { clusterVersion, type MemberVersion, UNSTATED_VERSION } from './cluster-version.js';
import { isAddress } from './config.js';
import { buildLine, versionInLine } from './versions.js';

/** One member's addresses, as a config entry carries them. */
export interface MemberAddresses {
  readonly peer: string;
  /** Given by the operator at MemberAdd; absent for members from --peers. */
  readonly client?: string;
}

export class PeerDirectory {
  private readonly peerAddresses: Map<NodeId, string>;
  private readonly clientAddresses = new Map<NodeId, string>();
  /** HTTP addresses (--advertise-http), learned the same way: what the dashboard reconnects to. */
  private readonly httpAddresses = new Map<NodeId, string>();
  private readonly clientHints = new Map<NodeId, string>();
  /** Each member's build line as it last stated it ('' : it stated none, the previous release); absent until heard. */
  private readonly builds = new Map<NodeId, string>();
  /** Members of the effective configuration; undefined until the node copies the core's in. */
  private config: { readonly voters: readonly NodeId[]; readonly learners: readonly NodeId[] } | undefined;
  /** Ids whose removal this node has committed: refused everywhere, for good. */
  private readonly removedIds = new Set<NodeId>();
  private readonly addedListeners: Array<(id: NodeId, peerAddress: string) => void> = [];

  constructor(
    private readonly selfId: NodeId,
    /** Peer addresses this start was given (--peers), this node included. */
    peerAddresses: ReadonlyMap<NodeId, string>,
    selfClientAddress: string,
    selfHttpAddress = '',
  ) {
    this.peerAddresses = new Map(peerAddresses);
    this.clientAddresses.set(selfId, selfClientAddress);
    if (selfHttpAddress) this.httpAddresses.set(selfId, selfHttpAddress);
  }

  /** The members (voters, then learners) of the effective configuration; before it is known, the --peers ids. */
  members(): NodeId[] {
    if (!this.config) return [...this.peerAddresses.keys()].filter((id) => !this.removedIds.has(id));
    return [...this.config.voters, ...this.config.learners];
  }

  role(id: NodeId): 'voter' | 'learner' | undefined {
    if (this.config?.voters.includes(id)) return 'voter';
    if (this.config?.learners.includes(id)) return 'learner';
    return undefined;
  }

  /** Whether `id` may talk to this node: one it has an address for, and not removed. */
  isMember(id: NodeId): boolean {
    return this.peerAddresses.has(id) && !this.removedIds.has(id);
  }

  isRemoved(id: NodeId): boolean {
    return this.removedIds.has(id);
  }

  peerAddress(id: NodeId): string {
    return this.peerAddresses.get(id) ?? '';
  }

  /** The client address `id` advertised, else the one it was added with ('' when neither is known). */
  clientAddress(id: NodeId): string {
    return this.clientAddresses.get(id) ?? this.clientHints.get(id) ?? '';
  }

  /**
   * Record what member `id` says its client and HTTP addresses are, from one stream's metadata;
   * false, and nothing changes, if `id` is not a member or either is not an address. An absent
   * client address is left as it was (the operator's hint still stands). An absent HTTP address
   * clears the recorded one: a member states it on every stream it opens or accepts whenever it
   * has one, so a stream without it means the member restarted without --http-listen, and the
   * dashboard (/cluster, CORS) must stop naming the old endpoint.
   */
  learn(id: NodeId, stated: StatedAddresses): boolean {
    if (id === this.selfId || !this.isMember(id)) return false;
    if ([stated.client, stated.http].some((a) => a !== undefined && !isAddress(a))) return false;
    if (stated.client !== undefined) this.clientAddresses.set(id, stated.client);
    if (stated.http !== undefined) this.httpAddresses.set(id, stated.http);
    else this.httpAddresses.delete(id);
    this.builds.set(id, stated.build ?? '');
    return true;
  }

  /** The build line member `id` stated ('' for none; undefined until heard from). This node's own is the build's. */
  build(id: NodeId): string | undefined {
    return id === this.selfId ? buildLine() : this.builds.get(id);
  }

  /** What this node knows of `id`'s version, for the cluster version (cluster-version.ts). */
  versionOf(id: NodeId): MemberVersion {
    const line = this.build(id);
    if (line === undefined) return { heard: false };
    return { heard: true, version: line === '' ? UNSTATED_VERSION : versionInLine(line) };
  }

  /** The cluster version as this node knows it: the lowest among the members of the effective configuration. */
  clusterVersion(): { readonly version: string; readonly complete: boolean } {
    return clusterVersion(this.members(), (id) => this.versionOf(id));
  }

  /** The HTTP address `id` advertised ('' until known, or when it has none). */
  httpAddress(id: NodeId): string {
    return this.httpAddresses.get(id) ?? '';
  }

  /**
   * Addresses from a config entry (or this node's saved ones): ids this node does not know yet are
   * added (and the listeners told); known ids keep their address. Removed ids are ignored.
   * Returns whether anything was added.
   */
  addAddresses(book: Readonly<Record<NodeId, MemberAddresses>>): boolean {
    let added = false;
    for (const [id, a] of Object.entries(book)) {
      if (this.removedIds.has(id) || !isAddress(a.peer)) continue;
      if (a.client !== undefined && isAddress(a.client) && !this.clientHints.has(id)) this.clientHints.set(id, a.client);
      if (this.peerAddresses.has(id)) continue;
      this.peerAddresses.set(id, a.peer);
      added = true;
      for (const l of this.addedListeners) l(id, a.peer);
    }
    return added;
  }

  /** Every member's addresses this node knows (for a config entry's context, and the data dir). */
  book(): Record<NodeId, MemberAddresses> {
    const out: Record<NodeId, MemberAddresses> = {};
    for (const [id, peer] of this.peerAddresses) {
      if (this.removedIds.has(id)) continue;
      const client = this.clientAddress(id);
      out[id] = client ? { peer, client } : { peer };
    }
    return out;
  }

  /** The peer address some other member already has (a new member may not take it), or undefined. */
  ownerOf(peerAddress: string): NodeId | undefined {
    for (const [id, a] of this.peerAddresses) if (a === peerAddress && !this.removedIds.has(id)) return id;
    return undefined;
  }

  /** Copy the core's configuration in: effective members, and the ids removed by a committed change. */
  setConfiguration(effective: { readonly voters: readonly NodeId[]; readonly learners?: readonly NodeId[] }, committedRemoved: readonly NodeId[]): NodeId[] {
    this.config = { voters: [...effective.voters], learners: [...(effective.learners ?? [])] };
    const newlyRemoved = committedRemoved.filter((id) => !this.removedIds.has(id));
    for (const id of newlyRemoved) this.removedIds.add(id);
    return newlyRemoved;
  }

  /** Called with every peer address added after the start (the transport dials it). */
  onAdded(l: (id: NodeId, peerAddress: string) => void): void {
    this.addedListeners.push(l);
  }
}
