// What the committed log decided, in log order: every entry applied by any node is recorded (the
// first node to apply an index supplies it; replicas that disagree are the Raft checkers' concern,
// test/sim/checkers.ts, and are reported here too), and replayed on a state machine of the
// oracle's own. From it come the facts the client checkers judge answers by: every grant (lock,
// lease, token, from which entry to which, and how it ended), which request id landed at which
// index, every accepted fenced write in log order, and when (world time) each entry was first applied.
import { decodeCommand, LockStateMachine, type ApplyOutput, type Command } from '../../../src/lockd/state-machine/index.js';
import type { Entry } from '../../../src/raft/types.js';

export interface Grant {
  readonly name: string;
  readonly leaseId: number;
  readonly token: number;
  readonly index: number;
  /** World time the granting entry was first applied. */
  readonly at: number;
  endIndex?: number;
  endAt?: number;
  endedBy?: 'RELEASED' | 'EXPIRED';
}

export interface FencedWrite {
  readonly key: string;
  readonly token: number;
  readonly lock: string;
  readonly index: number;
  readonly requestId: string;
}

export interface Violation {
  readonly kind: string;
  readonly at: number;
  readonly message: string;
}

export class Oracle {
  private readonly entries = new Map<number, { entry: Entry; at: number }>();
  private readonly sm = new LockStateMachine();
  applied = 0;
  readonly grants: Grant[] = [];
  /** Live grants by lock and token (a token is one grant's per lock: two locks granted in one entry share it). */
  private readonly live = new Map<string, Grant>();
  /** Every grant by lock and token. */
  private readonly byToken = new Map<string, Grant>();
  /** Index each request id's command landed at first (and its command). */
  readonly requests = new Map<string, { index: number; cmd: Command; out: ApplyOutput }>();
  readonly writes: FencedWrite[] = [];
  /** key → highest accepted token, in log order. */
  private readonly highest = new Map<string, number>();
  readonly violations: Violation[] = [];
  /** World time each index was first applied. */
  readonly appliedAt = new Map<number, number>();
  /** Every lock event, per lock name, in log order (what Observe must deliver). */
  readonly eventsByName = new Map<string, Array<{ type: string; index: number; leaseId: number; token: number }>>();
  /** World time each lease ended (expired or revoked). */
  readonly leaseEndAt = new Map<number, number>();

  constructor(private readonly now: () => number) {}

  private violate(kind: string, message: string): void {
    this.violations.push({ kind, at: this.now(), message });
  }

  /** A node applied `e`. */
  record(node: string, e: Entry): void {
    const prev = this.entries.get(e.index);
    if (prev) {
      if (prev.entry.term !== e.term || (prev.entry.type ?? 'normal') !== (e.type ?? 'normal') || !sameBytes(prev.entry.data, e.data))
        this.violate('log-divergence', `${node} applied a different entry at ${e.index} (term ${e.term} vs ${prev.entry.term})`);
      return;
    }
    if (e.index <= this.applied) return;
    this.entries.set(e.index, { entry: e, at: this.now() });
    while (this.entries.has(this.applied + 1)) this.replay(this.applied + 1);
  }

  private replay(i: number): void {
    const rec = this.entries.get(i)!;
    this.applied = i;
    this.appliedAt.set(i, rec.at);
    const e = rec.entry;
    const out = this.sm.apply(e);
    if ((e.type ?? 'normal') !== 'normal' || e.data.length === 0) return;
    const cmd: Command = decodeCommand(e.data);
    const rid = 'requestId' in cmd ? cmd.requestId : undefined;
    const duplicate = rid ? this.requests.has(rid) : false;
    if (rid && !duplicate) this.requests.set(rid, { index: i, cmd, out });
    for (const ev of out.events) {
      if (ev.name) {
        let list = this.eventsByName.get(ev.name);
        if (!list) this.eventsByName.set(ev.name, (list = []));
        list.push({ type: ev.type, index: i, leaseId: ev.leaseId, token: ev.token });
      }
      if (ev.type === 'LEASE_EXPIRED' || ev.type === 'LEASE_REVOKED') this.leaseEndAt.set(ev.leaseId, rec.at);
      const key = `${ev.name}\u0000${ev.token}`;
      if (ev.type === 'ACQUIRED') {
        const had = this.byToken.get(key);
        if (had)
          this.violate(
            'shared-token',
            `entry ${i} granted ${ev.name} to lease ${ev.leaseId} with token ${ev.token}, the token of lease ${had.leaseId}'s grant at ${had.index}`,
          );
        const g: Grant = { name: ev.name, leaseId: ev.leaseId, token: ev.token, index: i, at: rec.at };
        this.grants.push(g);
        this.live.set(key, g);
        this.byToken.set(key, g);
      } else if (ev.type === 'RELEASED' || ev.type === 'EXPIRED') {
        const g = this.live.get(key);
        if (!g || g.leaseId !== ev.leaseId)
          this.violate('phantom-release', `entry ${i}: ${ev.type} of ${ev.name} token ${ev.token} lease ${ev.leaseId}, not a live grant`);
        if (g) {
          g.endIndex = i;
          g.endAt = rec.at;
          g.endedBy = ev.type;
          this.live.delete(key);
        }
      }
    }
    const r = out.result;
    if (cmd.type === 'FenceWrite' && r?.type === 'FenceWrite' && r.ok && !duplicate) {
      const h = this.highest.get(cmd.key) ?? 0;
      if (cmd.token < h) this.violate('fence-regress', `entry ${i}: a write of ${cmd.key} with token ${cmd.token} accepted below the highest ${h}`);
      this.highest.set(cmd.key, Math.max(h, cmd.token));
      this.writes.push({ key: cmd.key, token: cmd.token, lock: cmd.lock ?? '', index: i, requestId: cmd.requestId ?? '' });
    }
  }

  grantOf(name: string, token: number): Grant | undefined {
    return this.byToken.get(`${name}\u0000${token}`);
  }

  /** The grant `leaseId` held on `name` at (just before) index `i`, if any. */
  heldAt(name: string, leaseId: number, i: number): Grant | undefined {
    return this.grants.find((g) => g.name === name && g.leaseId === leaseId && g.index < i && (g.endIndex === undefined || g.endIndex >= i));
  }

  highestToken(key: string): number {
    return this.highest.get(key) ?? 0;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}
