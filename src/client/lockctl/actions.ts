// lockctl's commands other than `run`: each turns parsed arguments into client calls and prints
// the answer. They return the exit status.
import type { LockClient } from '../lock-client.js';
import { LockdError } from '../errors.js';
import type { Lease } from '../lease.js';
import type { AclRule, LockInfo, LockRecipe } from '../result-types.js';
import type { Parsed } from './args.js';
import { parseDuration, parsePositive, usageLine, UsageError } from './args.js';
import { EXIT } from './exit-codes.js';
import { Output, table } from './output.js';

export interface Context {
  readonly client: LockClient;
  readonly p: Parsed;
  readonly out: Output;
  /** Aborts when lockctl is interrupted (SIGINT/SIGTERM): long-running commands stop cleanly. */
  readonly interrupted: AbortSignal;
}

const DEFAULT_TTL_MS = 10_000;

/** Call options: --timeout if given (long waits otherwise have none). */
function callOpts(ctx: Context): { timeoutMs?: number } {
  return ctx.p.timeoutMs === undefined ? {} : { timeoutMs: ctx.p.timeoutMs };
}

export async function status(ctx: Context): Promise<number> {
  const all = await ctx.client.statusAll(callOpts(ctx));
  // A node that does not answer is named from the member lists of those that do.
  const idOf = new Map<string, string>();
  for (const a of all) for (const m of a.status?.members ?? []) idOf.set(m.address, m.id);
  const seen = new Set<string>();
  const rows = all
    .map((a) => ({ ...a, id: a.status?.nodeId ?? idOf.get(a.address) ?? '?' }))
    .sort((a, b) => Number(!a.status) - Number(!b.status))
    .filter((a) => {
      if (seen.has(a.id) && a.id !== '?') return false; // one row per node, whichever address reached it
      seen.add(a.id);
      return true;
    })
    .sort((a, b) => a.id.localeCompare(b.id, undefined, { numeric: true }) || a.address.localeCompare(b.address));
  ctx.out.result(
    table(
      ['ID', 'ADDRESS', 'ROLE', 'TERM', 'LEADER', 'COMMIT', 'APPLIED', 'VERSION', 'CLUSTER'],
      rows.map((r) =>
        r.status
          ? [
              r.id,
              r.address,
              r.status.role,
              String(r.status.term),
              r.status.leaderId || '-',
              String(r.status.commitIndex),
              String(r.status.appliedIndex),
              // A lockd before 0.2.0 states no version; CLUSTER: the lowest among the members ('?' while one was not heard from).
              r.status.version || '<0.2.0',
              r.status.clusterVersion ? r.status.clusterVersion + (r.status.clusterVersionComplete ? '' : '?') : '-',
            ]
          : [r.id, r.address, `unreachable (${r.error instanceof LockdError ? r.error.codeName : 'ERROR'})`],
      ),
    ),
    rows.map((r) => (r.status ? { address: r.address, ...r.status } : { id: r.id, address: r.address, error: r.error?.message ?? 'unknown' })),
  );
  return rows.some((r) => r.status) ? EXIT.OK : EXIT.ERROR;
}

export async function leaderTransfer(ctx: Context): Promise<number> {
  const r = await ctx.client.transferLeader(ctx.p.args.ID ?? '', callOpts(ctx));
  const where = r.leaderAddress ? ` at ${r.leaderAddress}` : '';
  ctx.out.result(
    r.transferred
      ? `leadership moved from ${r.previousLeaderId} to ${r.leaderId}${where} (term ${r.term})`
      : `${r.leaderId}${where} already leads (term ${r.term}); nothing changed`,
    r,
  );
  return EXIT.OK;
}

export async function leaseGrant(ctx: Context): Promise<number> {
  const ttlMs = parseDuration('TTL', ctx.p.args.TTL);
  const lease = await ctx.client.grantLease(ttlMs, callOpts(ctx));
  lease.close(); // this command only creates it; `lease keepalive` keeps it alive
  ctx.out.result(`lease ${lease.id} granted, ttl ${lease.ttlMs} ms (not kept alive: run \`lockctl lease keepalive ${lease.id}\`)`, {
    leaseId: lease.id,
    ttlMs: lease.ttlMs,
  });
  return EXIT.OK;
}

