// For a test that is about one leader (raw streams on it, what it answers on the wire) and not
// about failover: wait for a leader every node agrees on, run the test, then check that leadership
// (node and term) is still the same. If it is not, the test fails with "leader changed during the
// test" as its own reason, naming both leaderships, whatever else the test saw (its own failure is
// kept in the message): a slow machine that hands leadership around shows as that, not as a
// puzzling wrong status code. Never a retry: the test runs once.
import type { ProcessCluster } from './process-cluster.js';

export interface Leadership {
  readonly id: string;
  readonly term: number;
}

export const LEADER_CHANGED = 'leader changed during the test';

/** The leader every responsive node agrees on, with its term. */
export async function leadership(cluster: ProcessCluster, timeoutMs = 20_000): Promise<Leadership> {
  for (;;) {
    const id = await cluster.waitForLeader(undefined, timeoutMs);
    const st = await cluster.status(id).catch(() => undefined);
    if (st?.role === 'leader') return { id, term: st.term };
  }
}

/**
 * Run `body` with the current stable leader's id; fail with LEADER_CHANGED if another leadership
 * (another node, or a new term of the same one) is seen by any node afterwards.
 */
export async function withStableLeader<T>(cluster: ProcessCluster, body: (leaderId: string) => Promise<T>): Promise<T> {
  const before = await leadership(cluster);
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await body(before.id) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const terms = (await cluster.statuses()).map((s) => s.term);
  const after = await leadership(cluster).catch(() => undefined);
  const changed = after === undefined || after.id !== before.id || after.term !== before.term || terms.some((t) => t !== before.term);
  if (changed) {
    const now = after ? `${after.id} in term ${after.term}` : 'no agreed leader';
    const seen = outcome.ok ? 'the test passed regardless' : `the test's own failure: ${(outcome.error as Error)?.message ?? String(outcome.error)}`;
    throw new Error(`${LEADER_CHANGED}: ${before.id} in term ${before.term}, then ${now} (${seen})`, { cause: outcome.ok ? undefined : outcome.error });
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
