// Leadership transfer as the node runs it (thesis §3.10; the core's transferLeader does the
// protocol): pick the target, hand the request to the core, and wait — bounded — until this node
// knows a leader other than itself. Used by Cluster.TransferLeader and by a graceful SIGTERM on
// the leader (main.ts). Why transfer before stopping: docs/operating.md §3, "Graceful shutdown".
import type { NodeId, Role, Status } from '../../raft/types.js';
import { realClock, type Clock } from './clock.js';

/** What the transfer needs of the driver (RaftDriver, or a test double). */
export interface TransferPort {
  status(): Status;
  transferLeader(to: NodeId, done: (accepted: boolean) => void): void;
  onRoleChange(l: (role: Role, leader: NodeId, term: number) => void): void;
}

export type TransferOutcome =
  /** A leader other than `previous` is known (transferred), or the target already led (not transferred). */
  | { readonly kind: 'done'; readonly leader: NodeId; readonly term: number; readonly previous: NodeId; readonly transferred: boolean }
  /** This node does not lead (`leader` as it knows it, '' if none): the caller forwards or refuses. */
  | { readonly kind: 'not-leader'; readonly leader: NodeId }
  /** The target is no voter: unknown (`learner` false) or a learner. */
  | { readonly kind: 'not-voter'; readonly target: NodeId; readonly learner: boolean; readonly voters: readonly NodeId[] }
  /** No other voter to hand to. */
  | { readonly kind: 'no-target' }
  /** Nothing known to have changed by `until`: `stillLeader` says whether this node still leads. */
  | { readonly kind: 'timed-out'; readonly target: NodeId; readonly stillLeader: boolean; readonly waitedMs: number };

/**
 * The server's bound on one transfer: the core abandons a transfer one election timeout after it
 * began (raft.ts tickHeartbeat), and the new leader's first heartbeat must reach us after its
 * election: two election timeouts cover both. At the defaults (50 ms × 20 ticks) that is 2 s.
 */
export function transferBoundMs(config: { readonly tickMs: number; readonly electionTicks: number }): number {
  return 2 * config.tickMs * config.electionTicks;
}

/**
 * The default target: the voter (not the leader) with the highest match index, preferring those
 * heard from within the last election timeout (recentActive), then the lowest id (deterministic).
 * recentActive is cleared at every CheckQuorum round and set again by the next answer, so a live
 * follower may lack it for up to a heartbeat: it is a preference, not a filter.
 */
export function pickTransferTarget(st: Pick<Status, 'id' | 'voters' | 'progress'>): NodeId | undefined {
  const candidates = st.voters.filter((id) => id !== st.id);
  const rank = (id: NodeId) => st.progress.get(id);
  candidates.sort((a, b) => {
    const pa = rank(a);
    const pb = rank(b);
    const active = Number(pb?.recentActive ?? false) - Number(pa?.recentActive ?? false);
    if (active !== 0) return active;
    const match = (pb?.match ?? 0) - (pa?.match ?? 0);
    if (match !== 0) return match;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return candidates[0];
}

export class LeaderTransfer {
  /** Calls in progress, told of every leader this node learns (itself included). */
  private readonly waiters = new Set<(leader: NodeId, term: number) => void>();

  constructor(
    private readonly port: TransferPort,
    private readonly clock: Clock = realClock,
  ) {
    port.onRoleChange((_role, leader, term) => {
      if (!leader) return;
      for (const w of [...this.waiters]) w(leader, term);
    });
  }

  /** Transfer to `target` ('' / undefined: pickTransferTarget), waiting at most `boundMs`. Never rejects. */
  transfer(target: NodeId | undefined, boundMs: number): Promise<TransferOutcome> {
    const st = this.port.status();
    if (st.role !== 'leader') return Promise.resolve({ kind: 'not-leader', leader: st.leader });
    if (target === st.id) return Promise.resolve({ kind: 'done', leader: st.id, term: st.term, previous: st.id, transferred: false });
    if (target && !st.voters.includes(target)) return Promise.resolve({ kind: 'not-voter', target, learner: st.learners.includes(target), voters: st.voters });
    const to = target || pickTransferTarget(st);
    if (!to) return Promise.resolve({ kind: 'no-target' });
    const started = this.clock.monoMs();
    return new Promise<TransferOutcome>((resolve) => {
      const finish = (o: TransferOutcome) => {
        timer.clear();
        this.waiters.delete(onLeader);
        resolve(o);
      };
      const ask = () =>
        this.port.transferLeader(to, (accepted) => {
          if (accepted) return;
          // Refused by the core: this node stopped leading before the core's turn, or `to` stopped being a voter.
          const now = this.port.status();
          finish(
            now.role === 'leader'
              ? { kind: 'not-voter', target: to, learner: now.learners.includes(to), voters: now.voters }
              : { kind: 'not-leader', leader: now.leader },
          );
        });
      let askedIn = st.term;
      const onLeader = (leader: NodeId, term: number) => {
        if (leader !== st.id) return finish({ kind: 'done', leader, term, previous: st.id, transferred: true });
        // The target campaigned and lost, and this node won the next term (seen in a CI run: the
        // target's own peer connections were still coming up, so its vote requests were lost).
        // Ask again, once per term won, while the bound lasts.
        if (term > askedIn) {
          askedIn = term;
          ask();
        }
      };
      const timer = this.clock.after(boundMs, () => {
        const now = this.port.status();
        finish({ kind: 'timed-out', target: to, stillLeader: now.role === 'leader', waitedMs: Math.round(this.clock.monoMs() - started) });
      });
      this.waiters.add(onLeader);
      ask();
    });
  }
}
