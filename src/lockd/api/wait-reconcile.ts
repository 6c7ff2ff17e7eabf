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
 * How the wait of `leaseId` for `name` stands in `st`: it holds → its grant; still queued →
 * undefined (it waits on, and later entries' events end it); its lease ended → removed; live but
 * neither holding nor queued (its wait was cancelled, or its grant has ended since) → resync: the
 * call asks the log again as a retry with its request id would, and is answered what is true.
 */
export function settleFromState(name: string, leaseId: number, st: RestoredState): WaitOutcome | undefined {
  const v = st.inspectLock(name);
  const held = v.holders.find((h) => h.leaseId === leaseId);
  if (held) return { kind: 'acquired', token: held.token };
  if (v.waitingLeaseIds.includes(leaseId)) return undefined;
  if (!st.hasLease(leaseId)) return { kind: 'removed' };
  return { kind: 'resync' };
}