export async function leaseKeepAlive(ctx: Context): Promise<number> {
  const id = parsePositive('ID', ctx.p.args.ID);
  const limit = ctx.p.flags.count ?? Infinity;
  const lease = await ctx.client.attachLease(id, { ...callOpts(ctx), liveness: ctx.interrupted });
  let renewals = 0;
  const renewed = (ttlMs: number): void => {
    renewals++;
    ctx.out.result(`lease ${id} renewed, ttl ${ttlMs} ms`, { leaseId: id, ttlMs });
    if (renewals >= limit) lease.close();
  };
  return new Promise<number>((resolve) => {
    lease.on('renewed', ({ ttlMs }) => renewed(ttlMs));
    lease.on('retrying', (e) => ctx.out.note(`keepalive stream failed (${e.message}); retrying`));
    lease.on('lost', (reason) => {
      if (reason.why === 'closed' || reason.why === 'aborted') return resolve(EXIT.OK);
      ctx.out.error(reason);
      resolve(EXIT.ERROR);
    });
    renewed(lease.ttlMs); // attaching renewed it once already
  });
}

export async function leaseRevoke(ctx: Context): Promise<number> {
  const id = parsePositive('ID', ctx.p.args.ID);
  await ctx.client.revokeLease(id, callOpts(ctx));
  ctx.out.result(`lease ${id} revoked`, { leaseId: id, revoked: true });
  return EXIT.OK;
}

export async function leaseTtl(ctx: Context): Promise<number> {
  const t = await ctx.client.timeToLive(parsePositive('ID', ctx.p.args.ID), callOpts(ctx));
  ctx.out.result(
    `lease ${t.leaseId} (${t.owner}): granted ttl ${t.grantedTtlMs} ms, remaining ${t.remainingMs} ms, locks: ${t.locks.length ? t.locks.join(', ') : '(none)'}`,
    t,
  );
  return EXIT.OK;
}

export async function leaseList(ctx: Context): Promise<number> {
  const leases = await ctx.client.listLeases(callOpts(ctx));
  ctx.out.result(
    leases.length
      ? table(
          ['LEASE', 'TTL_MS', 'REMAINING_MS', 'OWNER'],
          leases.map((l) => [String(l.leaseId), String(l.grantedTtlMs), String(l.remainingMs), l.owner]),
        )
      : '(no live leases)',
    leases,
  );
  return EXIT.OK;
}

/** `lock acquire` and `lock try`: for --lease ID, else for a new lease that is left to expire. */
export async function lockAcquire(ctx: Context, wait: boolean): Promise<number> {
  const name = ctx.p.args.NAME;
  let own: Lease | undefined;
  let leaseId = ctx.p.flags.lease;
  if (leaseId === undefined) {
    own = await ctx.client.grantLease(ctx.p.flags.ttlMs ?? DEFAULT_TTL_MS, callOpts(ctx));
    leaseId = own.id;
  }
  try {
    // Our own lease is kept alive while we wait, so a long wait does not outlive it.
    const r = await ctx.client.acquireRaw(name, leaseId, { ...callOpts(ctx), ...recipeOf(ctx), wait, signal: ctx.interrupted });
    if (!r.acquired) {
      if (own) await own.revoke().catch(() => {});
      const delay = r.lockDelayRemainingMs > 0 ? ` (under a lock-delay for another ${r.lockDelayRemainingMs} ms)` : '';
      const holder = (r.holderLeaseId ? `held by lease ${r.holderLeaseId}` : r.lockDelayRemainingMs > 0 ? 'not held' : 'free now') + delay;
      const why = r.grantEnded ? `was granted to this request (token ${r.endedFencingToken}) and that grant has ended; it is ${holder}` : `is ${holder}`;
      const extra = {
        ...(r.grantEnded ? { grantEnded: true, endedFencingToken: r.endedFencingToken } : {}),
        ...(r.lockDelayRemainingMs > 0 ? { lockDelayRemainingMs: r.lockDelayRemainingMs } : {}),
      };
      ctx.out.result(`lock ${name} ${why}`, { name, acquired: false, holderLeaseId: r.holderLeaseId, ...extra });
      return EXIT.NOT_ACQUIRED;
    }
    own?.close(); // stop keeping it alive: the lock lasts as long as the lease (see `lease keepalive`)
    const ttlNote = own ? ` (lease ttl ${own.ttlMs} ms, not kept alive: run \`lockctl lease keepalive ${leaseId}\`)` : '';
    const mode = r.shared ? ' (shared)' : '';
    ctx.out.result(`acquired lock ${name}${mode}: fencing token ${r.fencingToken}, lease ${leaseId}${ttlNote}`, {
      name,
      acquired: true,
      fencingToken: r.fencingToken,
      leaseId,
      shared: r.shared,
    });
    return EXIT.OK;
  } catch (e) {
    if (own) await own.revoke().catch(() => {});
    if (e instanceof LockdError && e.codeName === 'DEADLINE_EXCEEDED' && wait) {
      ctx.out.error(e);
      return EXIT.NOT_ACQUIRED;
    }
    throw e;
  }
}

