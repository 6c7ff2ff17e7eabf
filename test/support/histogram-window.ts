// A Prometheus histogram read over a window: two /metrics scrapes (before, after) of a node, and
// what was observed between them: how many observations exceeded a bound, and the smallest bucket
// bound none exceeded (an upper bound on the window's maximum).
import { metric } from './observe-client.js';

/** The histogram's observations in (before, after] above `le` seconds (a bound as /metrics prints it). */
export function above(before: string, after: string, name: string, le: number | string, labels: Record<string, string> = {}): number {
  const d = (text: string) => (metric(text, `${name}_count`, labels) ?? 0) - (metric(text, `${name}_bucket`, { ...labels, le: String(le) }) ?? 0);
  return d(after) - d(before);
}

/** The smallest bucket bound no observation in (before, after] exceeded: an upper bound on the window's maximum (seconds). */
export function maxBound(before: string, after: string, name: string, labels: Record<string, string> = {}): string {
  const les = [...new Set([...after.matchAll(new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"`, 'gm'))].map((m) => m[1]))].filter((le) => le !== '+Inf');
  const n = (text: string) => metric(text, `${name}_count`, labels) ?? 0;
  if (n(after) - n(before) === 0) return 'no observations';
  for (const le of les.sort((a, b) => Number(a) - Number(b))) if (above(before, after, name, le, labels) === 0) return `≤ ${Number(le)} s`;
  return '> the largest bucket';
}
