// Runs one sequence of recipe ops against a real cluster and the recipe model side by side, one op
// at a time: each answer must be the model's, the waiting calls the model says an op ends must end
// with the model's answers, and no other waiting call may end. UNAVAILABLE (a leader change on a
// loaded machine) makes a run inconclusive, as does a run that outlasts a lock-delay it started.
// Besides the model, checkers of the proto's promises read the answers themselves (recipe-checks.ts):
// an ended grant never acts, one leader per election, every change of holders is an Observe event.
import type { ApiFixture } from './api-fixture.js';
import type { Observation } from '../../support/lock-api-client.js';
import { SessionClient } from '../../../src/client/session-client.js';
import { MAX_DELAY_MS, RecipeModel, type Answer, type RecipeReq } from './recipe-model.js';
import { isFresh, isRange, matchAnswer, type Fresh } from './answer-match.js';
import { electionStub, nameOf, NAMES, resolve, sessionSender, unaryOnly, unarySender, waits, type Op, type Sender } from './recipe-ops.js';
import { foldDisagrees, missingEvents, promiseBroken, tokenShared, type Events } from './recipe-checks.js';
import { NodePause } from './recipe-pause.js';
import type { LeaderResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaderResponse.js';
import type { ElectionClient } from '../../../src/proto/gen/lockd/v1/Election.js';
import type { Coverage, RunResult } from './property-search.js';

export type { Coverage, RunResult };

const UNAVAILABLE = 14;
const END_MS = 10_000;
/** A run this long after its first lock-delay started could see the delay end: inconclusive. */
const DELAY_GUARD_MS = MAX_DELAY_MS - 15_000;

class Mismatch extends Error {}
class Inconclusive extends Error {}

/** A waiting call the model ended while the node it went to was paused: checked once that node has caught up. */
interface Deferred {
  readonly cid: number;
  readonly by: number;
  readonly want: Answer;
  readonly floor: (f: Fresh) => number;
  readonly call: Call;
  /**
   * What the proto lets it answer: the node settles it from the snapshot it installs, whose index
   * lies anywhere from the op that ended it to the resume — so the model's settle answer after each
   * op in between (recipe-model.ts settleAnswer), `want` first.
   */
  readonly candidates: Answer[];
}

/** Election.Observe messages received on one stream. */
interface LeaderWatch {
  readonly got: LeaderResponse__Output[];
  error?: unknown;
  cancel(): void;
}

async function watchLeader(e: ElectionClient, name: string): Promise<LeaderWatch> {
  const s = e.Observe({ name });
  const w: LeaderWatch = { got: [], cancel: () => s.cancel() };
  s.on('data', (r: LeaderResponse__Output) => w.got.push(r));
  s.on('error', (err) => (w.error = err));
  // Subscribed once its headers arrive (proto: Lock.Observe's rule; Election.Observe sends them the same way).
  await new Promise<void>((res, rej) => {
    s.once('metadata', () => res());
    s.once('error', rej);
  });
  return w;
}

interface Call {
  readonly answer: Promise<Answer>;
  readonly req: RecipeReq;
  settled?: Answer;
  /** The node index it was sent to (3: the Session). */
  via?: number;
}

/** The waiting calls, and those the model ended while their node was paused (checked after the catch-up). */
interface Waits {
  readonly waiting: Map<number, Call>;
  /** Whether the model ending this call now must wait for the resume. */
  readonly defer: (c: Call) => boolean;
  readonly deferred: Deferred[];
}

export async function runRecipes(f: ApiFixture, ops: readonly Op[], prefix: string, seen: Coverage): Promise<RunResult> {
  const m = new RecipeModel();
  const stubs = f.cluster.nodes.map((n) => electionStub(n.address));
  const unary = f.cluster.nodes.map((n, i) => unarySender(f.api(n.id), stubs[i]));
  const session = new SessionClient({ endpoints: f.cluster.nodes.map((n) => n.address) });
  const onSession = sessionSender(session);
  const pause = new NodePause(
    f,
    prefix,
    ops.some((o) => o.body.k === 'pause' && o.body.leader),
  );
  /** The node index (3: the Session) a request drawn for `via` goes to (4: the node the pause stops): not to a paused node. */
  const target = (via: number, req?: RecipeReq): number =>
    pause.route(via === 4 ? pause.index : via === 3 && !(req && unaryOnly(req)) ? 3 : via % unary.length);
  const to = (via: number, req?: RecipeReq): Sender => {
    const t = target(via, req);
    return t === 3 ? onSession : unary[t];
  };
  const waiting = new Map<number, Call>();
  const tokens: number[] = [];
  const log: string[] = [];
  const t0 = Date.now();
  /** Log lines carry the ms since the run began (what is slow shows in a replay). */
  const say = (line: string) => log.push(`${String(Date.now() - t0).padStart(5)} ${line}`);
  // Every name's Lock.Observe, from the run's start, on a node the run never pauses (the leader,
  // whose stream does not lag, unless the pause stops the leader).
  const steady = f.cluster.nodes[pause.steadyIndex].id;
  const watch = f.api(steady);
  const observers = await Promise.all(Array.from({ length: NAMES }, (_, n) => watch.observe(nameOf(prefix, n))));
  const events: Events = new Map(observers.map((o, n) => [nameOf(prefix, n), o.events]));
  // And on the node a pause op stops: its streams must add up to the holders after it catches up.
  const paused = await Promise.all(Array.from({ length: NAMES }, (_, n) => f.api(pause.id).observe(nameOf(prefix, n))));
  // Election.Observe of every name on both: the last message must be the current leadership.
  const leaderWatches = [
    [`${steady}`, await Promise.all(Array.from({ length: NAMES }, (_, n) => watchLeader(stubs[pause.steadyIndex], nameOf(prefix, n))))],
    [`${pause.id}`, await Promise.all(Array.from({ length: NAMES }, (_, n) => watchLeader(stubs[pause.index], nameOf(prefix, n))))],
  ] as const;
  const deferred: Deferred[] = [];
  /** Whether the model ending this call now must wait for the resume: it waits on the paused node. */
  const defer = (c: Call): boolean => pause.paused && c.via === pause.index;
  const w: Waits = { waiting, defer, deferred };
  let caughtUp = 0;
  /**
   * Each Election.Observe stream's last message is the leadership the model holds (proto: the
   * current leader, then every change, `has_leader` false for none; after a snapshot install the
   * leadership the snapshot holds). A name nobody leads (or a lock) shows none. Waited for, bounded.
   */
  const leadersAgree = async (where: ReadonlyArray<readonly [string, readonly LeaderWatch[]]>, after: string): Promise<void> => {
    for (const [node, ws] of where)
      for (let n = 0; n < NAMES; n++) {
        const name = nameOf(prefix, n);
        const want = m.leadership(name);
        const off = (): string | undefined => {
          const last = ws[n].got.at(-1);
          const shown = last?.hasLeader ? `${last.leader?.leaseId}/${last.leader?.fencingToken}=${JSON.stringify(last.value)}` : 'none';
          const wanted = want ? `${want.lease}/${want.token}=${JSON.stringify(want.value)}` : 'none';
          return shown === wanted
            ? undefined
            : `shows ${shown}, the leadership is ${wanted} (${ws[n].got.length} messages${ws[n].error ? `, ended: ${(ws[n].error as Error).message}` : ''})`;
        };
        let bad = off();
        for (const until = Date.now() + END_MS; bad && Date.now() < until; bad = off()) await new Promise((r) => setTimeout(r, 20));
        if (bad) throw new Mismatch(`promise broken — Election.Observe shows the current leadership: on ${node}${after}, ${name}: ${bad}`);
      }
  };
  // Every stream's events, folded as the proto defines them, add up to the lock's holders: also on a
  // node that caught up by snapshot (a RESYNC, never silence). Waited for, bounded.
  const foldsAgree = async (where: ReadonlyArray<readonly [string, readonly Observation[]]>): Promise<void> => {
    for (let n = 0; n < NAMES; n++) {
      const name = nameOf(prefix, n);
      const { holders } = await f.leader.inspect(name);
      for (const [node, obs] of where) {
        const events = obs[n].events;
        let off = foldDisagrees(events, holders);
        for (const until = Date.now() + END_MS; off && Date.now() < until; off = foldDisagrees(events, holders)) await new Promise((r) => setTimeout(r, 20));
        if (off) throw new Mismatch(`promise broken — a Lock.Observe stream's events add up to the lock: on ${node}, ${name}: ${off}`);
      }
    }
  };
  /** Right after a catch-up by snapshot, before anything else changes: what it skipped shows at once. */
  const caughtUpNow = async (): Promise<void> => {
    caughtUp++;
    say(`${pause.id} resumed and caught up by snapshot`);
    const what = `${pause.id}, which caught up by snapshot`;
    // A waiting call the model ended meanwhile answers that now: its grant or its error, never
    // silence (first: its answer binds the token the streams below must show).
    for (const d of deferred.splice(0)) {
      const got = await within(d.call.answer, END_MS);
      if (!got)
        throw new Mismatch(
          `waiting call #${d.cid} on ${what}, which the model ended with ${show(d.want, m)} after #${d.by} while ${pause.id} was paused, had no answer ${END_MS} ms after the catch-up`,
        );
      const fits = d.candidates.find((c) =>
        c.ok ? got.ok && matchAnswer(m, c.body, got.body, d.floor, 'body') === undefined : !got.ok && got.code === c.code,
      );
      if (!fits)
        throw new Mismatch(
          `waiting call #${d.cid} on the paused ${pause.leader ? 'leader' : 'follower'} (ended by #${d.by}): expected one of ${d.candidates.map((c) => show(c, m)).join(' | ')}, got ${show(got)}`,
        );
      if (!got.ok && got.code === UNAVAILABLE)
        say(`waiting call #${d.cid} on the deposed leader (ended by #${d.by}) → ${show(got)}: its grant ended before the snapshot, asked again`);
      else
        check(
          m,
          `waiting call #${d.cid} on the paused ${pause.leader ? 'leader' : 'follower'} (ended by #${d.by})`,
          fits,
          got,
          d.floor,
          log,
          tokens,
          d.call.req,
        );
      const tag = `waiting call decided while its node was paused (${pause.leader ? 'leader' : 'follower'})`;
      m.tags.set(tag, (m.tags.get(tag) ?? 0) + 1);
    }
    await foldsAgree([[what, paused]]);
    await leadersAgree([[what, leaderWatches[1][1]]], '');
    const [broken, tag] = await pause.keepAliveSettled();
    say(`checked what ${pause.id} serves: ${tag}`);
    m.tags.set(tag, (m.tags.get(tag) ?? 0) + 1);
    if (broken) throw new Mismatch(`promise broken — a KeepAlive stream is told its lease ended: ${broken}`);
  };
  const saw = {
    tokens,
    queuedIndex: (name: string, lease: number) =>
      events
        .get(name)
        ?.filter((e) => e.type === 'QUEUED' && Number(e.leaseId) === lease)
        .at(-1)?.index,
  };
  let delayFrom = 0;
  try {
    for (const op of ops) {
      if (op.body.k === 'pause') {
        // Waiting calls on the node paused are the point: the model's answer for each is checked once
        // the node has caught up. But not the leader while a call waits on it through another node
        // (the Session it serves, or a follower forwarding): the proto lets that call end UNAVAILABLE
        // ("retry with the same request_id"), and the server then cleans up the abandoned wait, a
        // grant the model cannot follow without the retry.
        const busy = pause.leader && [...waiting.values()].some((c) => c.via !== pause.index);
        say(`#${op.id} pause ${pause.id} for ${op.body.ops} ops${pause.paused || busy ? ' (skipped)' : ''}`);
        if (pause.paused || busy) continue;
        const why = await pause.pause(op.body.ops);
        if (why) throw new Inconclusive(why);
        continue;
      }
      const req = resolve(op, m, prefix, saw);
      // A second waiting call on a wait already queued: nothing shows when its entry applies, so the
      // next op could overtake it. Not sent.
      const skip = !req || ((req.t === 'acquire' || req.t === 'campaign') && waits(req) && m.isWaiting(req.lease, req.name));
      say(
        `#${op.id} via ${op.via === 3 ? 'session' : op.via === 4 ? `${pause.id} (to be paused)` : `n${op.via + 1}`} ${op.body.k}: ${skip ? '(skipped)' : JSON.stringify(req)}`,
      );
      if (skip) continue;
      await step(m, to(op.via, req), req, op.id, w, log, tokens, events);
      // A refused request changed nothing: read what it would have changed (each checked against the model).
      if (req.t === 'invalid') for (const r of req.after) await step(m, to(op.via, r), r, op.id, w, log, tokens, events);
      const shared = tokenShared(events);
      if (shared) throw new Mismatch(`after #${op.id}: promise broken — ${shared}`);
      const call = waiting.get(op.id);
      if (call) call.via = target(op.via, req);
      // The state a snapshot taken now would hold: each deferred call's settle answer from it.
      for (const d of deferred) {
        const a = m.settleAnswer(d.call.req, d.want);
        // A grant that ended since is asked again as a retry would be: a deposed leader answers that UNAVAILABLE (retry on the leader).
        const again: Answer[] = pause.leader && a !== d.want && (a.ok || a.code !== 5) ? [a, { ok: false, code: UNAVAILABLE }] : [a];
        for (const x of again) if (!d.candidates.some((c) => JSON.stringify(c) === JSON.stringify(x))) d.candidates.push(x);
      }
      const resumed = pause.paused;
      const why = await pause.tick();
      if (why) throw new Inconclusive(why);
      if (resumed && !pause.paused) await caughtUpNow();
      if (m.delayStarted && !delayFrom) delayFrom = Date.now();
      if (delayFrom && Date.now() - delayFrom > DELAY_GUARD_MS) throw new Inconclusive(`the run outlasted ${DELAY_GUARD_MS} ms after a lock-delay started`);
    }
    if (pause.paused) {
      const why = await pause.resume();
      if (why) throw new Inconclusive(why);
      await caughtUpNow();
    }
    for (let n = 0; n < NAMES; n++) await step(m, to(0), { t: 'inspect', name: nameOf(prefix, n) }, -1, w, log, tokens, events);
    // Every change of holders, mode, permits or leader is an event (the leader's stream may still be
    // delivering the last ones: wait for them, bounded).
    let missing = missingEvents(m, events);
    for (const until = Date.now() + END_MS; missing && Date.now() < until; missing = missingEvents(m, events)) await new Promise((r) => setTimeout(r, 20));
    if (missing) throw new Mismatch(`promise broken — every change of a lock is an Observe event: ${missing}`);
    const shared = tokenShared(events);
    if (shared) throw new Mismatch(`promise broken — ${shared}`);
    await foldsAgree([
      [`${steady}`, observers],
      [`${pause.id}${caughtUp ? ', which caught up by snapshot' : ''}`, paused],
    ]);
    await leadersAgree(leaderWatches, ' at the end of the run');
    const caught = pause.leader ? 'leader caught up by snapshot' : 'follower caught up by snapshot';
    if (caughtUp) m.tags.set(caught, (m.tags.get(caught) ?? 0) + caughtUp);
    for (const [k, v] of m.tags) seen.set(k, (seen.get(k) ?? 0) + v);
    if (process.env.LOCKD_PROP_LOG) console.log(log.join('\n'));
    return { kind: 'pass' };
  } catch (e) {
    if (e instanceof Inconclusive) {
      if (process.env.LOCKD_PROP_LOG) console.log(log.join('\n'));
      return { kind: 'inconclusive', why: e.message };
    }
    if (e instanceof Mismatch) return { kind: 'fail', why: e.message, log };
    throw e;
  } finally {
    await pause.end();
    for (const id of m.granted) await f.leader.revoke(id).catch(() => {});
    await within(Promise.allSettled([...waiting.values()].map((c) => c.answer)), END_MS);
    session.close();
    for (const s of stubs) s.close();
    for (const o of [...observers, ...paused, ...leaderWatches[0][1], ...leaderWatches[1][1]]) o.cancel();
  }
}

async function step(m: RecipeModel, send: Sender, req: RecipeReq, id: number, w: Waits, log: string[], tokens: number[], events: Events): Promise<void> {
  const { waiting, defer, deferred } = w;
  const floor = m.floorOf;
  // Whether the caller acts with a grant that has ended (a stale actor), as of before this request.
  const stale = 'grant' in req && req.grant !== undefined && !m.holds(req.name, req.grant);
  const electionBefore = 'name' in req && m.isElection(req.name);
  const exp = m.step(req, id);
  const call: Call = { answer: send(req), req };
  void call.answer.then(
    (a) => (call.settled = a),
    () => undefined,
  );
  if (exp.answer === 'pending') {
    waiting.set(id, call);
    // Not answered until granted: wait until its queue entry shows, so the next op comes after it.
    const { name, lease } = req as Extract<RecipeReq, { t: 'acquire' | 'campaign' }>;
    // And until its QUEUED event shows (a third party may read its index next).
    for (const until = Date.now() + END_MS; !call.settled;) {
      const r = await send({ t: 'inspect', name });
      const ev = events.get(name)?.some((e) => e.type === 'QUEUED' && Number(e.leaseId) === lease) ?? true;
      if (r.ok && (r.body.waitingLeaseIds as number[]).includes(lease) && ev) break;
      if (Date.now() > until) throw new Mismatch(`#${id}: lease ${lease} never showed in the queue of ${name}`);
      await new Promise((res) => setTimeout(res, 5));
    }
  } else {
    const got = await call.answer;
    if (!got.ok && got.code === UNAVAILABLE) throw new Inconclusive(`#${id} ${req.t}: UNAVAILABLE`);
    const broken = promiseBroken(m, req, got, { stale, election: electionBefore || m.isElection((req as { name?: string }).name ?? '') });
    if (broken) throw new Mismatch(`#${id} ${req.t}: promise broken — ${broken}: ${show(got)}`);
    check(m, `#${id} ${req.t}`, exp.answer, got, floor, log, tokens, req);
  }
  for (const [cid, want] of exp.resolves) {
    const c = waiting.get(cid);
    if (!c) throw new Error(`model: call #${cid} is not waiting`);
    waiting.delete(cid);
    if (defer(c)) {
      deferred.push({ cid, by: id, want, floor, call: c, candidates: [want] });
      continue;
    }
    const got = await within(c.answer, END_MS);
    if (!got) throw new Mismatch(`waiting call #${cid} did not end within ${END_MS} ms; the model ended it with ${show(want, m)} after #${id}`);
    check(m, `waiting call #${cid} (ended by #${id})`, want, got, floor, log, tokens, c.req);
  }
  if (m.violations.length) throw new Mismatch(`after #${id}: promise broken — ${m.violations[0]}`);
  m.adopt();
  for (const [cid, c] of waiting)
    if (c.settled) {
      if (!c.settled.ok && c.settled.code === UNAVAILABLE) throw new Inconclusive(`waiting call #${cid}: ${show(c.settled)}`);
      throw new Mismatch(`waiting call #${cid} answered ${show(c.settled)}, but the model says it still waits (after #${id})`);
    }
}

function check(m: RecipeModel, what: string, want: Answer, got: Answer, floor: (f: Fresh) => number, log: string[], tokens: number[], req?: RecipeReq): void {
  if (!got.ok && got.code === UNAVAILABLE) throw new Inconclusive(`${what}: ${show(got)}`);
  log.push(`   ${what} → ${show(got)}`);
  // A server whose AcquireResponse has no `shared` (older code): an answer in the mode asked states
  // it; one in another mode (a retry after a downgrade) must say so, and cannot.
  if (want.ok && got.ok && 'shared' in want.body && got.body.shared === undefined) {
    const asked = req?.t === 'acquire' ? req.shared : false;
    if (want.body.acquired === true && want.body.shared !== asked)
      throw new Mismatch(
        `${what}: promise broken — a retry reports the mode it got: the grant is ${want.body.shared ? 'shared' : 'exclusive'} now, the answer cannot say so: ${show(got)}`,
      );
    want = { ok: true, body: { ...want.body, shared: undefined } };
  }
  const bad =
    want.ok !== got.ok
      ? 'ok'
      : !want.ok || !got.ok
        ? want.ok || got.ok || want.code === got.code
          ? undefined
          : 'code'
        : matchAnswer(m, want.body, got.body, floor, 'body');
  if (bad !== undefined) throw new Mismatch(`${what}: expected ${show(want, m)}, got ${show(got)} (at ${bad})`);
  if (got.ok) see(m, got.body, tokens);
}

/** Note the ids and tokens an answer shows: fresh values must exceed them, stale-token ops pick from them. */
function see(m: RecipeModel, v: unknown, tokens: number[], key = ''): void {
  if (typeof v === 'number') {
    if (v > 0 && (key === 'fencingToken' || key === 'leaseId' || key === 'holderLeaseId')) m.saw(v);
    if (v > 0 && key === 'fencingToken' && !tokens.includes(v)) tokens.push(v);
  } else if (Array.isArray(v)) for (const x of v) see(m, x, tokens, key);
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) see(m, x, tokens, k);
}

function show(a: Answer, m?: RecipeModel): string {
  if (!a.ok) return `error code ${a.code}${a.details ? ` (${a.details})` : ''}`;
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
