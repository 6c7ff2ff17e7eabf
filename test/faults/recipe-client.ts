// One recipe client process (`node --import tsx test/faults/recipe-client.ts`, config in
// FAULTS_CLIENT; the recipes). Like workload-client.ts it holds a lease (kept alive) and loops, each
// round one recipe, every call recorded in its history with request ids on every attempt:
//  - semaphore (RECIPE.semaphore): Acquire with the permits it believes the name has (2 when free;
//    on FAILED_PRECONDITION it Inspects and believes what it sees), hold, Release with its lease id
//    (waiters granted by one entry share a token). The admin client, while it holds the name, also
//    calls SetPermits(1–3) now and then (at most every 1–4 s);
//  - read-write lock (RECIPE.rw): shared (60 %) or exclusive; an exclusive holder downgrades
//    (a shared Acquire) 40 % of the time, holds on, releases;
//  - lock-delay (RECIPE.delay): a mutex with lock_delay_ms = LOCK_DELAY_MS; the holder releases,
//    or (20 %) revokes its lease while holding, or (10 %) "crashes": stops its keepalives and lets
//    the lease expire — both start the delay. The nemesis pauses and kills holders too;
//  - election (RECIPE.election): Campaign (waits), Proclaim 0–2 new values, maybe a Leader read,
//    then Resign (80 %), revoke the lease (10 %) or let it expire (10 %); Leader reads on their own;
//  - stale actors (staleMove, 30 % of rounds once it has one, mostly the grant just ended): with a grant it knows has ended (its
//    own Release or Resign answered, its lease's Revoke answered), a Release (with or without
//    lease_id), a Fence.Write or Fence.Delete with lock = the name (key stale/<client>), a Proclaim or
//    a Resign — each must change nothing (stale-check.ts);
//  - mixed recipes (crossMove, 12 % of rounds): SetPermits or a Lock.Acquire (shared, permits 2 or
//    exclusive) on the election's name; an impatient waiter (also one campaign in five and one
//    semaphore round in seven) that, while its Campaign or Acquire waits, calls SetPermits on that name; a Campaign on the semaphore's or read-write lock's name, a
//    shared Acquire on the semaphore, permits 2 on the read-write lock; granted, it holds briefly
//    and lets go. The holder checkers judge those grants with the others of the name;
//  - crowds (crowdMove, 8 % of rounds): permits + 2 leases of this client wait on the semaphore at
//    once and one entry grants the queued together (SetPermits raising, the holders' leases expiring
//    in one Tick, or a lock-delay's end); one of those grants ends and its holder acts on with its
//    token beside the others (staleAct): tokens must be unique (Token Unique, stale-check.ts);
//  - all along, an Election.Observe stream (on a random node, replaced by a new one when it ends and
//    every 2–6 s), every response recorded as an 'observe' operation when it arrived.
// It prints HOLD/FREE like the workload, so the nemesis pauses and kills it in its critical sections.
// After an unknown Acquire/Campaign/Release/Resign the lease is revoked and replaced, as there.
import { Connections } from '../../src/client/connections.js';
import { loadClientTls } from '../../src/client/tls.js';
import { Prng } from '../sim/prng.js';
import { clockSince, HistoryWriter, type ObserveOutput, type OpInputs, type OpKind, type OpOutputs } from './history.js';
import { failureRecord as failOut, retryCall, unaryCall, type Outcome } from './lockd-calls.js';
import { grantKeptLease, type LeaseKeeper } from './lease-keeper.js';
import { FREE, HOLD, LOCK_DELAY_MS, RECIPE, SEMAPHORE_PERMITS, type ClientConfig } from './workload-config.js';
import type { LeaseRevokeRequest } from '../../src/proto/gen/lockd/v1/LeaseRevokeRequest.js';
import type { LeaseRevokeResponse__Output } from '../../src/proto/gen/lockd/v1/LeaseRevokeResponse.js';
import type { AcquireRequest } from '../../src/proto/gen/lockd/v1/AcquireRequest.js';
import type { AcquireResponse__Output } from '../../src/proto/gen/lockd/v1/AcquireResponse.js';
import type { ReleaseRequest } from '../../src/proto/gen/lockd/v1/ReleaseRequest.js';
import type { ReleaseResponse__Output } from '../../src/proto/gen/lockd/v1/ReleaseResponse.js';
import type { InspectRequest } from '../../src/proto/gen/lockd/v1/InspectRequest.js';
import type { InspectResponse__Output } from '../../src/proto/gen/lockd/v1/InspectResponse.js';
import type { SetPermitsRequest } from '../../src/proto/gen/lockd/v1/SetPermitsRequest.js';
import type { SetPermitsResponse__Output } from '../../src/proto/gen/lockd/v1/SetPermitsResponse.js';
import type { CampaignRequest } from '../../src/proto/gen/lockd/v1/CampaignRequest.js';
import type { CampaignResponse__Output } from '../../src/proto/gen/lockd/v1/CampaignResponse.js';
import type { ProclaimRequest } from '../../src/proto/gen/lockd/v1/ProclaimRequest.js';
import type { ProclaimResponse__Output } from '../../src/proto/gen/lockd/v1/ProclaimResponse.js';
import type { ResignRequest } from '../../src/proto/gen/lockd/v1/ResignRequest.js';
import type { ResignResponse__Output } from '../../src/proto/gen/lockd/v1/ResignResponse.js';
import type { LeaderRequest } from '../../src/proto/gen/lockd/v1/LeaderRequest.js';
import type { FenceWriteRequest } from '../../src/proto/gen/lockd/v1/FenceWriteRequest.js';
import type { FenceWriteResponse__Output } from '../../src/proto/gen/lockd/v1/FenceWriteResponse.js';
import type { FenceDeleteRequest } from '../../src/proto/gen/lockd/v1/FenceDeleteRequest.js';
import type { FenceDeleteResponse__Output } from '../../src/proto/gen/lockd/v1/FenceDeleteResponse.js';
import type { LeaderResponse__Output } from '../../src/proto/gen/lockd/v1/LeaderResponse.js';

