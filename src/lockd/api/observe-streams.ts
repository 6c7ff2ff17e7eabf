// Lock.Observe: the events of one lock name, from the entries this node applies. Served by any
// node without forwarding: every replica applies the same entries and produces the same events
// (a follower's stream lags by its replication delay). Headers go out once the subscription is
// active, so a client can wait for them before acting and miss nothing. A snapshot install has no
// events for what it covers: each stream then gets one RESYNC event with the lock's whole state.
import * as grpc from '@grpc/grpc-js';
import type { ObserveRequest__Output } from '../../proto/gen/lockd/v1/ObserveRequest.js';
import type { LockEvent as LockEventMessage } from '../../proto/gen/lockd/v1/LockEvent.js';
import { validateLockName, type LockStateMachine, type StateEvent } from '../state-machine/index.js';
import { inspectResponse } from './inspect-response.js';
import { fromProblem, type ApiError } from './api-error.js';
import type { AppliedEvents } from './applied-events.js';
import { ServerStreams } from './server-stream.js';
import type { OutboundBudget } from './admission/outbound-budget.js';
import { loopActivity } from '../observe/loop-activity.js';
import { principalOf } from '../security/principal.js';
import type { AccessControl } from '../security/access-control.js';
import { denied } from './access.js';

/**
 * Events buffered for one slow reader before its stream is ended with RESOURCE_EXHAUSTED: at most
 * ~0.5 MiB per observer (names are ≤ 512 bytes), so the streams of one connection stay bounded.
 */
export const MAX_OBSERVE_BACKLOG = 1_000;

type Call = grpc.ServerWritableStream<ObserveRequest__Output, LockEventMessage>;

export class ObserveStreams {
  private readonly streams: ServerStreams<ObserveRequest__Output, LockEventMessage>;

  constructor(
    private readonly events: AppliedEvents,
    private readonly access: AccessControl,
    private readonly sm: Pick<LockStateMachine, 'inspectLock'>,
    outbound?: OutboundBudget,
  ) {
    this.streams = new ServerStreams(outbound);
  }

  readonly handler: grpc.handleServerStreamingCall<ObserveRequest__Output, LockEventMessage> = (call: Call) =>
    loopActivity.run('observe open', () => this.open(call));

  private open(call: Call): void {
    const { name } = call.request;
    const problem = validateLockName(name);
    if (problem) {
      call.emit('error', fromProblem(problem).toStatus());
      return;
    }
    // Against this replica's rules (served locally, like the events themselves).
    const why = this.access.denial(principalOf(call.metadata), ['lock', 'read'], name, 'observe');
    if (why) {
      call.emit('error', denied(why).toStatus());
      return;
    }
    if (call.cancelled) return;
    // Observe only writes, so it cannot stop its source: its backlog is bounded instead (server-stream.ts).
    const s = this.streams.serve(
      call,
      {
        onClose: () => {
          unsubscribe();
          unresync();
        },
      },
      { backlog: { messages: MAX_OBSERVE_BACKLOG, what: `the observer of ${JSON.stringify(name)}` } },
    );
    const unsubscribe = this.events.onName(name, (ev) => s.send(this.message(ev)));
    const unresync = this.events.onReplaced((index) => {
      const v = this.sm.inspectLock(name);
      s.send({ name, type: 'RESYNC', fencingToken: v.token, leaseId: v.holderLeaseId, index, state: inspectResponse(v) });
    });
    call.sendMetadata(new grpc.Metadata());
  }

  /**
   * One message object per event, shared by every observer of its name: what waits for slow
   * readers is then a reference per observer, not an object each (400 unread observers of one
   * lock held 400 copies of every event).
   */
  private message(ev: StateEvent): LockEventMessage {
    let m = this.messages.get(ev);
    if (!m) {
      m = { name: ev.name, type: ev.type, fencingToken: ev.token, leaseId: ev.leaseId, index: ev.index };
      this.messages.set(ev, m);
    }
    return m;
  }

  private readonly messages = new WeakMap<StateEvent, LockEventMessage>();

  get count(): number {
    return this.streams.size;
  }

  close(err: ApiError): void {
    this.streams.endAll(err);
  }
}
