// A lock's state as the wire says it: Lock.Inspect's answer, and the state a Lock.Observe RESYNC
// event carries.
import type { InspectResponse } from '../../proto/gen/lockd/v1/InspectResponse.js';
import type { LockView } from '../state-machine/index.js';

export function inspectResponse(v: LockView): InspectResponse {
  return {
    held: v.held,
    fencingToken: v.token,
    holderLeaseId: v.holderLeaseId,
    waitingLeaseIds: [...v.waitingLeaseIds],
    permits: v.permits,
    holders: v.holders.map((h) => ({ leaseId: h.leaseId, fencingToken: h.token, shared: h.shared, lockDelayMs: h.lockDelayMs })),
    waitingShared: [...v.waitingShared],
    lockDelayUntilMs: v.delayUntil,
    lockDelayRemainingMs: v.delayRemainingMs,
  };
}