export async function lockRelease(ctx: Context): Promise<number> {
  const name = ctx.p.args.NAME;
  const token = parsePositive('TOKEN', ctx.p.args.TOKEN);
  const released = await ctx.client.release(name, token, { ...callOpts(ctx), leaseId: ctx.p.flags.lease });
  ctx.out.result(released ? `released lock ${name} (token ${token})` : `lock ${name} was not released: token ${token} is stale`, {
    name,
    fencingToken: token,
    released,
  });
  return released ? EXIT.OK : EXIT.ERROR;
}

export async function lockInspect(ctx: Context): Promise<number> {
  const i = await ctx.client.inspect(ctx.p.args.NAME, callOpts(ctx));
  const queue = i.waitingLeaseIds.length
    ? `; waiting: ${i.waitingLeaseIds.map((id, k) => (i.waitingShared[k] ? `${id} (shared)` : String(id))).join(', ')}`
    : '';
  const permits = i.permits > 1 ? ` (semaphore of ${i.permits})` : '';
  const delay = i.lockDelayUntilMs ? `; lock-delay until ${i.lockDelayUntilMs} ms on the cluster clock (${i.lockDelayRemainingMs} ms from now)` : '';
  const one = (h: LockInfo['holders'][number]) =>
    `lease ${h.leaseId} token ${h.fencingToken}${h.shared ? ' shared' : ''}${h.lockDelayMs ? ` lock-delay ${h.lockDelayMs} ms` : ''}`;
  const mutex = i.holders.length === 1 && !i.holders[0].shared && i.permits <= 1 && !i.holders[0].lockDelayMs;
  const held = mutex ? `held by lease ${i.holderLeaseId}, fencing token ${i.fencingToken}` : `held by ${i.holders.map(one).join('; ')}`;
  ctx.out.result(`lock ${i.name}${permits}: ${i.holders.length ? held : 'free'}${delay}${queue}`, i);
  return EXIT.OK;
}

export async function lockSetPermits(ctx: Context): Promise<number> {
  const name = ctx.p.args.NAME;
  const permits = parsePositive('N', ctx.p.args.N);
  const r = await ctx.client.setPermits(name, permits, callOpts(ctx));
  ctx.out.result(`lock ${name}: permits ${r.previous} -> ${permits}${r.granted ? `; granted ${r.granted} waiting lease${r.granted === 1 ? '' : 's'}` : ''}`, {
    name,
    permits,
    ...r,
  });
  return EXIT.OK;
}

/**
 * `elect NAME VALUE`: campaign with a lease of our own (kept alive), print the leadership once won,
 * lead until interrupted (then resign) or until the lease is lost (exit 76). `elect --observe NAME`:
 * print the leadership, then every change, until interrupted (or --count changes).
 */
