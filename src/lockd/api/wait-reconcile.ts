// What a waiting Acquire learns from a state restored by a snapshot, which carries no events for
// the entries it covers: the state itself says how the wait stands now.
import type { LockView } from '../state-machine/index.js';
import type { WaitOutcome } from './lock-waits.js';

/** The parts of the restored state a wait is settled from (LockStateMachine). */
export interface RestoredState {
  inspectLock(name: string): Pick<LockView, 'holders' | 'waitingLeaseIds'>;
  hasLease(leaseId: number): boolean;
}

/**
 * How the wait of `leaseId` for `name` stands in `st`: its lease ended (or is past its deadline) →
 * removed; it holds → its grant; still queued → undefined (it waits on, and later entries' events
 * end it); live but neither holding nor queued (its wait was cancelled, or its grant has ended
 * since) → resync: the call asks the log again as a retry with its request id would, and is
 * answered what is true.
 */
export function settleFromState(name: string, leaseId: number, st: RestoredState): WaitOutcome | undefined {
  // A lease past its deadline still shows its grant until its cleanup (the state machine's
  // inspectLock), but it is dead: its wait ends removed, never "acquired" with a token nobody honours.
  if (!st.hasLease(leaseId)) return { kind: 'removed' };
  const v = st.inspectLock(name);
  const held = v.holders.find((h) => h.leaseId === leaseId);
  if (held) return { kind: 'acquired', token: held.token };
  if (v.waitingLeaseIds.includes(leaseId)) return undefined;
  return { kind: 'resync' };
}
