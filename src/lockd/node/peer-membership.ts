// The node's side of membership changes (the Raft core decides them: src/raft/README.md). After
// every change this node appends, commits or receives in a snapshot, it copies the core's
// configuration into the peer directory (who is a member, who was removed), adds the addresses
// the change carried (member-context.ts) so the transport dials new members, and closes the
// streams to members whose removal committed. It also remembers the request ids of committed
// changes, so an operator's retry of a change that already happened answers as the first did.
import type { Logger } from 'pino';
import { decodeConfigEntry, type Entry, type NodeId } from '../../raft/index.js';
import { decodeMemberContext } from './member-context.js';
import type { PeerDirectory } from './peer-directory.js';
import type { RaftDriver } from './raft-driver.js';

/** Request ids of committed changes remembered (oldest forgotten first). */
const MAX_REMEMBERED = 1024;

export interface CommittedChange {
  readonly index: number;
  readonly op: string;
  readonly node: NodeId;
}

export class Membership {
  private readonly committedRequests = new Map<string, CommittedChange>();

  constructor(
    private readonly selfId: NodeId,
    private readonly driver: Pick<RaftDriver<unknown>, 'configurationAt' | 'status' | 'onMembership'>,
    private readonly directory: PeerDirectory,
    private readonly logger: Logger,
    /** Stop sending to a member whose removal committed. */
    private readonly dropPeer: (id: NodeId) => void,
    /** The directory's addresses changed: save them for the next start. */
    private readonly saveBook: () => void,
  ) {}

  /** At start: the config entries still in the stored log (addresses, committed request ids), then the core's configuration. */
  replay(entries: readonly Entry[], commit: number): void {
    for (const e of entries) if (e.type === 'config') this.entry(e, e.index <= commit);
    this.sync();
    this.driver.onMembership((ev) => {
      if (ev.entry) this.entry(ev.entry, ev.committed);
      this.sync();
    });
  }

  /** The committed change a request id made, if this node remembers it. */
  committedRequest(requestId: string): CommittedChange | undefined {
    return requestId ? this.committedRequests.get(requestId) : undefined;
  }

  private entry(e: Entry, committed: boolean): void {
    const { change } = decodeConfigEntry(e.data, this.selfId, e.index);
    const ctx = decodeMemberContext(change.context);
    if (change.context !== undefined && !ctx)
      this.logger.warn({ event: 'bad member context', index: e.index }, `config entry ${e.index} carries no usable member addresses`);
    if (!committed && ctx && this.directory.addAddresses(ctx.addresses)) this.saveBook();
    if (committed && ctx?.requestId) {
      this.committedRequests.set(ctx.requestId, { index: e.index, op: change.op, node: change.node });
      if (this.committedRequests.size > MAX_REMEMBERED) this.committedRequests.delete(this.committedRequests.keys().next().value!);
    }
    if (committed)
      this.logger.info(
        { event: 'membership change committed', index: e.index, op: change.op, member: change.node },
        `membership change committed at ${e.index}: ${change.op} ${change.node}`,
      );
  }

  /** Copy the core's configuration into the directory; close streams to members removed for good. */
  private sync(): void {
    const effective = this.driver.configurationAt(Infinity);
    const committed = this.driver.configurationAt(Math.max(this.driver.status().commit, 0));
    for (const id of this.directory.setConfiguration(effective, committed.removed ?? [])) {
      this.logger.info({ event: 'member removed', member: id }, `${id} was removed from the cluster; its streams are closed and refused from now on`);
      if (id !== this.selfId) this.dropPeer(id);
      this.saveBook();
    }
  }
}
