// Runs one sequence of recipe ops against a real cluster and the recipe model side by side, one op
// at a time: each answer must be the model's, the waiting calls the model says an op ends must end
// with the model's answers, and no other waiting call may end. UNAVAILABLE (a leader change on a
// loaded machine) makes a run inconclusive, as does a run that outlasts a lock-delay it started.
import type { ApiFixture } from './api-fixture.js';
import { SessionClient } from '../../../src/client/session-client.js';
import { MAX_DELAY_MS, RecipeModel, type Answer, type RecipeReq } from './recipe-model.js';
import { isFresh, isRange, matchAnswer } from './answer-match.js';
import { tokenIndex } from '../../../src/lockd/state-machine/token.js';
import { electionStub, nameOf, NAMES, resolve, sessionSender, unarySender, waits, type Op, type Sender } from './recipe-ops.js';
import type { Coverage, RunResult } from './property-search.js';

export type { Coverage, RunResult };

const UNAVAILABLE = 14;
const END_MS = 10_000;
/** A run this long after its first lock-delay started could see the delay end: inconclusive. */
const DELAY_GUARD_MS = MAX_DELAY_MS - 15_000;


class Mismatch extends Error {}
class Inconclusive extends Error {}

interface Call {
  readonly answer: Promise<Answer>;
  settled?: Answer;
}

export async function runRecipes(f: ApiFixture, ops: readonly Op[], prefix: string, seen: Coverage): Promise<RunResult> {
  const m = new RecipeModel();
  const stubs = f.cluster.nodes.map((n) => electionStub(n.address));
  const unary = f.cluster.nodes.map((n, i) => unarySender(f.api(n.id), stubs[i]));
  const session = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address) });
  const onSession = sessionSender(session);
  const to = (via: number): Sender => (via === 3 ? onSession : unary[via % unary.length]);
  const waiting = new Map<number, Call>();
  const tokens: number[] = [];
  const log: string[] = [];
  let delayFrom = 0;
  try {
    for (const op of ops) {
      const req = resolve(op, m, prefix, tokens);
      // A second waiting call on a wait already queued: nothing shows when its entry applies, so the
      // next op could overtake it. Not sent.
      const skip = !req || ((req.t === 'acquire' || req.t === 'campaign') && waits(req) && m.isWaiting(req.lease, req.name));
      log.push(`#${op.id} via ${op.via === 3 ? 'session' : `n${op.via + 1}`} ${op.body.k}: ${skip ? '(skipped)' : JSON.stringify(req)}`);
      if (skip) continue;
      await step(m, to(op.via), req, op.id, waiting, log, tokens);
      if (m.delayStarted && !delayFrom) delayFrom = Date.now();
      if (delayFrom && Date.now() - delayFrom > DELAY_GUARD_MS) throw new Inconclusive(`the run outlasted ${DELAY_GUARD_MS} ms after a lock-delay started`);
    }
    for (let n = 0; n < NAMES; n++) await step(m, to(0), { t: 'inspect', name: nameOf(prefix, n) }, -1, waiting, log, tokens);
    for (const [k, v] of m.tags) seen.set(k, (seen.get(k) ?? 0) + v);
    if (process.env.LOCKD_PROP_LOG) console.log(log.join('\n'));
    return { kind: 'pass' };
  } catch (e) {
    if (e instanceof Inconclusive) return { kind: 'inconclusive', why: e.message };
    if (e instanceof Mismatch) return { kind: 'fail', why: e.message, log };
    throw e;
  } finally {
    for (const id of m.granted) await f.leader.revoke(id).catch(() => {});
    await within(Promise.allSettled([...waiting.values()].map((c) => c.answer)), END_MS);
    session.close();
    for (const s of stubs) s.close();
  }
}

async function step(m: RecipeModel, send: Sender, req: RecipeReq, id: number, waiting: Map<number, Call>, log: string[], tokens: number[]): Promise<void> {
  const floor = m.maxSeen;
  const exp = m.step(req, id);
  const call: Call = { answer: send(req) };
  void call.answer.then((a) => (call.settled = a), () => undefined);
  if (exp.answer === 'pending') {
    waiting.set(id, call);
    // Not answered until granted: wait until its queue entry shows, so the next op comes after it.
    const { name, lease } = req as Extract<RecipeReq, { t: 'acquire' | 'campaign' }>;
    for (const until = Date.now() + END_MS; !call.settled; ) {
      const r = await send({ t: 'inspect', name });
      if (r.ok && (r.body.waitingLeaseIds as number[]).includes(lease)) break;
      if (Date.now() > until) throw new Mismatch(`#${id}: lease ${lease} never showed in the queue of ${name}`);
      await new Promise((res) => setTimeout(res, 5));
    }
  } else check(m, `#${id} ${req.t}`, exp.answer, await call.answer, floor, log, tokens);
  for (const [cid, want] of exp.resolves) {
    const c = waiting.get(cid);
    if (!c) throw new Error(`model: call #${cid} is not waiting`);
    waiting.delete(cid);
    const got = await within(c.answer, END_MS);
    if (!got) throw new Mismatch(`waiting call #${cid} did not end within ${END_MS} ms; the model ended it with ${show(want, m)} after #${id}`);
    check(m, `waiting call #${cid} (ended by #${id})`, want, got, floor, log, tokens);
  }
  m.adopt();
  for (const [cid, c] of waiting)
    if (c.settled) {
      if (!c.settled.ok && c.settled.code === UNAVAILABLE) throw new Inconclusive(`waiting call #${cid}: UNAVAILABLE`);
      throw new Mismatch(`waiting call #${cid} answered ${show(c.settled)}, but the model says it still waits (after #${id})`);
    }
}

function check(m: RecipeModel, what: string, want: Answer, got: Answer, floor: number, log: string[], tokens: number[]): void {
  if (!got.ok && got.code === UNAVAILABLE) throw new Inconclusive(`${what}: UNAVAILABLE`);
  log.push(`   ${what} → ${show(got)}`);
  const bad = want.ok !== got.ok ? 'ok' : !want.ok || !got.ok ? (want.ok || got.ok || want.code === got.code ? undefined : 'code') : matchAnswer(m, want.body, got.body, floor, 'body');
  if (bad !== undefined) throw new Mismatch(`${what}: expected ${show(want, m)}, got ${show(got)} (at ${bad})`);
  if (got.ok) see(m, got.body, tokens);
}


/** Note the ids and tokens an answer shows: fresh values must exceed them, stale-token ops pick from them. */
function see(m: RecipeModel, v: unknown, tokens: number[], key = ''): void {
  if (typeof v === 'number') {
    if (v > 0 && (key === 'leaseId' || key === 'holderLeaseId')) m.saw(v);
    if (v > 0 && key === 'fencingToken') m.saw(tokenIndex(v));
    if (v > 0 && key === 'fencingToken' && !tokens.includes(v)) tokens.push(v);
  } else if (Array.isArray(v)) for (const x of v) see(m, x, tokens, key);
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) see(m, x, tokens, k);
}

function show(a: Answer, m?: RecipeModel): string {
  if (!a.ok) return `error code ${a.code}`;
  return JSON.stringify(a.body, (_k, v: unknown) => (isFresh(v) ? (m?.val(v) ?? '<new>') : isRange(v) ? `<${v.min}..${v.max}>` : v));
}

async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
