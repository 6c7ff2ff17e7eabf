// WaitCleanup: writes this node makes on its own behalf (cleaning up an abandoned wait), wherever the leader is:
// proposed here while leading, else sent to the leader as a forwarded call (its peer port). Retried
// while no leader answers, until a time budget runs out.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { NodeContext } from '../node/node-context.js';
import { ApiError, asApiError } from './api-error.js';
import type { ForwardPort } from './forwarder.js';
import type { Forward, LeaderRouter } from './leader-router.js';
import type { Proposer } from './proposer.js';
import { answerBy, type ApiTiming } from './timing.js';

const RETRY_MS = 100;
const LOCK = lockdProto.lockd.v1.Lock.service;

export class WaitCleanup {
  private closed = false;

  constructor(
    private readonly ctx: NodeContext,
    private readonly timing: ApiTiming,
    private readonly router: LeaderRouter,
    private readonly proposer: Proposer,
    private readonly forwarder: ForwardPort,
  ) {}

  /**
   * Clean up after a waiting Acquire abandoned at `abandonedAtIndex` (CancelWaitCommand): take
   * `leaseId` out of `name`'s queue, or release a grant made meanwhile (released), unless a later
   * Acquire of the lease re-asserted it (all false/0). Done for `principal`, the abandoned call's.
   */
  cancelWait(
    name: string,
    leaseId: number,
    abandonedAtIndex: number,
    acquireRequestId: string | undefined,
    until: number,
    principal: string,
  ): Promise<{ removed: boolean; heldToken: number; released: boolean }> {
    return this.onLeader(
      until,
      async (deadline) => {
        const r = await this.proposer.write(
          { type: 'CancelWait', name, leaseId, abandonedAtIndex, acquireRequestId, ...this.ctx.access.authority(principal) },
          deadline,
        );
        return { removed: r.removed, heldToken: r.heldToken, released: r.released };
      },
      async (to, deadline) => {
        const r = await this.forwarder.unary(
          to,
          principal,
          LOCK.CancelWait,
          { name, leaseId, abandonedAtIndex, acquireRequestId: acquireRequestId ?? '' },
          deadline,
          answerBy(deadline, this.timing.writeBoundMs, this.ctx.clock.wallMs()),
          () => {},
        );
        return { removed: r.removed, heldToken: r.fencingToken, released: r.released };
      },
    );
  }

  private async onLeader<T>(until: number, local: (deadline: number) => Promise<T>, remote: (to: Forward, deadline: number) => Promise<T>): Promise<T> {
    let last: ApiError | undefined;
    while (!this.closed && this.ctx.clock.wallMs() < until) {
      try {
        if (this.ctx.driver.isLeader()) return await local(until);
        const to = this.router.forwardTo(this.ctx.driver.leaderId());
        if (to) return await remote(to, until);
        last = this.router.unavailable('no leader known');
      } catch (e) {
        last = asApiError(e);
        if (last.code !== grpc.status.UNAVAILABLE) throw last;
      }
      await new Promise<void>((r) => this.ctx.clock.after(RETRY_MS, r));
    }
    throw last ?? this.router.unavailable(this.closed ? 'node shutting down' : 'out of time');
  }

  close(): void {
    this.closed = true;
  }
}
