// The decision log lines read from the observation stream (not from a second set of listeners):
// lease and lock ends, and fenced writes refused. Operators look for these on the leader, which
// serves the clients: info there, debug on followers (they apply the same entries). The Raft loop's
// own lines (elected, term changed, snapshots) are logged by the loop itself.
import type { Logger } from 'pino';
import type { EventBus } from './bus.js';
import type { ObservedEvent } from './observed-events.js';
import type { RefusalLog } from './log-limiter.js';

/** Events the log may fall behind by before it loses some (and says so). */
const LOG_QUEUE = 10_000;

/** `refusals`: where refused fenced writes go (rate-limited: a client retrying a stale token must not flood the log). */
export function logDecisions(bus: EventBus, logger: Logger, isLeader: () => boolean, refusals?: RefusalLog): { close(): void } {
  const sub = bus.subscribe(LOG_QUEUE, () => {
    const { events, lost } = sub.take();
    if (lost > 0) logger.warn({ event: 'log events lost', lost }, `${lost} observation events were not logged (the log fell behind)`);
    const level = isLeader() ? 'info' : 'debug';
    for (const ev of events) line(logger, level, ev, refusals);
  });
  return { close: () => sub.close() };
}

function line(logger: Logger, level: 'info' | 'debug', ev: ObservedEvent, refusals: RefusalLog | undefined): void {
  switch (ev.type) {
    case 'lock-freed':
      if (ev.why === 'expired')
        logger[level](
          { event: 'lock expired', name: ev.name, leaseId: ev.leaseId, token: ev.token, index: ev.index },
          `${ev.name} lost by lease ${ev.leaseId} (lease expired)`,
        );
      return;
    case 'lease-ended':
      logger[level]({ event: ev.why === 'expired' ? 'lease expired' : 'lease ended', leaseId: ev.leaseId, index: ev.index }, `lease ${ev.leaseId} ${ev.why}`);
      return;
    case 'fence':
      if (ev.accepted) return;
      if (refusals)
        refusals.note(
          `fence refusals (${ev.op})`,
          level,
          { event: 'fence refused', key: ev.key, token: ev.token, highest: ev.highest, stale: ev.stale, index: ev.index },
          `fenced ${ev.op} of ${ev.key} refused: ${ev.reason ?? ''}`,
        );
      else
        logger[level](
          { event: 'fence refused', key: ev.key, token: ev.token, highest: ev.highest, stale: ev.stale, index: ev.index },
          `fenced ${ev.op} of ${ev.key} refused: ${ev.reason ?? ''}`,
        );
      return;
    default:
      return;
  }
}
