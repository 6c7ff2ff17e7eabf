// A lock's state from the wire (Lock.Inspect's answer, a RESYNC event's state) as a LockInfo.
import type { InspectResponse__Output } from '../proto/gen/lockd/v1/InspectResponse.js';
import type { LockInfo } from './result-types.js';

export function toLockInfo(name: string, r: InspectResponse__Output): LockInfo {
  return {
    name,
    held: r.held,
    fencingToken: r.fencingToken,
    holderLeaseId: r.holderLeaseId,
    waitingLeaseIds: r.waitingLeaseIds,
    permits: r.permits,
    holders: r.holders.map((h) => ({ leaseId: h.leaseId, fencingToken: h.fencingToken, shared: h.shared, lockDelayMs: h.lockDelayMs })),
    waitingShared: r.waitingShared,
    lockDelayUntilMs: r.lockDelayUntilMs,
    lockDelayRemainingMs: r.lockDelayRemainingMs,
  };
}
