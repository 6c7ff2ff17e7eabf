// Planted bugs of the layers above the Raft core, as adapters the simulator puts around a node's
// real parts (never branches in src/): each reproduces a class of bug a review found or that the
// proto's promises rule out, to show the whole-node world and its checkers catch it.
//  - snapshot-install-no-events: the API never hears that a snapshot replaced the state (the
//    driver's onStateReplaced reaches nobody): waits the snapshot settled hang, KeepAlive streams
//    are not told their lease is gone, Observe streams go stale (the third review's finding);
//  - wait-not-settled: a waiting Acquire whose lease ends is never told (WAITER_REMOVED does not
//    reach the waits): it hangs to its deadline instead of NOT_FOUND;
//  - lease-clock-wall-time: the leader's lease clock measures elapsed time on its wall clock, so a
//    wall clock that steps or runs fast ends leases early, inside their holders' trust;
//  - forwarder-drops-request-id: a follower forwards calls without their request_id, so a retry
//    that reaches the leader through a follower is applied as a new request (a second lease, a
//    second write);
//  - shared-token-release: a Release or lock-bound Fence.Write is matched to a grant by the index
//    part of its token only (tokens before they were per grant), so a token of one grant releases
//    or writes as another grant of the same entry (the third review's other finding).
import type { Clock } from '../../../src/lockd/node/clock.js';
import type { RaftDriver } from '../../../src/lockd/node/raft-driver.js';
import type { ApplyOutput } from '../../../src/lockd/state-machine/index.js';
import type { ForwardRewrite } from './sim-forwarder.js';
import { SIM_EPOCH_MS } from './world.js';

export const NODE_BUGS = [
  'snapshot-install-no-events',
  'wait-not-settled',
  'lease-clock-wall-time',
  'forwarder-drops-request-id',
  'shared-token-release',
] as const;
export type NodeBug = (typeof NODE_BUGS)[number];

export interface NodeAdapters {
  readonly driver?: (d: RaftDriver<ApplyOutput>) => RaftDriver<ApplyOutput>;
  readonly leaseClock?: (c: Clock) => Clock;
  readonly forward?: ForwardRewrite;
  /** Rewrites a request a node's handler receives (by public path), given the node's state. */
  readonly request?: (path: string, req: Record<string, unknown>) => Record<string, unknown>;
  /** Rewrites an answer a node's handler gives. */
  readonly response?: (path: string, res: Record<string, unknown>) => Record<string, unknown>;
}

/** A driver whose method `name` is replaced (everything else is the driver's own). */
function override<K extends keyof RaftDriver<ApplyOutput>>(d: RaftDriver<ApplyOutput>, name: K, fn: RaftDriver<ApplyOutput>[K]): RaftDriver<ApplyOutput> {
  return new Proxy(d, {
    get(target, p) {
      if (p === name) return fn;
      const v: unknown = Reflect.get(target, p);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const ORDINAL = 1024;

export function adaptersFor(bug: NodeBug | undefined): NodeAdapters {
  switch (bug) {
    case undefined:
      return {};
    case 'snapshot-install-no-events':
      return { driver: (d) => override(d, 'onStateReplaced', () => {}) };
    case 'wait-not-settled':
      return {
        driver: (d) =>
          override(d, 'onApplied', (l) => d.onApplied((e, out) => l(e, { ...out, events: out.events.filter((ev) => ev.type !== 'WAITER_REMOVED') }))),
      };
    case 'lease-clock-wall-time':
      return {
        leaseClock: (c) => ({
          wallMs: () => c.wallMs(),
          monoMs: () => c.wallMs() - SIM_EPOCH_MS,
          after: (ms, fn) => c.after(ms, fn),
          every: (ms, fn) => c.every(ms, fn),
          soon: (fn) => c.soon(fn),
        }),
      };
    case 'forwarder-drops-request-id':
      return { forward: (_path, req) => (req && typeof req === 'object' && 'requestId' in req ? { ...(req as object), requestId: '' } : req) };
    case 'shared-token-release':
      // Clients are told tokens without their ordinal (every grant of one entry the same token),
      // and a token coming back is taken as the first grant of that entry: per-index tokens.
      return {
        response: (path, res) =>
          path === '/lockd.v1.Lock/Acquire' && Number(res.fencingToken) > 0
            ? { ...res, fencingToken: Math.floor(Number(res.fencingToken) / ORDINAL) * ORDINAL }
            : res,
      };
  }
}
