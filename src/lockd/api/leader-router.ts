// Where a call is served: here when this node leads, else forwarded to the leader it knows of.
// A call that arrives already forwarded is never forwarded again (no loops between nodes that
// disagree about the leader for a moment); while an election is running a call waits a little
// for its outcome rather than failing at once.
import type * as grpc from '@grpc/grpc-js';
import { FORWARDED_HEADER } from '../node/listeners.js';
import type { NodeContext } from '../node/node-context.js';
import { unavailable, type ApiError } from './api-error.js';
import { answerBy, type ApiTiming } from './timing.js';

export { FORWARDED_HEADER };

/**
 * Where to serve a call. A forward goes to the leader's PEER address (its peer listener serves
 * forwarding); what callers are told is its CLIENT address ('' while not yet learned).
 */
export type Route = { readonly kind: 'local' } | Forward;
export interface Forward {
  readonly kind: 'forward';
  readonly leaderId: string;
  readonly peerAddress: string;
  readonly clientAddress: string;
}

export interface LeaderInfo {
  readonly id: string;
  /** Its client address, the only one a client is ever told ('' while unknown). */
  readonly address: string;
}

export class LeaderRouter {
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly ctx: NodeContext,
    private readonly timing: ApiTiming,
  ) {
    ctx.driver.onRoleChange((_role, leader) => {
      if (leader) this.wake();
    });
  }

  get selfId(): string {
    return this.ctx.config.id;
  }

  /** The leader this node knows of, with its client address; undefined when none is known. */
  leader(id: string = this.ctx.driver.leaderId()): LeaderInfo | undefined {
    if (!id) return undefined;
    return { id, address: this.ctx.peers.clientAddress(id) };
  }

  /** How to forward to member `id` (another node with a peer address), else undefined. */
  forwardTo(id: string): Forward | undefined {
    const peerAddress = this.ctx.peers.peerAddress(id);
    if (!id || id === this.selfId || !peerAddress) return undefined;
    return { kind: 'forward', leaderId: id, peerAddress, clientAddress: this.ctx.peers.clientAddress(id) };
  }

  /** UNAVAILABLE naming the leader this node knows of, unless that is itself (it could not serve the call). */
  unavailable(reason: string, leaderId?: string): ApiError {
    const leader = this.leader(leaderId);
    return unavailable(reason, leader?.id === this.selfId ? undefined : leader);
  }

  async route(call: { metadata: grpc.Metadata; getDeadline(): Date | number }, deadline: number): Promise<Route> {
    const forwardedBy = call.metadata.get(FORWARDED_HEADER)[0];
    if (this.ctx.driver.isLeader()) return { kind: 'local' };
    if (forwardedBy !== undefined) throw this.unavailable(`${this.selfId} is not the leader (call forwarded by ${String(forwardedBy)})`);
    if (!this.ctx.driver.leaderId()) await this.waitForLeader(answerBy(deadline, this.timing.leaderWaitMs, this.ctx.clock.wallMs()));
    if (this.ctx.driver.isLeader()) return { kind: 'local' };
    const to = this.forwardTo(this.ctx.driver.leaderId());
    if (!to) throw this.unavailable(`${this.selfId} knows no leader (election in progress or no quorum)`);
    return to;
  }

  /** Resolves when some leader is known, or at epoch ms `until`. */
  private waitForLeader(until: number): Promise<void> {
    const ms = until - this.ctx.clock.wallMs();
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        timer.clear();
        this.wakers.delete(done);
        resolve();
      };
      const timer = this.ctx.clock.after(ms, done);
      this.wakers.add(done);
    });
  }

  private wake(): void {
    for (const w of [...this.wakers]) w();
  }

  close(): void {
    this.wake();
  }
}
