// Runs one sequence of ops against a real cluster and the reference model side by side, one op at
// a time: each answer must be the model's; the waiting calls the model says an op ends must end
// with the model's answer, and no other waiting call may end. A run that meets UNAVAILABLE (a leader
// change on a loaded machine: the outcome of that write is unknown) is inconclusive, not a failure.
import type { ApiFixture } from './api-fixture.js';
import { ApiModel, BOGUS_LEASE, type Answer, type Req } from './api-model.js';
import { isFresh, matchAnswer } from './answer-match.js';
import { SessionClient } from '../../../src/client/session-client.js';
import { describe, keyOf, ON_SESSION, resolve, send, sendOnSession, type Op } from './api-ops.js';
import type { Coverage, RunResult } from './property-search.js';

export type { Coverage, RunResult };

const UNAVAILABLE = 14;
const END_MS = 10_000;

interface Call {
  readonly answer: Promise<Answer>;
  settled?: Answer;
}

class Mismatch extends Error {}
class Inconclusive extends Error {}

/** What the runs exercised (answers by kind), so a test can insist the interesting paths were taken. */

export async function runSequence(f: ApiFixture, ops: readonly Op[], prefix: string, seen: Coverage = new Map()): Promise<RunResult> {
  const m = new ApiModel();
  const apis = f.cluster.nodes.map((n) => f.api(n.id));
  const session = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address) });
  /** Where op `via` goes: a node's unary API, or the session (for the operations it carries). */
  const to = (via: number, req: Req): Sender =>
    via === 3 && ON_SESSION.has(req.t) ? (r) => sendOnSession(session, r) : (r) => send(apis[via % apis.length], r);
  const sent = new Map<number, Req>();
  const waiting = new Map<number, Call>();
  const log: string[] = [];
  try {
    for (const op of ops) {
      let req = resolve(op, m, prefix, sent);
      // A resent plain CancelWait may now meet a wait a call is waiting on (see resolve): skip it.
      if (req?.t === 'cancelWait' && req.abandonedAt === 0 && m.isWaiting(req.lease, req.name)) req = undefined;
      // A second waiting call on a wait already queued: nothing shows when its entry is applied, so
      // the next op could overtake it. Not sent (retries of a wait after it ended are).
      if (req?.t === 'acquire' && req.wait && m.isWaiting(req.lease, req.name)) req = undefined;
      log.push(describe(op, req));
      if (!req) continue;
      sent.set(op.id, req);
      await step(m, to(op.via, req), req, op.id, waiting, log, seen, op.body.k === 'dup');
    }
    // The end state, read back: every lock and key of the run.
    for (let n = 0; n < 2; n++) await step(m, to(0, { t: 'inspect', name: '' }), { t: 'inspect', name: `${prefix}-l${n}` }, -1, waiting, log, seen, false);
    for (let n = 0; n < 2; n++) await step(m, to(0, { t: 'fenceRead', key: '' }), { t: 'fenceRead', key: keyOf(prefix, n) }, -1, waiting, log, seen, false);
    if (process.env.LOCKD_PROP_LOG) console.log(log.join('\n'));
    return { kind: 'pass' };
  } catch (e) {
    if (e instanceof Inconclusive) return { kind: 'inconclusive', why: e.message };
    if (e instanceof Mismatch) return { kind: 'fail', why: e.message, log };
    throw e;
  } finally {
    await cleanUp(f, m, prefix, waiting);
    session.close();
  }
}

type Sender = (req: Req) => Promise<Answer>;

