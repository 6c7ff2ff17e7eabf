// The admission limits of the client port on /metrics: for each limit (the flag's name, the
// `limit` label) its value, its current use and its refusals. The API layer owns the limits
// (api/admission/); this layer sits below it and reads them through this port, at scrape time.
import { Counter, Gauge, type Registry } from 'prom-client';

/** One limit as /metrics reads it (api/admission/limit-use.ts implements it). */
export interface ObservedLimit {
  readonly name: string;
  readonly limit: number;
  /** Current use; for a per-key limit (per principal, address, connection, stream) its busiest key's. */
  used(): number;
  readonly refused: number;
}

export function admissionMetrics(limits: () => readonly ObservedLimit[], registers: Registry[]): void {
  new Gauge({
    name: 'lockd_admission_limit',
    help: 'Admission limits of the client port (the flags --max-*), by limit.',
    labelNames: ['limit'],
    registers,
    collect() {
      for (const l of limits()) this.set({ limit: l.name }, l.limit);
    },
  });
  new Gauge({
    name: 'lockd_admission_in_use',
    help: "Current use of each admission limit: connections, streams, calls or bytes; for a per-principal, per-address, per-connection or per-stream limit, its busiest one's.",
    labelNames: ['limit'],
    registers,
    collect() {
      for (const l of limits()) this.set({ limit: l.name }, l.used());
    },
  });
  const last = new Map<string, number>();
  new Counter({
    name: 'lockd_admission_refused_total',
    help: 'Connections closed, calls refused and streams ended (RESOURCE_EXHAUSTED) by each admission limit.',
    labelNames: ['limit'],
    registers,
    collect() {
      for (const l of limits()) {
        this.inc({ limit: l.name }, l.refused - (last.get(l.name) ?? 0));
        last.set(l.name, l.refused);
      }
    },
  });
}
