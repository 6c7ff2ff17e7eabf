// A timer for an epoch-ms deadline taken from a client (a gRPC deadline, a Session timeout_ms):
// Node's setTimeout fires a delay above 2^31-1 ms (~24.8 days) after 1 ms instead (a Node timer limit),
// so a longer wait is a chain of shorter timers, each re-measuring what is left.
// The deadline is read against the wall clock once, when the timer is made; what is left is then
// measured on the monotonic clock (performance.now(), or the node's Clock), as grpc-js measures a call's own deadline: it
// came as a duration (grpc-timeout, Session timeout_ms), so a wall clock that steps during a long
// wait (NTP, an operator, a resumed VM) neither fires it early nor holds it past its time.
// An infinite (or NaN) deadline never fires.
import { realClock, type Clock, type ClockTimer } from '../node/clock.js';

/** The longest delay setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DeadlineTimer {
  clear(): void;
  /** Never keeps the process alive (every timer of the chain). */
  unref(): DeadlineTimer;
}

/** Run `fn` once at epoch ms `at` (at once if it has passed), on `clock` (the node's). `maxStepMs` is for tests. */
export function timerAt(at: number, fn: () => void, maxStepMs = MAX_TIMER_MS, clock: Clock = realClock): DeadlineTimer {
  let timer: ClockTimer | undefined;
  let unref = false;
  const due = clock.monoMs() + (at - clock.wallMs());
  const arm = (): void => {
    const left = due - clock.monoMs();
    timer = left > maxStepMs ? clock.after(maxStepMs, arm) : clock.after(Math.max(0, left), fn);
    if (unref) timer.unref();
  };
  if (Number.isFinite(at)) arm();
  return {
    clear: () => timer?.clear(),
    unref() {
      unref = true;
      timer?.unref();
      return this;
    },
  };
}
