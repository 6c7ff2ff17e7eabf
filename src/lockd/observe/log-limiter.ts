// Refusals and protocol errors, logged as a count per interval rather than a line per event: a
// client (or a stranger on the peer port) that sends bad requests in a loop must not flood the log
// nor spend the shared loop writing it (docs/lessons.md 14). The first event of a kind is logged at
// once, with its details; the rest of that kind in the interval are counted, and flush() writes one
// summary line per kind ("N more <kind> in the last 10 s"). Memory is bounded: at most `maxKinds`
// kinds are tracked; events of further kinds are counted under one overflow kind.
//
// Time is injected (`now`, monotonic ms) and flush() is called by the owner's timer, so the
// limiter runs the same on a test's clock as on the node's.
import type { Logger } from 'pino';

export type LimitedLevel = 'debug' | 'info' | 'warn' | 'error';

/** What a layer that logs refusals needs (the transport and API take this port, not the class). */
export interface RefusalLog {
  /** Log `msg` now if it is the first `kind` of the interval, else count it for the summary. `kind` must come from a bounded set (no caller-chosen text). */
  note(kind: string, level: LimitedLevel, fields: Record<string, unknown>, msg: string): void;
}

export interface LogLimiterOptions {
  /** Monotonic ms. */
  readonly now: () => number;
  /** Where lines go: one call per line (a first occurrence or a summary). */
  readonly emit: (level: LimitedLevel, fields: Record<string, unknown>, msg: string) => void;
  /** Length of one counting interval (default 10 s). */
  readonly intervalMs?: number;
  /** Most kinds tracked at once (default 128): also the most first lines one interval can write. */
  readonly maxKinds?: number;
}

export const LOG_INTERVAL_MS = 10_000;
export const LOG_MAX_KINDS = 128;
/** The kind events are counted under once `maxKinds` kinds are tracked. */
export const OVERFLOW_KIND = 'refusals of other kinds';

interface KindState {
  level: LimitedLevel;
  since: number;
  suppressed: number;
}

export class LogLimiter implements RefusalLog {
  private readonly kinds = new Map<string, KindState>();
  private readonly intervalMs: number;
  private readonly maxKinds: number;

  constructor(private readonly opts: LogLimiterOptions) {
    this.intervalMs = opts.intervalMs ?? LOG_INTERVAL_MS;
    this.maxKinds = Math.max(1, opts.maxKinds ?? LOG_MAX_KINDS);
  }

  note(kind: string, level: LimitedLevel, fields: Record<string, unknown>, msg: string): void {
    const now = this.opts.now();
    let k = kind;
    let st = this.kinds.get(k);
    if (!st && this.kinds.size >= this.maxKinds - 1 && k !== OVERFLOW_KIND) {
      // Keep one slot for the overflow kind: past the cap, details are dropped, the count is not.
      k = OVERFLOW_KIND;
      st = this.kinds.get(k);
    }
    if (st && now - st.since >= this.intervalMs) {
      this.summarize(k, st, now);
      st = this.kinds.get(k);
    }
    if (st) {
      st.suppressed++;
      return;
    }
    this.kinds.set(k, { level, since: now, suppressed: 0 });
    if (k === OVERFLOW_KIND)
      this.opts.emit(level, { event: 'refusal', kind: k, of: kind }, `${msg} (more refusal kinds than ${this.maxKinds}: further ones are counted together)`);
    else this.opts.emit(level, { event: 'refusal', kind: k, ...fields }, msg);
  }

  /** Write the summary of every kind whose interval has ended (`all`: of every kind, as at a stop); a kind with nothing counted is forgotten (its next event is logged at once). */
  flush(all = false): void {
    const now = this.opts.now();
    for (const [k, st] of [...this.kinds]) if (all || now - st.since >= this.intervalMs) this.summarize(k, st, now);
  }

  /** Kinds tracked now (for tests and the bound). */
  size(): number {
    return this.kinds.size;
  }

  private summarize(kind: string, st: KindState, now: number): void {
    if (st.suppressed === 0) {
      this.kinds.delete(kind);
      return;
    }
    const secs = Math.round((now - st.since) / 1000);
    this.opts.emit(
      st.level,
      { event: 'refusals suppressed', kind, count: st.suppressed, seconds: secs },
      `${st.suppressed} more ${kind} in the last ${secs} s`,
    );
    // Still busy: keep counting in a new interval, without another first line.
    st.since = now;
    st.suppressed = 0;
  }
}

/** A limiter writing to a pino logger, flushed by `every` (the node's clock timer). */
export function loggerLimiter(
  logger: Logger,
  now: () => number,
  every: (ms: number, fn: () => void) => { clear(): void },
  intervalMs = LOG_INTERVAL_MS,
): { log: LogLimiter; close(): void } {
  const log = new LogLimiter({ now, intervalMs, emit: (level, fields, msg) => logger[level](fields, msg) });
  const timer = every(Math.max(1, Math.floor(intervalMs / 2)), () => log.flush());
  return {
    log,
    close: () => {
      timer.clear();
      log.flush(true);
    },
  };
}
