// Lock.Acquire on the leader. wait=false answers at once; wait=true proposes the Acquire and, when
// queued, waits for the applied event that ends the wait (lock-waits.ts): granted → acquired with
// that entry's token; the lease died → NOT_FOUND; the client's deadline → DEADLINE_EXCEEDED (and
// the queue entry is cancelled). A retried wait with the same request_id is answered by the state
// machine's dedup as "queued" at its old place, and simply waits again; a retry whose grant has
// ended is answered acquired = false, grant_ended (the state machine's 'ended'). An abandoned call
// hands lock-waits.ts the index of its last Acquire entry, so the cleanup spares what later calls got.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AcquireResponse } from '../../proto/gen/lockd/v1/AcquireResponse.js';
import type { AcquireCommand, AcquireResult, Authority } from '../state-machine/index.js';
import { ApiError } from './api-error.js';
import type { Abandoned, LockWaits } from './lock-waits.js';
import { UncertainWriteError, type Proposer } from './proposer.js';
import type { AccessControl } from '../security/access-control.js';

/** How often a wait whose queue entry was cancelled by someone else re-queues before giving up. */
const MAX_REQUEUES = 3;

export interface AcquireArgs {
  readonly name: string;
  readonly leaseId: number;
  readonly wait: boolean;
  /** Recipe fields (AcquireRequest.permits, shared, lock_delay_ms); 0/false = the mutex default. */
  readonly permits: number;
  readonly shared: boolean;
  readonly lockDelayMs: number;
  /** Election.Campaign: the value stored with the grant ('' = none). */
  readonly value?: string;
  /** Election.Campaign: the name is an election (AcquireCommand.election). */
  readonly election?: boolean;
  readonly requestId: string | undefined;
  readonly deadline: number;
  /** The caller's principal (the command's authority: security/access-control.ts). */
  readonly principal: string;
  /** Registers a callback for the client going away. */
  readonly onGone: (cb: () => void) => void;
}

export function acquireResponse(r: AcquireResult): AcquireResponse {
  const acquired = r.status === 'acquired';
  const ended = r.status === 'ended';
  return {
    acquired,
    fencingToken: acquired ? r.token : 0,
    holderLeaseId: r.holderLeaseId,
    grantEnded: ended,
    endedFencingToken: ended ? r.endedToken : 0,
    lockDelayRemainingMs: r.delayRemainingMs,
    shared: acquired && r.shared,
  };
}

export class Acquirer {
  constructor(
    private readonly proposer: Proposer,
    private readonly waits: LockWaits,
    private readonly logger: Logger,
    private readonly access: AccessControl,
  ) {}

  async acquire(a: AcquireArgs): Promise<AcquireResponse> {
    const au = this.access.authority(a.principal);
    // A waiting call always has a request id: its cleanup must name it (CancelWait.acquire_request_id),
    // so nobody who merely reads the index can take back what it was granted.
    const requestId = a.requestId ?? (a.wait ? `lockd-wait-${randomUUID()}` : undefined);
    const cmd = acquireCommand(a, au, requestId);
    if (!a.wait) return acquireResponse(await this.proposer.write(cmd, a.deadline));
    const w = this.waits.register(a.name, a.leaseId, a.principal);
    let abandon: Abandoned | undefined;
    /** Index of this call's last applied Acquire entry (each round proposes one). */
    let lastIndex = 0;
    const abandoned = (why: 'deadline' | 'gone'): Abandoned => ({ why, atIndex: lastIndex, requestId });
    try {
      for (let round = 0; ; round++) {
        let r: AcquireResult;
        try {
          ({ index: lastIndex, result: r } = await this.proposer.writeWithIndex(cmd, a.deadline));
        } catch (e) {
          // Whether and where this round's entry lands is unknown. The cleanup must name the call's
          // last Acquire entry exactly (CancelWait.abandoned_at_index): this round's, if it turns out
          // to land here, else the previous round's (0 in round 0: then nothing is known to clean).
          if (e instanceof UncertainWriteError) abandon = { why: 'uncertain', atIndex: lastIndex, landed: e.landed, requestId };
          throw e;
        }
        if (r.status !== 'queued') return acquireResponse(r);
        if (round === 0)
          this.logger.debug(
            { event: 'waiting', name: a.name, leaseId: a.leaseId, position: r.position, duplicate: r.duplicate },
            `lease ${a.leaseId} waits for ${a.name} at position ${r.position}`,
          );
        const o = await w.next(a.deadline, a.onGone);
        switch (o.kind) {
          case 'acquired':
            this.logger.debug(
              { event: 'wait granted', name: a.name, leaseId: a.leaseId, token: o.token },
              `lease ${a.leaseId} granted ${a.name} after waiting`,
            );
            return {
              acquired: true,
              fencingToken: o.token,
              holderLeaseId: a.leaseId,
              grantEnded: false,
              endedFencingToken: 0,
              lockDelayRemainingMs: 0,
              shared: a.shared,
            };
          case 'removed':
            throw new ApiError(grpc.status.NOT_FOUND, `lease ${a.leaseId} ended (expired or revoked) while waiting for ${a.name}`);
          case 'resync':
            // A snapshot skipped how the wait ended (cancelled, or granted and ended since): the same
            // command again is answered what is true (its request id: "grant ended", or a new wait).
            this.logger.info(
              { event: 'wait asked again', name: a.name, leaseId: a.leaseId },
              `lease ${a.leaseId} neither holds nor waits for ${a.name} after a snapshot: asking again`,
            );
            continue;
          case 'cancelled':
            if (round >= MAX_REQUEUES)
              throw new ApiError(grpc.status.ABORTED, `the wait of lease ${a.leaseId} for ${a.name} was cancelled ${round + 1} times by other calls; retry`);
            continue;
          case 'deadline':
            abandon = abandoned('deadline');
            this.logger.info({ event: 'waiter timed out', name: a.name, leaseId: a.leaseId }, `lease ${a.leaseId} gave up waiting for ${a.name} (deadline)`);
            throw new ApiError(grpc.status.DEADLINE_EXCEEDED, `deadline exceeded while waiting for ${a.name}`);
          case 'gone':
            abandon = abandoned('gone');
            this.logger.info(
              { event: 'waiter gone', name: a.name, leaseId: a.leaseId },
              `waiting call for ${a.name} by lease ${a.leaseId} was cancelled by the client`,
            );
            throw new ApiError(grpc.status.CANCELLED, 'cancelled by the client');
          case 'closed':
            throw new ApiError(grpc.status.UNAVAILABLE, 'node shutting down; retry the wait (same request_id) on another node');
        }
      }
    } finally {
      this.waits.unregister(w, abandon);
    }
  }
}

// The Acquire a call proposes. Optional fields only when set (the command's encoding leaves absent
// ones out). Assigned, not spread from literals: this runs for every Acquire.
function acquireCommand(a: AcquireArgs, au: Authority, requestId: string | undefined): AcquireCommand {
  const cmd: { -readonly [K in keyof AcquireCommand]: AcquireCommand[K] } = {
    type: 'Acquire',
    name: a.name,
    leaseId: a.leaseId,
    wait: a.wait,
    requestId,
    principal: au.principal,
  };
  if (a.permits > 1) cmd.permits = a.permits;
  if (a.shared) cmd.shared = true;
  if (a.lockDelayMs > 0) cmd.lockDelayMs = a.lockDelayMs;
  if (a.value) cmd.value = a.value;
  if (a.election) cmd.election = true;
  if (au.admin) cmd.admin = true;
  if (au.acl) cmd.acl = true;
  return cmd;
}
