// The node's time and timers as one port: the wall clock (what gRPC deadlines are in), a monotonic
// clock (what the lease clock measures elapsed time on), one-shot and repeating timers, and "soon"
// (after the current input). Production runs on realClock; the simulator (test/sim/node) hands every
// part of a node its own seeded, simulated clock instead, so the lease clock, waits, deadlines and
// retries run on simulated time. One code path: nothing asks which clock it has.
import { performance } from 'node:perf_hooks';

export interface ClockTimer {
  clear(): void;
  /** Never keeps the process alive (a no-op where there is no process to keep). */
  unref(): ClockTimer;
}

export interface Clock {
  /** Wall-clock epoch ms (Date.now()): may step. */
  wallMs(): number;
  /** Monotonic ms (performance.now()): never steps back. */
  monoMs(): number;
  /** Run `fn` once after `ms` (setTimeout; Node fires a delay above 2^31-1 after 1 ms: api/timer-at.ts chains). */
  after(ms: number, fn: () => void): ClockTimer;
  /** Run `fn` every `ms` until cleared (setInterval). */
  every(ms: number, fn: () => void): ClockTimer;
  /** Run `fn` after the current input and its promise jobs (setImmediate). */
  soon(fn: () => void): void;
}

function nodeTimer(t: NodeJS.Timeout, clear: (t: NodeJS.Timeout) => void): ClockTimer {
  const h: ClockTimer = {
    clear: () => clear(t),
    unref: () => {
      t.unref();
      return h;
    },
  };
  return h;
}

/** The process's own clock and timers. */
export const realClock: Clock = {
  wallMs: () => Date.now(),
  monoMs: () => performance.now(),
  after: (ms, fn) => nodeTimer(setTimeout(fn, ms), clearTimeout),
  every: (ms, fn) => nodeTimer(setInterval(fn, ms), clearInterval),
  soon: (fn) => void setImmediate(fn),
};
