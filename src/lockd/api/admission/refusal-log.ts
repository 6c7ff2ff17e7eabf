// Refusals are logged as counts per interval, not a line each: a flood of refused connections or
// calls must not become a flood of log lines (the client already has its status, /metrics the count).
import type { Logger } from 'pino';
import type { LimitUse } from './limit-use.js';

/** At most one line per limit per interval. */
export const REFUSAL_LOG_INTERVAL_MS = 10_000;

export class RefusalLog {
  private readonly last = new Map<string, { at: number; refused: number }>();

  constructor(
    private readonly logger: Logger | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  readonly refused = (use: LimitUse): void => {
    if (!this.logger) return;
    const t = this.now();
    const prev = this.last.get(use.name);
    if (prev && t - prev.at < REFUSAL_LOG_INTERVAL_MS) return;
    const since = use.refused - (prev?.refused ?? 0);
    this.last.set(use.name, { at: t, refused: use.refused });
    this.logger.warn(
      { event: 'admission refused', limit: use.name, value: use.limit, refused: since, refusedTotal: use.refused },
      `refused ${since} ${since === 1 ? 'request' : 'requests'} over the ${use.name} limit of ${use.limit}${prev ? ` in the last ${Math.round((t - prev.at) / 1000)} s` : ''} (at most one such line per ${REFUSAL_LOG_INTERVAL_MS / 1000} s)`,
    );
  };
}
