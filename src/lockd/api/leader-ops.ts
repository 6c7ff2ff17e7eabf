// Writes this node makes on its own behalf (cleaning up an abandoned wait), wherever the leader is:
// proposed here while leading, else sent to the leader's public RPC (marked forwarded). Retried
// while no leader answers, until a time budget runs out.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../proto.js';
import type { NodeContext } from '../node/lockd-node.js';
import { ApiError, asApiError } from './api-error.js';
import type { Forwarder } from './forwarder.js';
import type { LeaderRouter } from './leader-router.js';
import type { Proposer } from './proposer.js';
import { answerBy, type ApiTiming } from './timing.js';

const RETRY_MS = 100;
const LOCK = lockdProto.lockd.v1.Lock.service;

export class LeaderOps {
  private closed = false;

  constructor(
    private readonly ctx: NodeContext,
    private readonly timing: ApiTiming,
    private readonly router: LeaderRouter,
    private readonly proposer: Proposer,
    private readonly forwarder: Forwarder,
  ) {}

  /** Take `leaseId` out of `name`'s queue; heldToken > 0 if it holds the lock by then. */
  cancelWait(name: string, leaseId: number, until: number): Promise<{ removed: boolean; heldToken: number }> {
    return this.onLeader(
      until,
      async (deadline) => {
        const r = await this.proposer.write({ type: 'CancelWait', name, leaseId }, deadline);
        return { removed: r.removed, heldToken: r.heldToken };
      },
      async (to, deadline) => {
        const r = await this.forwarder.unary(to, LOCK.CancelWait, { name, leaseId }, deadline, answerBy(deadline, this.timing.writeBoundMs), () => {});
        return { removed: r.removed, heldToken: r.fencingToken };
      },
    );
  }

  /** Release `name` if `token` still holds it; false if it did not (stale, or not held at all). */
  release(name: string, token: number, until: number): Promise<boolean> {
    const notHeld = (e: unknown) => {
      if (e instanceof ApiError && e.code === grpc.status.NOT_FOUND) return false;
      throw e;
    };
    return this.onLeader(
      until,
      (deadline) => this.proposer.write({ type: 'Release', name, token }, deadline).then((r) => r.released, notHeld),
      (to, deadline) =>
        this.forwarder
          .unary(to, LOCK.Release, { name, fencingToken: token }, deadline, answerBy(deadline, this.timing.writeBoundMs), () => {})
          .then((r) => r.released, notHeld),
    );
  }

  private async onLeader<T>(
    until: number,
    local: (deadline: number) => Promise<T>,
    remote: (to: { kind: 'forward'; leaderId: string; address: string }, deadline: number) => Promise<T>,
  ): Promise<T> {
    let last: ApiError | undefined;
    while (!this.closed && Date.now() < until) {
      try {
        if (this.ctx.driver.isLeader()) return await local(until);
        const leader = this.router.leader();
        if (leader?.address && leader.id !== this.router.selfId) return await remote({ kind: 'forward', leaderId: leader.id, address: leader.address }, until);
        last = this.router.unavailable('no leader known');
      } catch (e) {
        last = asApiError(e);
        if (last.code !== grpc.status.UNAVAILABLE) throw last;
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
    throw last ?? this.router.unavailable(this.closed ? 'node shutting down' : 'out of time');
  }

  close(): void {
    this.closed = true;
  }
}