export async function elect(ctx: Context): Promise<number> {
  const name = ctx.p.args.NAME;
  if (ctx.p.flags.observe) {
    let n = 0;
    const onOpen = (): void => ctx.out.note(`observing the election ${name}`, { observing: name });
    for await (const l of ctx.client.observeLeader(name, { signal: ctx.interrupted, onOpen })) {
      ctx.out.result(
        l.leader ? `${name}: led by lease ${l.leader.leaseId} (token ${l.leader.fencingToken}) as ${JSON.stringify(l.value)}` : `${name}: no leader`,
        { name, leader: l.leader ?? null, value: l.value },
      );
      if (ctx.p.flags.count !== undefined && ++n >= ctx.p.flags.count) break;
    }
    return EXIT.OK;
  }
  const lease = await ctx.client.grantLease(ctx.p.flags.ttlMs ?? DEFAULT_TTL_MS, callOpts(ctx));
  try {
    const key = await ctx.client.campaign(name, lease.id, ctx.p.args.VALUE, { ...callOpts(ctx), signal: AbortSignal.any([ctx.interrupted, lease.signal]) });
    ctx.out.result(`leading ${name} as ${JSON.stringify(ctx.p.args.VALUE)}: fencing token ${key.fencingToken}, lease ${lease.id}`, {
      ...key,
      value: ctx.p.args.VALUE,
    });
    await new Promise<void>((resolve) => {
      if (ctx.interrupted.aborted || lease.signal.aborted) return resolve();
      ctx.interrupted.addEventListener('abort', () => resolve(), { once: true });
      lease.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    if (lease.lost && !ctx.interrupted.aborted) {
      ctx.out.error(new Error(`lost the leadership of ${name}: the lease ended`));
      return EXIT.LOCK_LOST;
    }
    await ctx.client.resign(key).catch(() => false);
    ctx.out.note(`resigned ${name}`, { resigned: name });
    return EXIT.OK;
  } catch (e) {
    if (ctx.interrupted.aborted) {
      ctx.out.error(new Error(`interrupted while campaigning for ${name}`));
      return EXIT.NOT_ACQUIRED;
    }
    throw e;
  } finally {
    await lease.revoke().catch(() => {});
  }
}

/** The recipe flags as AcquireOptions. */
export function recipeOf(ctx: Context): LockRecipe {
  const f = ctx.p.flags;
  return {
    ...(f.permits === undefined ? {} : { permits: f.permits }),
    ...(f.shared ? { shared: true } : {}),
    ...(f.lockDelayMs === undefined ? {} : { lockDelayMs: f.lockDelayMs }),
  };
}

export async function lockObserve(ctx: Context): Promise<number> {
  let n = 0;
  const name = ctx.p.args.NAME;
  const onOpen = (n: number): void => ctx.out.note(n === 0 ? `observing ${name}` : `observing ${name} again`, { observing: name });
  for await (const ev of ctx.client.observe(name, { signal: ctx.interrupted, onOpen })) {
    ctx.out.result(
      ev.type !== 'RESYNC'
        ? `${ev.index}  ${ev.type}  ${ev.name}  token ${ev.fencingToken}  lease ${ev.leaseId}`
        : ev.state
          ? `${ev.index}  RESYNC  ${ev.name}  (the node caught up by snapshot; now: ${ev.state.holders.map((h) => `lease ${h.leaseId} token ${h.fencingToken}`).join(', ') || 'free'}${ev.state.waitingLeaseIds.length ? `, waiting ${ev.state.waitingLeaseIds.join(' ')}` : ''})`
          : `(stream re-established; events may have been missed)`,
      ev,
    );
    if (ctx.p.flags.count !== undefined && ++n >= ctx.p.flags.count) break;
  }
  return EXIT.OK;
}

export async function fenceWrite(ctx: Context): Promise<number> {
  const { KEY: key, VALUE: value } = ctx.p.args;
  const { token, lock } = ctx.p.flags;
  const highest = await ctx.client.fenceWrite(key, value, token!, { ...callOpts(ctx), lock });
  const bound = lock === undefined ? '' : ` as the grant of lock ${lock}`;
  ctx.out.result(`wrote ${key} with token ${token}${bound} (highest accepted: ${highest})`, {
    key,
    fencingToken: token,
    ...(lock === undefined ? {} : { lock }),
    highestToken: highest,
  });
  return EXIT.OK;
}

export async function fenceDelete(ctx: Context): Promise<number> {
  const key = ctx.p.args.KEY;
  const { token, lock } = ctx.p.flags;
  const r = await ctx.client.fenceDelete(key, token!, { ...callOpts(ctx), lock });
  ctx.out.result(r.deleted ? `deleted ${key} with token ${token}` : `${key} held no value (highest token ${r.highestToken})`, {
    key,
    fencingToken: token,
    ...(lock === undefined ? {} : { lock }),
    ...r,
  });
  return EXIT.OK;
}

export async function fenceRead(ctx: Context): Promise<number> {
  const r = await ctx.client.fenceRead(ctx.p.args.KEY, callOpts(ctx));
  const value = r.value.toString('utf8');
  ctx.out.result(r.fencingToken ? `${r.key} = ${JSON.stringify(value)} (token ${r.fencingToken})` : `${r.key}: never written`, {
    key: r.key,
    value,
    fencingToken: r.fencingToken,
  });
  return EXIT.OK;
}

const VERBS: readonly string[] = ['lock', 'fence', 'read', 'admin'];

/** `acl grant|revoke PRINCIPAL VERB PREFIX`. */
export async function aclChange(ctx: Context, how: 'grant' | 'revoke'): Promise<number> {
  const { PRINCIPAL: principal, VERB: verb, PREFIX: prefix } = ctx.p.args;
  if (!VERBS.includes(verb)) throw new UsageError(`VERB must be one of ${VERBS.join(', ')}, got ${JSON.stringify(verb)}`, usageLine(ctx.p.spec));
  const rule = { principal, verb: verb as AclRule['verb'], prefix };
  const what = `${verb} on ${JSON.stringify(prefix)} for ${principal}`;
  if (how === 'grant') {
    const created = await ctx.client.aclGrant(rule, callOpts(ctx));
    ctx.out.result(created ? `granted ${what}` : `${what} was already granted`, { ...rule, created });
  } else {
    const removed = await ctx.client.aclRevoke(rule, callOpts(ctx));
    ctx.out.result(removed ? `revoked ${what}` : `no rule ${what} to revoke`, { ...rule, removed });
  }
  return EXIT.OK;
}

export async function aclList(ctx: Context): Promise<number> {
  const rules = await ctx.client.aclList('', callOpts(ctx));
  ctx.out.result(
    rules.length
      ? table(
          ['PRINCIPAL', 'VERB', 'PREFIX'],
          rules.map((r) => [r.principal, r.verb, JSON.stringify(r.prefix)]),
        )
      : '(no access rules)',
    rules,
  );
  return EXIT.OK;
}

/** `acl quota PRINCIPAL [QUOTA=N...] [--reset]`: set (admins) or, with nothing to set, show. */
export async function aclQuota(ctx: Context): Promise<number> {
  const principal = ctx.p.args.PRINCIPAL;
  const values: Record<string, number> = {};
  for (const kv of ctx.p.more) {
    const m = /^([a-z_]+)=(\d+)$/.exec(kv);
    if (!m) throw new UsageError(`expected QUOTA=N (leases, locks, dedup_ids, election_bytes, fence_keys), got ${JSON.stringify(kv)}`, usageLine(ctx.p.spec));
    values[m[1]] = Number(m[2]);
  }
  const set = Object.keys(values).length > 0 || ctx.p.flags.reset;
  const quotas = set
    ? await ctx.client.quotaSet(principal, values, { ...callOpts(ctx), reset: ctx.p.flags.reset })
    : await ctx.client.quotaGet(principal, callOpts(ctx));
  const rows = quotas.map((q) => [q.name, String(q.limit), String(q.used), q.isDefault ? 'default' : 'set']);
  ctx.out.result([`quotas of ${principal}${set ? ' (changed)' : ''}:`, ...table(['QUOTA', 'LIMIT', 'USED', ''], rows)], { principal, quotas });
  return EXIT.OK;
}

// ---- member (operators) -----------------------------------------------------------------------

export async function memberList(ctx: Context): Promise<number> {
  const l = await ctx.client.memberList(callOpts(ctx));
  const rows = l.members.map((m) => [m.id + (m.leader ? ' *' : ''), m.role, m.peerAddress || '-', m.clientAddress || '-', String(m.matchIndex), String(m.lag)]);
  const text = [
    ...table(['ID', 'ROLE', 'PEER ADDRESS', 'CLIENT ADDRESS', 'MATCH', 'LAG'], rows),
    `leader ${l.leaderId || '-'}, commit ${l.commitIndex}, configuration of entry ${l.configIndex}; promote needs a lag of at most ${l.promoteMaxLag}` +
      (l.removedIds.length ? `; removed for good: ${l.removedIds.join(', ')}` : ''),
  ];
  ctx.out.result(text, l);
  return EXIT.OK;
}

const changed = (what: string, r: { configIndex: number; voters: string[]; learners: string[] }): string =>
  `${what} (configuration of entry ${r.configIndex}: voters ${r.voters.join(', ') || '-'}; learners ${r.learners.join(', ') || '-'})`;

export async function memberAdd(ctx: Context): Promise<number> {
  const id = ctx.p.args.ID;
  const { peerUrl, clientUrl, learner, expectConfigIndex } = ctx.p.flags;
  const r = await ctx.client.memberAdd(
    { id, peerUrl: peerUrl!, ...(clientUrl ? { clientUrl } : {}), learner },
    { ...callOpts(ctx), ...(expectConfigIndex === undefined ? {} : { expectedConfigIndex: expectConfigIndex }) },
  );
  ctx.out.result(changed(`${id} added as a ${learner ? 'learner' : 'voter'}`, r), r);
  return EXIT.OK;
}

export async function memberChange(ctx: Context, op: 'promote' | 'remove'): Promise<number> {
  const id = ctx.p.args.ID;
  const { expectConfigIndex } = ctx.p.flags;
  const opts = { ...callOpts(ctx), ...(expectConfigIndex === undefined ? {} : { expectedConfigIndex: expectConfigIndex }) };
  const r = op === 'promote' ? await ctx.client.memberPromote(id, opts) : await ctx.client.memberRemove(id, opts);
  ctx.out.result(changed(`${id} ${op === 'promote' ? 'promoted to voter' : 'removed'}`, r), r);
  return EXIT.OK;
}
