// A stand-in for the Raft driver, for the lease clock's tests: it applies each proposal to a real state
// machine at once (or loses, refuses or holds it on demand), and answers read barriers at once (or
// holds or fails them on demand).
import { ProposalLostError, NotLeaderError } from '../../../src/lockd/node/proposal-errors.js';
import type { Entry } from '../../../src/raft/types.js';
import { LockStateMachine, decodeCommand, encodeCommand, type ApplyOutput, type TickCommand } from '../../../src/lockd/state-machine/index.js';

export type Mode = 'apply' | 'lose' | 'refuse' | 'hold';

export class FakeDriver {
  readonly ticks: TickCommand[] = [];
  readonly held: (() => void)[] = [];
  /** Read barriers asked for; what they meet ('hold': kept in heldReads, settled by the test). */
  reads = 0;
  readMode: 'resolve' | 'hold' | 'reject' = 'resolve';
  readonly heldReads: { resolve: () => void; reject: (e: Error) => void }[] = [];
  /** What the next proposals meet; then back to 'apply'. */
  next: Mode[] = [];
  mode: Mode = 'apply';
  private term = 0;
  private index = 0;
  private readonly applied: ((e: Entry, out: ApplyOutput) => void)[] = [];
  private readonly roles: ((role: string, leader: string, term: number) => void)[] = [];

  constructor(readonly sm: LockStateMachine) {}

  onApplied(l: (e: Entry, out: ApplyOutput) => void): void {
    this.applied.push(l);
  }
  onRoleChange(l: (role: string, leader: string, term: number) => void): void {
    this.roles.push(l);
  }
  isLeader(): boolean {
    return false; // the tests elect explicitly
  }
  status(): { term: number } {
    return { term: this.term };
  }

  elect(term: number): void {
    this.term = term;
    for (const l of this.roles) l('leader', 'n1', term);
  }

  /** Apply one entry of the current term (data empty = the leader's no-op). */
  apply(data: Uint8Array): ApplyOutput {
    const e = { term: this.term, index: ++this.index, data };
    const out = this.sm.apply(e);
    for (const l of this.applied) l(e, out);
    return out;
  }

  /** Old entries, before any leader of these tests (no listeners care: term 0). */
  grant(n: number, ttlMs: number): number[] {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(this.sm.apply({ index: ++this.index, data: encodeCommand({ type: 'Grant', ttlMs, marginMs: 0 }) }).index);
    return ids;
  }

  readBarrier(): Promise<void> {
    this.reads++;
    return new Promise((resolve, reject) => {
      if (this.readMode === 'hold') this.heldReads.push({ resolve, reject });
      else if (this.readMode === 'reject') setImmediate(() => reject(new NotLeaderError('n2')));
      else setImmediate(resolve);
    });
  }

  propose(data: Uint8Array): Promise<{ index: number; result: ApplyOutput }> {
    const cmd = decodeCommand(data);
    if (cmd.type === 'Tick') this.ticks.push(cmd);
    const mode = this.next.shift() ?? this.mode;
    return new Promise((resolve, reject) => {
      const go = () => {
        if (mode === 'lose') return reject(new ProposalLostError(this.index + 1));
        // 'refuse': the entry that lands is one the state machine refuses (as if validation disagreed).
        const landed = mode === 'refuse' ? encodeCommand({ type: 'Tick', elapsedMs: -1, marginMs: 0, renewed: [] }) : data;
        const out = this.apply(landed);
        resolve({ index: out.index, result: out });
      };
      if (mode === 'hold') this.held.push(go);
      else setImmediate(go);
    });
  }
}