async function step(
  m: ApiModel,
  sendReq: Sender,
  req: Req,
  id: number,
  waiting: Map<number, Call>,
  log: string[],
  seen: Coverage,
  dup: boolean,
): Promise<void> {
  const floor = m.maxSeen;
  const exp = m.step(req, id);
  const count = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
  count(`${dup ? 'dup ' : ''}${req.t} ${exp.answer === 'pending' ? 'waits' : exp.answer.ok ? 'ok' : `code ${exp.answer.code}`}`);
  if (exp.answer !== 'pending' && exp.answer.ok && exp.answer.body.grantEnded) count('grant ended');
  if (exp.answer !== 'pending' && exp.answer.ok && exp.answer.body.released === true && req.t === 'cancelWait') count('cleanup released');
  if (exp.resolves.size) count('waits ended');
  const call: Call = { answer: sendReq(req) };
  void call.answer.then(
    (a) => (call.settled = a),
    () => undefined,
  );
  if (exp.answer === 'pending') {
    waiting.set(id, call);
    // The call does not answer until it is granted: wait until its queue entry shows, so the next op
    // comes after it.
    const name = (req as Extract<Req, { t: 'acquire' }>).name;
    const lease = (req as Extract<Req, { t: 'acquire' }>).lease;
    for (const until = Date.now() + END_MS; !call.settled;) {
      const r = await sendReq({ t: 'inspect', name });
      if (r.ok && (r.body.waitingLeaseIds as number[]).includes(lease)) break;
      if (Date.now() > until) throw new Mismatch(`#${id}: lease ${lease} never showed in the queue of ${name}`);
      await new Promise((res) => setTimeout(res, 5));
    }
  } else check(m, `#${id} ${req.t}`, exp.answer, await call.answer, floor, log);
  for (const [cid, want] of exp.resolves) {
    const c = waiting.get(cid);
    if (!c) throw new Error(`model: call #${cid} is not waiting`);
    waiting.delete(cid);
    const got = await within(c.answer, END_MS);
    if (!got) throw new Mismatch(`waiting call #${cid} did not end within ${END_MS} ms; the model ended it with ${show(want)} after #${id}`);
    check(m, `waiting call #${cid} (ended by #${id})`, want, got, floor, log);
  }
  m.adopt();
  for (const [cid, c] of waiting)
    if (c.settled) {
      if (!c.settled.ok && c.settled.code === UNAVAILABLE) throw new Inconclusive(`waiting call #${cid}: UNAVAILABLE`);
      throw new Mismatch(`waiting call #${cid} answered ${show(c.settled)}, but the model says it still waits (after #${id})`);
    }
}

function check(m: ApiModel, what: string, want: Answer, got: Answer, floor: number, log: string[]): void {
  if (!got.ok && got.code === UNAVAILABLE) throw new Inconclusive(`${what}: UNAVAILABLE`);
  log.push(`   ${what} → ${show(got)}`);
  const bad =
    want.ok !== got.ok
      ? 'ok'
      : !want.ok || !got.ok
        ? want.ok || got.ok || want.code === got.code
          ? undefined
          : 'code'
        : matchAnswer(m, want.body, got.body, floor, 'body');
  if (bad !== undefined) throw new Mismatch(`${what}: expected ${show(want, m)}, got ${show(got)} (at ${bad})`);
  if (got.ok) see(m, got.body);
}

/** Remember the ids and tokens an answer shows (the generator names them; fresh values must exceed them). */
function see(m: ApiModel, body: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'number' || v <= 0 || v >= BOGUS_LEASE) continue;
    if (k === 'fencingToken' || k === 'endedFencingToken' || k === 'highestToken') m.saw('token', v);
    if (k === 'leaseId' || k === 'holderLeaseId') m.saw('lease', v);
  }
}

function show(a: Answer, m?: ApiModel): string {
  if (!a.ok) return `error code ${a.code}`;
  return JSON.stringify(a.body, (_k, v: unknown) => (isFresh(v) ? (m?.val(v) ?? `<new>`) : v));
}

/** Leave nothing behind for the next run: end its leases (and so its waits), delete its keys. */
async function cleanUp(f: ApiFixture, m: ApiModel, prefix: string, waiting: Map<number, Call>): Promise<void> {
  for (const id of m.grantedLeases) await f.leader.revoke(id).catch(() => {});
  await within(Promise.allSettled([...waiting.values()].map((c) => c.answer)), END_MS);
  for (let n = 0; n < 2; n++) {
    const key = keyOf(prefix, n);
    const r = await f.leader.fenceRead(key).catch(() => undefined);
    if (r && r.fencingToken > 0) await f.leader.fenceDelete(key, r.fencingToken).catch(() => {});
  }
}

/** `p`'s value, or undefined after `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
