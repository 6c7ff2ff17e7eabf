// One log, two builds: a Tick means the same on the previous release (compat/previous-release,
// 0.1.0) and on this build, so a rolling upgrade (a mixed cluster) and a replay after an upgrade
// (this build applying a log tail the old build applied before) cannot split the replicas. A hostile
// review found the split: bounded expiry (at most MAX_TICK_EXPIRY_WORK leases ended per Tick) changed
// what a committed Tick does with no gate, so four leases holding 1,024 locks each, ending together,
// ended in one Tick on 0.1.0 and over two here — and an Acquire under a lock-delay was granted on one
// build and refused on the other (two holders after a failover). Now the bound travels in the entry
// (TickCommand.expiryWork, set only once every member runs 0.2.0): without it this build ends every
// due lease, as 0.1.0 does. Loads the previous release's state machine from the clone's history (git
// archive, in-process; no processes beyond git and tar).
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LockStateMachine, MAX_TICK_EXPIRY_WORK, encodeCommand, statesEqual, type Command } from '../../../src/lockd/state-machine/index.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const PREVIOUS = readFileSync(join(ROOT, 'compat', 'previous-release'), 'utf8')
  .split('\n')[0]
  .trim();

interface AnyMachine {
  apply(e: { index: number; data: Uint8Array }): { result?: unknown };
  snapshot(): Uint8Array;
}

describe('state machine: the previous release and this build apply one log alike (Ticks without expiryWork end every due lease)', function () {
  this.timeout(120_000);
  let dir = '';
  let Previous: new () => AnyMachine;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockd-review-prev-'));
    const tar = execFileSync('git', ['archive', PREVIOUS, 'src'], { cwd: ROOT, maxBuffer: 256 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    const m = (await import(pathToFileURL(join(dir, 'src', 'lockd', 'state-machine', 'index.ts')).href)) as { LockStateMachine: new () => AnyMachine };
    Previous = m.LockStateMachine;
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The same committed entries applied to a replica of each build; the results side by side. */
  function both() {
    const ours = new LockStateMachine();
    const theirs = new Previous();
    let index = 0;
    const apply = (cmd: Command) => {
      index++;
      const data = encodeCommand(cmd);
      return {
        ours: ours.apply({ index, data }).result as unknown as Record<string, unknown>,
        theirs: theirs.apply({ index, data }).result as Record<string, unknown>,
      };
    };
    return { ours, theirs, apply };
  }

  it('control (passes): below the budget both builds agree, so the comparison itself is sound', () => {
    const { ours, theirs, apply } = both();
    for (let i = 0; i < 100; i++) apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    const v = apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 }).ours.leaseId as number;
    apply({ type: 'Acquire', name: 'L', leaseId: v, wait: false, lockDelayMs: 500 });
    apply({ type: 'Tick', elapsedMs: 1000, marginMs: 0, renewed: [] });
    expect(statesEqual(ours, LockStateMachine.fromSnapshot(theirs.snapshot()))).to.equal(true);
  });

  it('the same log gives the same state on the previous release and on this build (a mass expiry)', () => {
    const { ours, theirs, apply } = both();
    for (let i = 0; i < MAX_TICK_EXPIRY_WORK; i++) apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    const v = apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 }).ours.leaseId as number;
    apply({ type: 'Acquire', name: 'L', leaseId: v, wait: false, lockDelayMs: 500 });
    apply({ type: 'Tick', elapsedMs: 1000, marginMs: 0, renewed: [] });
    expect(statesEqual(ours, LockStateMachine.fromSnapshot(theirs.snapshot())), 'replica states after one Tick of 4,097 expiries').to.equal(true);
  });

  it('four leases holding 1,024 locks each, ending together, are enough (the budget counts locks)', () => {
    const { ours, theirs, apply } = both();
    const leases = [0, 1, 2, 3].map(() => apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 }).ours.leaseId as number);
    leases.forEach((id, k) => {
      for (let i = 0; i < 1024; i++) apply({ type: 'Acquire', name: `c${k}/${i}`, leaseId: id, wait: false });
    });
    apply({ type: 'Tick', elapsedMs: 1000, marginMs: 0, renewed: [] });
    expect(statesEqual(ours, LockStateMachine.fromSnapshot(theirs.snapshot())), 'replica states after one client’s four leases expired').to.equal(true);
  });

  it('an Acquire is granted on one build and refused on the other (lock-delay counted from different entries)', () => {
    const { apply } = both();
    for (let i = 0; i < MAX_TICK_EXPIRY_WORK; i++) apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 });
    const v = apply({ type: 'Grant', ttlMs: 1000, marginMs: 0 }).ours.leaseId as number;
    const x = apply({ type: 'Grant', ttlMs: 100_000, marginMs: 0 }).ours.leaseId as number;
    apply({ type: 'Acquire', name: 'L', leaseId: v, wait: false, lockDelayMs: 500 });
    apply({ type: 'Tick', elapsedMs: 1000, marginMs: 0, renewed: [] }); // now 1000: V dead (previous: ended, delay to 1500; ours: pending)
    apply({ type: 'Tick', elapsedMs: 200, marginMs: 0, renewed: [] }); //  now 1200: ours ends V now: delay to 1700
    apply({ type: 'Tick', elapsedMs: 300, marginMs: 0, renewed: [] }); //  now 1500: the previous release's delay is over
    const r = apply({ type: 'Acquire', name: 'L', leaseId: x, wait: false });
    const show = (o: Record<string, unknown>) => JSON.stringify({ ok: o.ok, status: o.status, token: o.token, delayRemainingMs: o.delayRemainingMs });
    expect(show(r.ours), `previous release: ${show(r.theirs)}`).to.equal(show(r.theirs));
  });
});
