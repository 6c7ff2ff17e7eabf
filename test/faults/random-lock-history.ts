// Random histories of a sequential lock whose leases expire at random (a hidden event): each
// operation's interval contains the moment it was applied, so every history is linearizable by
// construction. Unknown outcomes happen or not, at random, and the process then drops its lease.
// With `adversary`, a fifth process 'x' without a lease Inspects, Releases with the holder's token
// (ending the grant) or a wrong one, and sends CancelWait with an index no Acquire has (no effect).
// With `revokeAbandoned`, a process whose call had an unknown outcome revokes that lease on its next
// turn, as the fault suite's clients do (the lease then dies at a point the history shows).
import { Prng } from '../sim/prng.js';
import { op, type Op, type OpKind, type OpStatus } from './history.js';

export interface Gen {
  ops: Op[];
  /** Indexes of definite acquires that returned a token (candidates for corruption). */
  grants: number[];
}

export function generate(seed: number, steps: number, unknownRate: number, adversary = false, revokeAbandoned = false): Gen {
  const rng = new Prng(seed);
  const procs = adversary ? ['a', 'b', 'c', 'd', 'x'] : ['a', 'b', 'c', 'd'];
  const live = new Set<number>();
  let nextId = 1;
  let index = 0; // "log index": tokens are indexes of state-changing steps
  let holder = 0;
  let token = 0;
  const lease = new Map<string, number>(); // process → its lease (0: none)
  const held = new Map<string, number>(); // process → token it believes it holds
  const abandoned = new Map<string, number>(); // process → lease to revoke on its next turn
  // Per process: applied operations (lin point), intervals assigned afterwards.
  const raw: { p: string; f: OpKind; input: unknown; status: OpStatus; output: unknown; at: number }[] = [];
  for (let t = 1; t <= steps; t++) {
    // Hidden event: a lease expires.
    if (rng.chance(0.05) && live.size) {
      const l = rng.pick([...live]);
      live.delete(l);
      if (holder === l) holder = 0;
      index++;
    }
    const p = rng.pick(procs);
    let l = lease.get(p) ?? 0;
    const rec = (f: OpKind, input: unknown, status: OpStatus, output: unknown) => raw.push({ p, f, input, status, output, at: t });
    if (p === 'x') {
      const x = rng.float();
      if (x < 0.4) rec('inspect', { name: 'k' }, 'ok', { held: holder !== 0, token: holder ? token : 0, holder, waiting: [] });
      else if (x < 0.8) {
        const guess = holder && rng.chance(0.6) ? token : Math.max(1, token + rng.pick([-1, 1, 2]));
        const input = { name: 'k', leaseId: 0, token: guess, adversary: true };
        const wasHeld = holder !== 0;
        const hit = wasHeld && guess === token;
        const unknown = rng.chance(unknownRate);
        if (hit && (!unknown || rng.chance(0.5))) {
          holder = 0;
          index++;
        }
        if (unknown) rec('release', input, 'unknown', undefined);
        else if (!wasHeld) rec('release', input, 'fail', { code: 'NOT_FOUND' });
        else rec('release', input, 'ok', { released: hit });
      } else {
        const named = rng.chance(0.5) && holder ? holder : 1 + rng.int(nextId);
        rec('cancelwait', { name: 'k', leaseId: named, abandonedAtIndex: 1e12 }, 'ok', {
          removed: false,
          token: named === holder && holder ? token : 0,
          released: false,
        });
      }
      continue;
    }
    const gone = abandoned.get(p);
    if (gone !== undefined) {
      abandoned.delete(p);
      if (live.delete(gone) && holder === gone) holder = 0;
      index++;
      rec('revoke', { leaseId: gone }, 'ok', {});
      continue;
    }
    if (!l) {
      l = nextId++;
      live.add(l);
      lease.set(p, l);
      index++;
      rec('grant', { ttlMs: 1000 }, 'ok', { leaseId: l });
      continue;
    }
    const mine = held.get(p);
    const unknown = rng.chance(unknownRate);
    if (mine === undefined) {
      if (rng.chance(0.2)) {
        rec('keepalive', { leaseId: l, ttlMs: 1000 }, 'ok', { ttlMs: live.has(l) ? 1000 : 0 });
        if (!live.has(l)) lease.set(p, 0);
        continue;
      }
      const input = { name: 'k', leaseId: l, wait: false };
      if (!live.has(l)) {
        rec('acquire', input, 'fail', { code: 'NOT_FOUND' });
        lease.set(p, 0);
        continue;
      }
      // An unknown acquire may or may not have happened; either way the process drops its lease.
      const happens = !unknown || rng.chance(0.5);
      if (holder === 0 && happens) {
        holder = l;
        token = ++index;
        if (unknown) {
          rec('acquire', input, 'unknown', undefined);
          lease.set(p, 0); // abandoned: it holds the lock until the lease expires
          if (revokeAbandoned) abandoned.set(p, l);
        } else {
          held.set(p, token);
          rec('acquire', input, 'ok', { acquired: true, token, holder: l });
        }
      } else if (unknown) {
        rec('acquire', input, 'unknown', undefined);
        lease.set(p, 0);
        if (revokeAbandoned) abandoned.set(p, l);
      } else rec('acquire', input, 'ok', holder === l ? { acquired: true, token, holder: l } : { acquired: false, token: 0, holder });
    } else {
      const input = { name: 'k', leaseId: l, token: mine };
      held.delete(p);
      const happens = !unknown || rng.chance(0.5);
      let output: unknown;
      if (holder === l && token === mine) {
        if (happens) {
          holder = 0;
          index++;
        }
        output = { released: true };
      } else output = holder === 0 ? { code: 'NOT_FOUND' } : { released: false };
      if (unknown) {
        rec('release', input, 'unknown', undefined);
        lease.set(p, 0);
        if (revokeAbandoned) abandoned.set(p, l);
      } else rec('release', input, output && 'code' in (output as object) ? 'fail' : 'ok', output);
    }
  }
  // Intervals: each op's interval contains its step, and a process's intervals do not overlap.
  const ops: Op[] = [];
  const grants: number[] = [];
  const lastEnd = new Map<string, number>();
  const byProc = new Map<string, typeof raw>();
  for (const r of raw) byProc.set(r.p, [...(byProc.get(r.p) ?? []), r]);
  const timed: { r: (typeof raw)[number]; invoke: number; complete: number }[] = [];
  for (const [p, list] of byProc) {
    for (let k = 0; k < list.length; k++) {
      const r = list[k];
      const next = k + 1 < list.length ? list[k + 1].at : r.at + 3;
      const invoke = (lastEnd.get(p) ?? r.at - 3) + rng.float() * (r.at - (lastEnd.get(p) ?? r.at - 3));
      const complete = r.at + rng.float() * (next - r.at) * 0.9;
      lastEnd.set(p, complete);
      timed.push({ r, invoke, complete });
    }
  }
  timed.sort((x, y) => x.invoke - y.invoke);
  for (const { r, invoke, complete } of timed) {
    const o = op(ops.length, r.p, r.f, r.input as never, invoke, complete, r.status, r.output as never);
    if (r.f === 'acquire' && r.status === 'ok' && (r.output as { acquired: boolean }).acquired) grants.push(ops.length);
    ops.push(o);
  }
  return { ops, grants };
}
