// Lock.Observe: the events of one lock name, from the entries this node applies. Served by any
// node without forwarding: every replica applies the same entries and produces the same events
// (a follower's stream lags by its replication delay). Headers go out once the subscription is
// active, so a client can wait for them before acting and miss nothing.
import * as grpc from '@grpc/grpc-js';
import type { ObserveRequest__Output } from '../../proto/gen/lockd/v1/ObserveRequest.js';
import type { LockEvent as LockEventMessage } from '../../proto/gen/lockd/v1/LockEvent.js';
import { validateLockName } from '../state-machine/index.js';
import { ApiError, fromProblem } from './api-error.js';
import type { AppliedEvents } from './applied-events.js';

/** Events buffered for one slow reader before its stream is ended. */
export const MAX_OBSERVE_BACKLOG = 10_000;

type Call = grpc.ServerWritableStream<ObserveRequest__Output, LockEventMessage>;

export class ObserveStreams {
  private readonly ends = new Set<(err: ApiError) => void>();

  constructor(private readonly events: AppliedEvents) {}

  readonly handler: grpc.handleServerStreamingCall<ObserveRequest__Output, LockEventMessage> = (call: Call) => {
    const { name } = call.request;
    const problem = validateLockName(name);
    if (problem) {
      call.emit('error', fromProblem(problem).toStatus());
      return;
    }
    let open = true;
    const end = (err?: ApiError) => {
      if (!open) return;
      open = false;
      unsubscribe();
      this.ends.delete(end);
      if (err) call.emit('error', err.toStatus());
    };
    const unsubscribe = this.events.onName(name, (ev) => {
      if (!open) return;
      call.write({ name: ev.name, type: ev.type, fencingToken: ev.token, leaseId: ev.leaseId, index: ev.index });
      if (call.writableLength > MAX_OBSERVE_BACKLOG)
        end(new ApiError(grpc.status.RESOURCE_EXHAUSTED, `observer of ${name} fell ${MAX_OBSERVE_BACKLOG} events behind; reconnect`));
    });
    this.ends.add(end);
    call.on('cancelled', () => end());
    call.on('error', () => end());
    call.sendMetadata(new grpc.Metadata());
  };

  get count(): number {
    return this.ends.size;
  }

  close(err: ApiError): void {
    for (const end of [...this.ends]) end(err);
  }
}
