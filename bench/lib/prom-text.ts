// The Prometheus text exposition format, read back: one number per series. A series is keyed
// `name` or `name{a="x",b="y"}` with its labels sorted and the `node` label dropped (each node is
// scraped on its own, so the same series of two nodes gets the same key).

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.entries(labels)
    .filter(([k]) => k !== 'node')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.length === 0 ? name : `${name}{${pairs.map(([k, v]) => `${k}="${v}"`).join(',')}}`;
}

export function parsePromText(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line.trim());
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2];
    const v = Number(m[3]);
    if (!Number.isNaN(v) || m[3] === 'NaN') out.set(seriesKey(m[1], labels), v);
  }
  return out;
}

/** The sum of every series of metric `name` whose labels include `labels` (all of them with none given). */
export function sumSeries(series: ReadonlyMap<string, number>, name: string, labels: Record<string, string> = {}): number | undefined {
  let sum: number | undefined;
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const [key, v] of series) {
    if (key !== name && !key.startsWith(`${name}{`)) continue;
    if (!want.every((w) => key.includes(w))) continue;
    sum = (sum ?? 0) + v;
  }
  return sum;
}
