// A demo client that reports to the story (story.ts) what it does and believes: each call as an
// invoke → complete interval, each lease's trust deadline as the client computes it (renewals),
// and each lock it holds from grant to release or loss. The LockClient itself is unchanged: a
// Proxy wraps the calls a demo makes, and the objects they return (Lease, Lock) the same way.
import type { Lease, Lock, LockClient } from '../../../client/index.js';
import type { Story } from './story.js';

/** The calls drawn as operations; the rest (status polls, observe) are not a client's story. */
const OPS = new Set([
  'grantLease',
  'revokeLease',
  'timeToLive',
  'acquire',
  'acquireRaw',
  'tryAcquire',
  'release',
  'inspect',
  'setPermits',
  'fenceWrite',
  'fenceDelete',
  'fenceRead',
  'campaign',
  'proclaim',
  'resign',
]);

/** A client's state the story needs across calls: paused (a pause hides its losses from itself). */
export interface StoryActor {
  readonly name: string;
  paused: boolean;
  /** Story mode's pause between steps, taken before each call. */
  beat(): Promise<void>;
}

let nextOp = 0;

/** A monotonic instant (performance.now()) as wall-clock ms. */
export function wallOf(mono: number): number {
  return Math.round(Date.now() + (mono - performance.now()));
}

export function reportingClient(client: LockClient, actor: StoryActor, story: Story): LockClient {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !OPS.has(prop) || typeof v !== 'function') return v;
      return (...args: unknown[]) =>
        run(
          story,
          actor,
          describeCall(prop, args),
          () => (v as (...a: unknown[]) => Promise<unknown>).apply(target, args),
          (r) => after(story, actor, prop, args, r),
        );
    },
  });
}

/** Report one call: invoke now, complete when it settles (ok or its gRPC code); `done` sees a value. */
async function run<T>(story: Story, actor: StoryActor, text: string, call: () => Promise<T>, done: (r: T) => string): Promise<T> {
  await actor.beat();
  const op = ++nextOp;
  story.publish({ kind: 'invoke', client: actor.name, op, text });
  try {
    const r = await call();
    story.publish({ kind: 'complete', client: actor.name, op, ok: true, text: done(r) });
    return r;
  } catch (e) {
    const err = e as { codeName?: string; details?: string; message?: string };
    story.publish({
      kind: 'complete',
      client: actor.name,
      op,
      ok: false,
      code: err.codeName ?? 'ERROR',
      text: `${err.codeName ?? 'error'}: ${err.details ?? err.message ?? String(e)}`,
    });
    throw e;
  }
}

function describeCall(op: string, a: unknown[]): string {
  const s = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));
  switch (op) {
    case 'grantLease':
      return `grant lease, ttl ${s(a[0])} ms`;
    case 'revokeLease':
      return `revoke lease ${s(a[0])}`;
    case 'timeToLive':
      return `lease ${s(a[0])} ttl?`;
    case 'acquire':
    case 'tryAcquire':
      return `${op === 'acquire' ? 'acquire' : 'try'} ${s(a[0])}`;
    case 'acquireRaw':
      return `acquire ${s(a[0])} for lease ${s(a[1])}`;
    case 'release':
      return `release ${s(a[0])} token ${s(a[1])}`;
    case 'fenceWrite':
      return `write ${s(a[0])} = ${s(typeof a[1] === 'string' ? JSON.stringify(a[1]) : '…')} token ${s(a[2])}`;
    case 'fenceDelete':
      return `delete ${s(a[0])} token ${s(a[1])}`;
    default:
      return `${op} ${s(a[0])}`;
  }
}

/** What came back, in words, and what the client now believes (published as story events). */
function after(story: Story, actor: StoryActor, op: string, args: unknown[], r: unknown): string {
  switch (op) {
    case 'grantLease': {
      const lease = watchLease(story, actor, r as Lease);
      return `lease ${lease.id}, ttl ${lease.ttlMs} ms`;
    }
    case 'acquire':
    case 'tryAcquire': {
      if (!r) return 'not acquired (held)';
      const lock = r as Lock;
      watchLease(story, actor, lock.lease);
      watchLock(story, actor, lock);
      return `token ${lock.token}, lease ${lock.lease.id}`;
    }
    case 'acquireRaw': {
      const x = r as { acquired: boolean; fencingToken: number; holderLeaseId: number };
      if (x.acquired) {
        story.publish({ kind: 'lease', client: actor.name, leaseId: Number(args[1]) });
        story.publish({
          kind: 'belief',
          client: actor.name,
          state: 'holds',
          lock: String(args[0]),
          token: x.fencingToken,
          text: `holds ${String(args[0])} (token ${x.fencingToken})`,
        });
      }
      return x.acquired ? `token ${x.fencingToken}` : `held by lease ${x.holderLeaseId}`;
    }
    case 'release':
      if (r === true) story.publish({ kind: 'belief', client: actor.name, state: 'released', lock: String(args[0]), text: `released ${String(args[0])}` });
      return r === true ? 'released' : 'not held by that token';
    case 'fenceWrite':
      return `accepted (highest ${String(r)})`;
    case 'fenceRead': {
      const x = r as { value: Buffer; fencingToken: number };
      return `${JSON.stringify(x.value.toString('utf8'))} (token ${x.fencingToken})`;
    }
    case 'timeToLive': {
      const x = r as { remainingMs: number };
      return `${x.remainingMs} ms left`;
    }
    default:
      return 'ok';
  }
}

const watched = new WeakSet<object>();

/** The lease's trust deadline as this client computes it, at grant and at each renewal. */
function watchLease(story: Story, actor: StoryActor, lease: Lease): Lease {
  if (watched.has(lease)) return lease;
  watched.add(lease);
  story.publish({ kind: 'lease', client: actor.name, leaseId: lease.id });
  story.publish({ kind: 'trust', client: actor.name, leaseId: lease.id, until: wallOf(lease.deadline) });
  lease.on('renewed', ({ deadline }) => story.publish({ kind: 'trust', client: actor.name, leaseId: lease.id, until: wallOf(deadline) }));
  return lease;
}

/** Holds from the grant; released by its release(), or lost when its lease is (unless paused: it cannot know). */
function watchLock(story: Story, actor: StoryActor, lock: Lock): void {
  if (watched.has(lock)) return;
  watched.add(lock);
  story.publish({ kind: 'belief', client: actor.name, state: 'holds', lock: lock.name, token: lock.token, text: `holds ${lock.name} (token ${lock.token})` });
  let released = false;
  const release = lock.release.bind(lock);
  Object.defineProperty(lock, 'release', {
    value: (timeoutMs?: number) =>
      run(
        story,
        actor,
        `release ${lock.name} token ${lock.token}`,
        () => release(timeoutMs),
        (ok) => {
          released = true;
          story.publish({ kind: 'belief', client: actor.name, state: 'released', lock: lock.name, text: `released ${lock.name}` });
          return ok ? 'released' : 'no longer held';
        },
      ),
  });
  lock.signal.addEventListener(
    'abort',
    () => {
      if (released || actor.paused) return;
      story.publish({
        kind: 'belief',
        client: actor.name,
        state: 'lost',
        lock: lock.name,
        token: lock.token,
        text: `stops trusting ${lock.name}: ${String((lock.signal.reason as Error)?.message ?? lock.signal.reason)}`,
      });
    },
    { once: true },
  );
}
