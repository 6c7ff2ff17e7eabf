// Summarize a V8 .cpuprofile (node --cpu-prof): top functions by self time and self time by layer.
// CLI: `npx tsx bench/profile/summarize.ts FILE.cpuprofile [TOP]`.
import { readFileSync } from 'node:fs';

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileRow {
  readonly name: string;
  readonly self_ms: number;
  /** Share of the non-idle time. */
  readonly pct_busy: number;
}

export interface ProfileSummary {
  readonly file: string;
  readonly wall_ms: number;
  readonly busy_ms: number;
  readonly busy_pct_of_wall: number;
  readonly top_functions: ProfileRow[];
  readonly layers: ProfileRow[];
}

/** Which part of the system a frame belongs to (by its script URL). */
export function layerOf(url: string, fn: string): string {
  if (!url) {
    if (fn === '(idle)') return '(idle)';
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(program)') return 'V8/native (program)';
    return `native ${fn || '(anonymous)'}`;
  }
  const rules: Array<[RegExp, string]> = [
    [/node_modules\/@grpc\/grpc-js\//, 'grpc-js'],
    [/node_modules\/(protobufjs|@protobufjs|@grpc\/proto-loader)\//, 'protobuf (de)serialization'],
    [/node_modules\/(classic-level|abstract-level|level|level-transcoder|module-error|maybe-combine-errors)\//, 'LevelDB binding (level)'],
    [/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|on-exit-leak-free)/, 'logging (pino)'],
    [/\/src\/raft\//, 'src/raft (consensus core)'],
    [/\/src\/lockd\/state-machine\//, 'src/lockd/state-machine'],
    [/\/src\/lockd\/storage\//, 'src/lockd/storage'],
    [/\/src\/lockd\/transport\//, 'src/lockd/transport'],
    [/\/src\/lockd\/api\//, 'src/lockd/api'],
    [/\/src\/lockd\/node\//, 'src/lockd/node (driver)'],
    [/\/src\/lockd\//, 'src/lockd (other)'],
    [/^node:/, 'Node core (net, http2, streams, timers)'],
    [/node_modules\//, 'other dependencies'],
  ];
  for (const [re, name] of rules) if (re.test(url)) return name;
  return 'other';
}

function shortUrl(url: string): string {
  const k = url.search(/\/(node_modules|src)\//);
  return k >= 0 ? url.slice(k + 1) : url.replace(/^file:\/\//, '');
}

/** Only samples taken in [fromUs, toUs) on the monotonic clock (V8's and process.hrtime's). */
export interface SampleWindow {
  readonly fromUs: number;
  readonly toUs: number;
}

/** The monotonic clock V8 stamps profiles with (CLOCK_MONOTONIC), in µs. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export function summarize(file: string, top = 25, window?: SampleWindow): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const from = window?.fromUs ?? -Infinity;
  const to = window?.toUs ?? Infinity;
  let t = prof.startTime;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i];
    if (t < from || t >= to) continue;
    first = Math.min(first, t);
    last = Math.max(last, t);
    // timeDeltas[i] is the time since the previous sample; charge the interval after sample i to it.
    const dt = prof.timeDeltas[i + 1] ?? 0;
    selfUs.set(prof.samples[i], (selfUs.get(prof.samples[i]) ?? 0) + dt);
  }
  if (selfUs.size === 0) throw new Error(`${file}: no samples in the window ${from}..${to} µs (profile spans ${prof.startTime}..${prof.endTime})`);
  const fns = new Map<string, number>();
  const layers = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const layer = layerOf(url, functionName);
    total += us;
    if (layer === '(idle)') {
      idle += us;
      continue;
    }
    const key = url ? `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}` : functionName;
    fns.set(key, (fns.get(key) ?? 0) + us);
    layers.set(layer, (layers.get(layer) ?? 0) + us);
  }
  const busy = total - idle;
  const rows = (m: Map<string, number>, n: number): ProfileRow[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, self_ms: Math.round(us / 1000), pct_busy: Math.round((1000 * us) / busy) / 10 }));
  return {
    file,
    wall_ms: Math.round((last - first) / 1000),
    busy_ms: Math.round(busy / 1000),
    busy_pct_of_wall: Math.round((1000 * busy) / (last - first)) / 10,
    top_functions: rows(fns, top),
    layers: rows(layers, 50),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const lines = [`profile ${s.file}: busy ${s.busy_ms} ms of ${s.wall_ms} ms wall (${s.busy_pct_of_wall}%)`, '', 'self time by layer (% of busy):'];
  for (const r of s.layers) lines.push(`  ${String(r.pct_busy).padStart(5)}%  ${String(r.self_ms).padStart(6)} ms  ${r.name}`);
  lines.push('', 'top functions by self time (% of busy):');
  for (const r of s.top_functions) lines.push(`  ${String(r.pct_busy).padStart(5)}%  ${String(r.self_ms).padStart(6)} ms  ${r.name}`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: summarize.ts FILE.cpuprofile [TOP]\n');
    process.exit(2);
  }
  process.stdout.write(formatSummary(summarize(file, Number(process.argv[3] ?? 25))) + '\n');
}
