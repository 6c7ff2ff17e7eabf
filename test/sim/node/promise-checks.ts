// The grant promises every harness shares (test/support/grant-promises.ts), applied to the
// whole-node world's client log, from the answers alone (no oracle): one implementation for the
// recipe property test, the fault suite and this simulator.
//  - token-unique: two grants of one name answered to different leases never carry one token
//    (Acquire acquired = true, Campaign's leader key, CancelWait's "it holds token");
//  - stale-act: once a client learned for certain that its grant ended (its lease answered ttl 0
//    or its Revoke answered, or a Release / Resign of that token answered released / resigned),
//    a Release, Resign, Proclaim or lock-bound Fence.Write it sends later with that token is
//    never accepted as acting on a grant.
import type { ClientLog, OpRecord } from './client.js';
import type { Violation } from './oracle.js';
import { staleActBroken, TokenOwners, type GrantAct } from '../../support/grant-promises.js';

/** The grant an op acts on (name, token) and how, or undefined when it acts on none. */
function actOf(op: OpRecord): { act: GrantAct; name: string; token: number } | undefined {
  const leader = op.req.leader as { name?: unknown; fencingToken?: unknown } | undefined;
  if (op.kind === 'Release') return { act: 'release', name: String(op.req.name), token: Number(op.req.fencingToken) };
  if (op.kind === 'Write' && op.req.lock) return { act: 'fenceWrite', name: String(op.req.lock), token: Number(op.req.fencingToken) };
  if (op.kind === 'Proclaim' && leader) return { act: 'proclaim', name: String(leader.name), token: Number(leader.fencingToken) };
  if (op.kind === 'Resign' && leader) return { act: 'resign', name: String(leader.name), token: Number(leader.fencingToken) };
  return undefined;
}

export function checkGrantPromises(log: ClientLog): Violation[] {
  const out: Violation[] = [];
  const done = log.ops.filter((op) => op.result && op.doneAt !== undefined).sort((a, b) => a.doneAt! - b.doneAt!);

  const owners = new TokenOwners();
  for (const op of done) {
    const r = op.result!;
    if (!r.ok || !op.leaseId) continue;
    let name: string | undefined;
    let token = 0;
    if ((op.kind === 'Acquire' && r.res.acquired) || (op.kind === 'CancelWait' && Number(r.res.fencingToken) > 0)) {
      name = String(op.req.name);
      token = Number(r.res.fencingToken);
    } else if (op.kind === 'Campaign') {
      const key = r.res.leader as { fencingToken?: unknown } | undefined;
      name = String(op.req.name);
      token = Number(key?.fencingToken ?? 0);
    }
    const broken = name === undefined ? undefined : owners.add({ name, lease: op.leaseId, token });
    if (broken) out.push({ kind: 'token-unique', at: op.doneAt!, message: `${op.client}: ${broken}` });
  }

  // When each lease, and each grant (name + token), was known for certain to be over.
  const leaseEnd = new Map<number, number>();
  const grantEnd = new Map<string, number>();
  const earliest = (m: Map<number | string, number>, k: number | string, at: number) => m.set(k, Math.min(m.get(k) ?? Infinity, at));
  for (const l of log.losses) earliest(leaseEnd, l.leaseId, l.at);
  for (const op of done) {
    if (op.kind === 'Revoke' && op.result!.ok) earliest(leaseEnd, Number(op.req.leaseId), op.doneAt!);
    const a = actOf(op);
    if (a && (a.act === 'release' || a.act === 'resign') && op.result!.ok && staleActBroken(a.act, op.result!.res, ''))
      earliest(grantEnd, `${a.name}\u0000${a.token}`, op.doneAt!);
  }
  for (const op of done) {
    const a = actOf(op);
    const r = op.result!;
    if (!a || !r.ok || !(a.token > 0)) continue;
    const endedAt = Math.min(op.leaseId ? (leaseEnd.get(op.leaseId) ?? Infinity) : Infinity, grantEnd.get(`${a.name}\u0000${a.token}`) ?? Infinity);
    if (!(endedAt < op.sentAt)) continue;
    const broken = staleActBroken(
      a.act,
      r.res,
      `${op.client}, lease ${op.leaseId}, ${a.name} token ${a.token}, known ended at ${endedAt}, sent at ${op.sentAt}`,
    );
    if (broken) out.push({ kind: 'stale-act', at: op.doneAt!, message: broken });
  }
  return out;
}