const cfg = JSON.parse(process.env.FAULTS_CLIENT ?? 'null') as ClientConfig | null;
if (!cfg) {
  process.stderr.write('recipe-client: FAULTS_CLIENT (JSON config) is not set\n');
  process.exit(2);
}
const now = clockSince(BigInt(cfg.originNs));
const hist = new HistoryWriter(cfg.historyPath, cfg.id, now);
const conns = new Connections(loadClientTls(cfg.tls));
const rng = new Prng(cfg.seed);
const n = cfg.endpoints.length;
let endpoint = rng.int(n);
let stopping = false;
let seq = 0;
process.on('SIGTERM', () => (stopping = true));
process.on('SIGINT', () => (stopping = true));

const ep = (i: number) => conns.get(cfg.endpoints[i % n]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newId = () => `${cfg!.id}-${++seq}`;
const grantContext = { hist, conns, endpoints: cfg.endpoints, ttlMs: cfg.ttlMs, now };
type Unary<Req, Res> = (i: number, req: Req, timeoutMs: number) => Promise<Outcome<Res>>;

/**
 * One call, retried across nodes with one request (and so one request id) until definite, and its
 * history record: ok with `out(value)`, fail (definite, nothing changed), or unknown.
 * waitMs: a waiting call (Acquire, Campaign) gets that long per attempt and is not retried when it
 * runs out (DEADLINE_EXCEEDED: unknown, as workload-client.ts does).
 */
async function recorded<K extends OpKind, Req, Res>(
  f: K,
  input: OpInputs[K],
  call: Unary<Req, Res>,
  req: Req,
  out: (v: Res) => OpOutputs[K],
  waitMs?: number,
): Promise<Outcome<Res> & { uncertain: boolean }> {
  const { id } = hist.invoke(f, input);
  if (rng.chance(0.5)) endpoint = rng.int(n);
  const attemptMs = waitMs ?? cfg!.attemptMs;
  const r = await retryCall((i, t) => call(i, req, t), {
    budgetMs: attemptMs + cfg!.opBudgetMs,
    attemptMs,
    firstEndpoint: endpoint,
    endpoints: n,
    final: (o) => waitMs !== undefined && o.kind === 'unknown' && o.code === 'DEADLINE_EXCEEDED',
  });
  endpoint = r.endpoint;
  const o = r.last;
  if (o.kind === 'ok') hist.complete(id, 'ok', out(o.value));
  else if (o.kind === 'fail' && !r.uncertain) hist.complete(id, 'fail', failOut(o));
  else hist.complete(id, 'unknown');
  return { ...o, uncertain: r.uncertain };
}

async function grantLease(): Promise<LeaseKeeper | undefined> {
  const r = await grantKeptLease(grantContext, newId(), { budgetMs: cfg!.opBudgetMs, attemptMs: cfg!.attemptMs, firstEndpoint: endpoint, endpoints: n });
  endpoint = r.endpoint;
  return r.lease;
}

/** Revoke (recorded); answered (true), the grant held on it (if any) has ended. */
async function revoke(lease: LeaseKeeper): Promise<boolean> {
  lease.stop();
  const o = await recorded(
    'revoke',
    { leaseId: lease.leaseId },
    (i, q: LeaseRevokeRequest, t) => unaryCall<LeaseRevokeRequest, LeaseRevokeResponse__Output>((r, o, cb) => ep(i).lease.Revoke(r, o, cb), q, t),
    { leaseId: lease.leaseId, requestId: newId() },
    () => ({}),
  );
  if (o.kind === 'ok' && holding?.lease === lease.leaseId) endGrant(holding);
  return o.kind === 'ok';
}

/** Stop renewing and let the lease expire while holding (a holder that died without a word). */
async function abandon(lease: LeaseKeeper): Promise<void> {
  lease.stop();
  hist.note('abandon', { leaseId: lease.leaseId });
  await sleep(cfg!.ttlMs + rng.range(300, 800));
}

type Got = { kind: 'acquired'; token: number } | { kind: 'no' } | { kind: 'gone' } | { kind: 'refused'; code: string } | { kind: 'unknown' };

async function racquire(
  name: string,
  lease: LeaseKeeper,
  a: { wait: boolean; permits?: number; shared?: boolean; lockDelayMs?: number; cross?: boolean },
): Promise<Got> {
  const requestId = newId();
  const input = {
    name,
    leaseId: lease.leaseId,
    wait: a.wait,
    permits: a.permits ?? 0,
    shared: a.shared ?? false,
    lockDelayMs: a.lockDelayMs ?? 0,
    requestId,
    ...(a.cross ? { cross: true } : {}),
  };
  const req: AcquireRequest = {
    name,
    leaseId: lease.leaseId,
    wait: a.wait,
    permits: input.permits,
    shared: input.shared,
    lockDelayMs: input.lockDelayMs,
    requestId,
  };
  const o = await recorded(
    'racquire',
    input,
    (i, q: AcquireRequest, t) => unaryCall<AcquireRequest, AcquireResponse__Output>((r, op, cb) => ep(i).lock.Acquire(r, op, cb), q, t),
    req,
    (v) => ({ acquired: v.acquired, token: v.fencingToken, holder: v.holderLeaseId, delayRemainingMs: v.lockDelayRemainingMs }),
    a.wait ? cfg!.acquireWaitMs : undefined,
  );
  return outcome(o, (v) => (v.acquired ? { kind: 'acquired', token: v.fencingToken } : { kind: 'no' }));
}

function outcome<T>(o: Outcome<T> & { uncertain: boolean }, ok: (v: T) => Got): Got {
  if (o.kind === 'ok') return ok(o.value);
  if (o.kind === 'unknown' || o.uncertain) return { kind: 'unknown' };
  return o.code === 'NOT_FOUND' ? { kind: 'gone' } : { kind: 'refused', code: o.code };
}

/**
 * true: released or nothing to release (definite: the grant has ended, and joins `ended`); false:
 * unknown (the lease is then revoked).
 */
async function rrelease(name: string, lease: LeaseKeeper, token: number): Promise<boolean> {
  const requestId = newId();
  const o = await recorded(
    'rrelease',
    { name, leaseId: lease.leaseId, token, requestId },
    (i, q: ReleaseRequest, t) => unaryCall<ReleaseRequest, ReleaseResponse__Output>((r, op, cb) => ep(i).lock.Release(r, op, cb), q, t),
    { name, fencingToken: token, leaseId: lease.leaseId, requestId },
    (v) => ({ released: v.released }),
  );
  const definite =
    (o.kind === 'ok' && (o.value.released || !o.uncertain)) ||
    (o.kind === 'fail' && !o.uncertain && (o.code === 'NOT_FOUND' || o.code === 'FAILED_PRECONDITION'));
  if (definite) endGrant({ name, lease: lease.leaseId, token, election: false });
  return definite;
}

/** A grant this client knows has ended (stale actors act with it), and the grant it holds now. */
interface GrantKey {
  name: string;
  lease: number;
  token: number;
  election: boolean;
}
const ended: GrantKey[] = [];
const MAX_ENDED = 16;
let holding: GrantKey | undefined;

function endGrant(g: GrantKey): void {
  ended.push(g);
  if (ended.length > MAX_ENDED) ended.shift();
}

/**
 * A stale actor: act with a grant known to have ended, as a client paused past its grant would.
 * Each call is recorded with stale = true (lockwrite always is); stale-check.ts requires that none
 * changed anything.
 */
async function staleMove(): Promise<void> {
  // Mostly the grant that has just ended (its co-holders, granted by the same entry, may still hold).
  await staleAct(rng.chance(0.6) ? ended[ended.length - 1] : rng.pick(ended));
}

/** One call with the ended grant g, as its paused holder would make it (see staleMove). */
async function staleAct(g: GrantKey): Promise<void> {
  const requestId = newId();
  const r = rng.float();
  if (g.election) {
    const key = { name: g.name, leaseId: g.lease, fencingToken: g.token };
    if (r < 0.5) {
      const value = newId();
      await recorded(
        'proclaim',
        { name: g.name, leaseId: g.lease, token: g.token, value, stale: true },
        (i, q: ProclaimRequest, t) => unaryCall<ProclaimRequest, ProclaimResponse__Output>((x, op, cb) => ep(i).election.Proclaim(x, op, cb), q, t),
        { leader: key, value },
        () => ({}),
      );
    } else {
      await recorded(
        'resign',
        { name: g.name, leaseId: g.lease, token: g.token, requestId, stale: true },
        (i, q: ResignRequest, t) => unaryCall<ResignRequest, ResignResponse__Output>((x, op, cb) => ep(i).election.Resign(x, op, cb), q, t),
        { leader: key, requestId },
        (v) => ({ resigned: v.resigned }),
      );
    }
    return;
  }
  if (r < 0.5) {
    const noLease = rng.chance(0.5);
    await recorded(
      'rrelease',
      { name: g.name, leaseId: g.lease, token: g.token, requestId, stale: true, ...(noLease ? { noLease } : {}) },
      (i, q: ReleaseRequest, t) => unaryCall<ReleaseRequest, ReleaseResponse__Output>((x, op, cb) => ep(i).lock.Release(x, op, cb), q, t),
      { name: g.name, fencingToken: g.token, leaseId: noLease ? 0 : g.lease, requestId },
      (v) => ({ released: v.released }),
    );
    return;
  }
  const key = `stale/${cfg!.id}`;
  const del = r >= 0.8;
  const input = { name: g.name, leaseId: g.lease, token: g.token, key, del, requestId };
  if (del)
    await recorded(
      'lockwrite',
      input,
      (i, q: FenceDeleteRequest, t) => unaryCall<FenceDeleteRequest, FenceDeleteResponse__Output>((x, op, cb) => ep(i).fence.Delete(x, op, cb), q, t),
      { key, fencingToken: g.token, lock: g.name, requestId },
      () => ({}),
    );
  else
    await recorded(
      'lockwrite',
      input,
      (i, q: FenceWriteRequest, t) => unaryCall<FenceWriteRequest, FenceWriteResponse__Output>((x, op, cb) => ep(i).fence.Write(x, op, cb), q, t),
      { key, value: Buffer.from(requestId), fencingToken: g.token, lock: g.name, requestId },
      () => ({}),
    );
}

/**
 * Mixed recipes: another recipe's call on a name (see the header). A grant it gets is held briefly
 * and let go like any other (so it can turn stale too).
 */
async function crossMove(lease: LeaseKeeper): Promise<LeaseKeeper | undefined> {
  const r = rng.float();
  if (r < 0.1) {
    await setPermits(RECIPE.election, rng.range(2, 3), true);
    return lease;
  }
  // An impatient waiter: while its own Campaign or semaphore Acquire waits, it asks SetPermits to
  // make room. On an election that must be refused; on a semaphore it may grant several waiters in
  // one entry (grants that must still get tokens of their own).
  if (r < 0.2) return campaignFor(RECIPE.election, lease, false, rng.range(2, 3));
  if (r < 0.35) return semaphore(lease, Math.min(3, permitsBelief + 1));
  if (r < 0.55) return campaignFor(rng.chance(0.5) ? RECIPE.semaphore : RECIPE.rw, lease, true);
  const ask =
    r < 0.75
      ? { name: RECIPE.election, a: rng.pick([{ shared: true }, { permits: 2 }, {}]) }
      : r < 0.88
        ? { name: RECIPE.semaphore, a: { shared: true, permits: permitsBelief } }
        : { name: RECIPE.rw, a: { permits: 2 } };
  const g = await racquire(ask.name, lease, { wait: false, ...ask.a, cross: true });
  return afterAcquire(
    lease,
    g,
    async (token) => {
      await hold(ask.name, token, work());
      return (await rrelease(ask.name, lease, token)) ? lease : dropLease(lease);
    },
    ask.name,
  );
}

/** How a crowd's queued waiters come to be granted by one entry (crowdMove). */
const CROWD_TRIGGERS = ['setPermits', 'expire', 'delay'] as const;
const MAX_CROWD = 6;

/**
 * A crowd on the semaphore: this client's lease and permits + 1 more it grants for the purpose all
 * ask at once (waiting), so some hold and at least two queue; then one entry grants the queued
 * together, as real users make happen: SetPermits raising the permits by the number queued (an admin
 * making room; lowered back after), the crowd's holders all stopping their keepalives (their leases
 * expire in one Tick), or holders that asked with a lock-delay revoked (the Tick ending the delay
 * grants the queue). Then one of the grants made together ends (its Release, or its lease's
 * Revoke, answered) and its holder keeps acting with its token while the others hold (staleAct, 1–3
 * calls); the others then release as usual, so a grant a stale call ended shows as Grant Lost.
 */
async function crowdMove(own: LeaseKeeper): Promise<LeaseKeeper | undefined> {
  const name = RECIPE.semaphore;
  const permits = permitsBelief;
  const trigger = permits < 2 ? 'setPermits' : rng.pick(CROWD_TRIGGERS);
  const crowd: LeaseKeeper[] = [own];
  while (crowd.length < Math.min(MAX_CROWD, permits + 2)) {
    const l = await grantLease();
    if (!l) break;
    crowd.push(l);
  }
  const gone = new Set<LeaseKeeper>(); // revoked or left to expire
  const drop = async (l: LeaseKeeper): Promise<boolean> => {
    gone.add(l);
    return revoke(l);
  };
  const delay = trigger === 'delay' ? LOCK_DELAY_MS : 0;
  const answers = new Map<LeaseKeeper, Got>();
  const asks = crowd.map((l) => racquire(name, l, { wait: true, permits, lockDelayMs: delay }).then((g) => void answers.set(l, g)));
  await Promise.race([Promise.all(asks), sleep(rng.range(200, 400))]);
  const first = new Set(answers.keys()); // answered before the trigger: holders (or refused)
  const tokenOf = (l: LeaseKeeper) => {
    const g = answers.get(l);
    return g?.kind === 'acquired' ? g.token : 0;
  };
  const holders = crowd.filter((l) => tokenOf(l) > 0);
  const queued = crowd.length - first.size;
  hist.note('crowd', { name, trigger, leases: crowd.map((l) => l.leaseId), holders: holders.map((l) => l.leaseId), queued });
  if (queued > 0 && trigger === 'setPermits') {
    const raised = Math.min(MAX_CROWD + 2, permits + queued);
    await setPermits(name, raised, false);
    permitsBelief = raised;
  } else if (queued > 0 && trigger === 'expire') {
    for (const l of holders) {
      l.stop();
      hist.note('abandon', { leaseId: l.leaseId });
      gone.add(l);
    }
  } else if (queued > 0) {
    for (const l of holders) if (await drop(l)) endGrant({ name, lease: l.leaseId, token: tokenOf(l), election: false });
  }
  await Promise.all(asks);
  for (const l of crowd) if (answers.get(l)?.kind === 'unknown' && !gone.has(l)) await drop(l);
  const live = crowd.filter((l) => !gone.has(l) && tokenOf(l) > 0);
  const late = live.filter((l) => !first.has(l)); // granted together by the trigger's entry (or soon after)
  process.stdout.write(`${HOLD} ${name} ${live.length}\n`);
  // One of the grants made together ends; its holder acts on with its token while the rest hold.
  const victim = late.length > 0 ? rng.pick(late) : undefined;
  if (victim) {
    const g: GrantKey = { name, lease: victim.leaseId, token: tokenOf(victim), election: false };
    let over = false;
    if (rng.chance(0.5)) over = await rrelease(name, victim, g.token);
    else if ((over = await drop(victim))) endGrant(g);
    if (!over && !gone.has(victim)) await drop(victim);
    if (over) for (let k = rng.range(1, 3); k > 0; k--) await staleAct(g);
  }
  await sleep(work());
  process.stdout.write(`${FREE}\n`);
  for (const l of live) if (l !== victim && !(await rrelease(name, l, tokenOf(l)))) await drop(l);
  if (trigger === 'setPermits' && queued > 0) {
    await setPermits(name, permits, false);
    await learnPermits();
  }
  for (const l of crowd) if (l !== own && !gone.has(l)) await drop(l);
  if (gone.has(own) || own.lost) {
    own.stop();
    return undefined;
  }
  return own;
}

async function hold(name: string, token: number, ms: number): Promise<void> {
  process.stdout.write(`${HOLD} ${name} ${token}\n`);
  await sleep(ms);
  process.stdout.write(`${FREE}\n`);
}

const work = () => rng.range(cfg!.workMs[0], cfg!.workMs[1]);
/** Semaphore and read-write holds last longer, so that holders meet (3 clients share each name). */
const holdMs = () => rng.range(4 * cfg!.workMs[0], 4 * cfg!.workMs[1]);
let nextSetPermits = 0;
let permitsBelief = SEMAPHORE_PERMITS;

/** The semaphore's permits as Inspect shows them (not recorded: only what the client then asks matters). */
async function learnPermits(): Promise<void> {
  const o = await unaryCall<InspectRequest, InspectResponse__Output>(
    (q, op, cb) => ep(rng.int(n)).lock.Inspect(q, op, cb),
    { name: RECIPE.semaphore },
    cfg!.attemptMs,
  );
  if (o.kind === 'ok') permitsBelief = o.value.holders.length || o.value.waitingLeaseIds.length ? o.value.permits : SEMAPHORE_PERMITS;
}

/** Each recipe returns the lease to go on with (undefined: it was revoked or abandoned). */
/** impatientPermits: wait, and SetPermits(that) while waiting (crossMove). */
async function semaphore(lease: LeaseKeeper, impatientPermits?: number): Promise<LeaseKeeper | undefined> {
  const ask = racquire(RECIPE.semaphore, lease, { wait: impatientPermits !== undefined || rng.chance(cfg!.waitShare), permits: permitsBelief });
  const g = impatientPermits === undefined ? await ask : await impatient(ask, RECIPE.semaphore, impatientPermits, false);
  if (g.kind === 'refused' && g.code === 'FAILED_PRECONDITION') await learnPermits();
  return afterAcquire(
    lease,
    g,
    async (token) => {
      // The admin changes the permits while it holds the name (a free name has none to change: NOT_FOUND).
      if (cfg!.admin && now() >= nextSetPermits) {
        await setPermits(RECIPE.semaphore, rng.range(1, 3), false);
        nextSetPermits = now() + rng.range(1000, 4000);
      }
      await hold(RECIPE.semaphore, token, holdMs());
      return (await rrelease(RECIPE.semaphore, lease, token)) ? lease : dropLease(lease);
    },
    RECIPE.semaphore,
  );
}

async function readWrite(lease: LeaseKeeper): Promise<LeaseKeeper | undefined> {
  const shared = rng.chance(0.6);
  const g = await racquire(RECIPE.rw, lease, { wait: rng.chance(cfg!.waitShare), shared });
  return afterAcquire(
    lease,
    g,
    async (token) => {
      await hold(RECIPE.rw, token, holdMs());
      if (!shared && rng.chance(0.4)) {
        const d = await racquire(RECIPE.rw, lease, { wait: false, shared: true });
        if (d.kind === 'unknown') return dropLease(lease);
        if (d.kind === 'gone') {
          lease.stop();
          return undefined;
        }
        await hold(RECIPE.rw, token, holdMs());
      }
      return (await rrelease(RECIPE.rw, lease, token)) ? lease : dropLease(lease);
    },
    RECIPE.rw,
  );
}

async function delayed(lease: LeaseKeeper): Promise<LeaseKeeper | undefined> {
  const g = await racquire(RECIPE.delay, lease, { wait: rng.chance(cfg!.waitShare), lockDelayMs: LOCK_DELAY_MS });
  return afterAcquire(
    lease,
    g,
    async (token) => {
      await hold(RECIPE.delay, token, work());
      return endHold(lease, async () => ((await rrelease(RECIPE.delay, lease, token)) ? lease : dropLease(lease)));
    },
    RECIPE.delay,
  );
}

/** A holder's way out: the normal one, or (20 %) revoke its lease, or (10 %) let it expire. */
async function endHold(lease: LeaseKeeper, normal: () => Promise<LeaseKeeper | undefined>): Promise<LeaseKeeper | undefined> {
  const r = rng.float();
  if (r < 0.2) return dropLease(lease);
  if (r < 0.3) {
    await abandon(lease);
    return undefined;
  }
  return normal();
}

async function election(lease: LeaseKeeper): Promise<LeaseKeeper | undefined> {
  // One campaign in five is impatient: waiting, it asks SetPermits to make room (must be refused).
  return campaignFor(RECIPE.election, lease, false, rng.chance(0.2) ? rng.range(2, 3) : undefined);
}

/** Campaign for name (cross: a mixed-recipe move on another recipe's name), lead a while, let go. */
async function campaignFor(name: string, lease: LeaseKeeper, cross: boolean, impatientPermits?: number): Promise<LeaseKeeper | undefined> {
  const value = newId();
  const requestId = newId();
  const ask = recorded(
    'campaign',
    { name, leaseId: lease.leaseId, value, requestId, ...(cross ? { cross } : {}) },
    (i, q: CampaignRequest, t) => unaryCall<CampaignRequest, CampaignResponse__Output>((r, op, cb) => ep(i).election.Campaign(r, op, cb), q, t),
    { name, leaseId: lease.leaseId, value, requestId },
    (v) => ({ token: v.leader?.fencingToken ?? 0 }),
    cfg!.acquireWaitMs,
  );
  const o = impatientPermits === undefined ? await ask : await impatient(ask, name, impatientPermits, true);
  const g = outcome(o, (v) => ({ kind: 'acquired', token: v.leader?.fencingToken ?? 0 }));
  return afterAcquire(
    lease,
    g,
    async (token) => {
      const key = { name, leaseId: lease.leaseId, fencingToken: token };
      process.stdout.write(`${HOLD} ${name} ${token}\n`);
      for (let k = rng.range(0, 2); k > 0; k--) {
        await sleep(work());
        const v = newId();
        await recorded(
          'proclaim',
          { name, leaseId: lease.leaseId, token, value: v },
          (i, q: ProclaimRequest, t) => unaryCall<ProclaimRequest, ProclaimResponse__Output>((r, op, cb) => ep(i).election.Proclaim(r, op, cb), q, t),
          { leader: key, value: v },
          () => ({}),
        );
      }
      if (!cross && rng.chance(0.3)) await leaderRead();
      await sleep(work());
      process.stdout.write(`${FREE}\n`);
      return endHold(lease, async () => {
        const rid = newId();
        const r = await recorded(
          'resign',
          { name, leaseId: lease.leaseId, token, requestId: rid },
          (i, q: ResignRequest, t) => unaryCall<ResignRequest, ResignResponse__Output>((x, op, cb) => ep(i).election.Resign(x, op, cb), q, t),
          { leader: key, requestId: rid },
          (v) => ({ resigned: v.resigned }),
        );
        const definite = r.kind === 'ok' || (r.kind === 'fail' && !r.uncertain);
        if (definite) endGrant({ name, lease: lease.leaseId, token, election: true });
        return definite ? lease : dropLease(lease);
      });
    },
    name,
    true,
  );
}

async function leaderRead(): Promise<void> {
  const name = RECIPE.election;
  await recorded(
    'leader',
    { name },
    (i, q: LeaderRequest, t) => unaryCall<LeaderRequest, LeaderResponse__Output>((r, op, cb) => ep(i).election.Leader(r, op, cb), q, t),
    { name },
    (v) => ({ leaseId: v.leader?.leaseId ?? 0, token: v.leader?.fencingToken ?? 0, value: v.value }),
  );
}

async function setPermits(name: string, permits: number, cross: boolean): Promise<void> {
  const requestId = newId();
  await recorded(
    'setpermits',
    { name, permits, requestId, ...(cross ? { cross } : {}) },
    (i, q: SetPermitsRequest, t) => unaryCall<SetPermitsRequest, SetPermitsResponse__Output>((r, op, cb) => ep(i).lock.SetPermits(r, op, cb), q, t),
    { name, permits, requestId },
    (v) => ({ previous: v.previous, granted: v.granted }),
  );
}

/** A waiting call that, still waiting after 50–300 ms, asks SetPermits(name, permits) meanwhile. */
async function impatient<T>(call: Promise<T>, name: string, permits: number, cross: boolean): Promise<T> {
  let settled = false;
  const done = call.finally(() => (settled = true));
  await Promise.race([done, sleep(rng.range(50, 300))]);
  if (!settled) await setPermits(name, permits, cross);
  return done;
}

/** What follows an Acquire or Campaign: hold on success; a lost lease is replaced; an unknown outcome revokes it. */
async function afterAcquire(
  lease: LeaseKeeper,
  g: Got,
  held: (token: number) => Promise<LeaseKeeper | undefined>,
  name: string,
  election = false,
): Promise<LeaseKeeper | undefined> {
  switch (g.kind) {
    case 'acquired':
      holding = { name, lease: lease.leaseId, token: g.token, election };
      try {
        return await held(g.token);
      } finally {
        holding = undefined;
      }
    case 'unknown':
      return dropLease(lease);
    case 'gone':
      lease.stop();
      return undefined;
    default:
      await sleep(rng.range(10, 60));
      return lease;
  }
}

async function dropLease(lease: LeaseKeeper): Promise<undefined> {
  await revoke(lease);
  return undefined;
}

/** One Election.Observe stream after another, each response recorded when it arrives. */
function observeForever(): void {
  let streams = 0;
  const open = () => {
    if (stopping) return;
    const stream = `${cfg!.id}-o${++streams}`;
    const s = ep(rng.int(n)).election.Observe({ name: RECIPE.election });
    let done = false;
    const again = () => {
      if (done) return;
      done = true;
      setTimeout(open, rng.range(100, 300));
    };
    s.on('data', (v: LeaderResponse__Output) => {
      const out: ObserveOutput = { hasLeader: v.hasLeader, leaseId: v.leader?.leaseId ?? 0, token: v.leader?.fencingToken ?? 0, value: v.value };
      const { id } = hist.invoke('observe', { name: RECIPE.election, stream });
      hist.complete(id, 'ok', out);
    });
    s.on('error', again);
    s.on('end', again);
    // A stream whose node died behind a proxy can hang without an error: start a fresh one every
    // 2–6 s anyway (each begins with the leader as that node knows it).
    setTimeout(
      () => {
        if (done) return;
        again();
        s.cancel();
      },
      rng.range(2000, 6000),
    );
  };
  open();
}

async function main(): Promise<void> {
  hist.note('start', { mode: cfg!.mode, pid: process.pid });
  observeForever();
  let lease: LeaseKeeper | undefined;
  while (!stopping) {
    if (!lease || lease.lost) {
      lease?.stop();
      lease = await grantLease();
      if (!lease) {
        await sleep(rng.range(50, 200));
        continue;
      }
    }
    if (ended.length > 0 && rng.chance(0.3)) await staleMove();
    const r = rng.float();
    if (rng.chance(0.08)) lease = await crowdMove(lease);
    else if (r < 0.12) lease = await crossMove(lease);
    else if (r < 0.3) lease = await semaphore(lease, rng.chance(0.15) ? Math.min(3, permitsBelief + 1) : undefined);
    else if (r < 0.55) lease = await readWrite(lease);
    else if (r < 0.75) lease = await delayed(lease);
    else if (r < 0.92) lease = await election(lease);
    else await leaderRead();
    await sleep(rng.range(0, 20));
  }
  if (lease && !lease.lost) await revoke(lease);
  lease?.stop();
  hist.note('stop');
  conns.close();
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`recipe-client ${cfg.id}: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(1);
  },
);
