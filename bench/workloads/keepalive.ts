// Keepalive load: N live leases, each renewed every `intervalMs` (TTL/3, as etcd's client does)
// over a few bidirectional KeepAlive streams to the leader. Measures keepalive latency (send →
// reply) and the leader's CPU (from /proc) during the window.
import { performance } from 'node:perf_hooks';
import { CpuMeter } from '../lib/cpu.js';
import { Recorder, round } from '../lib/stats.js';
import { Window, sleep } from '../lib/window.js';
import type { KeepAliveStream } from '../systems/locker.js';
import { fmt, grantMany, type WorkloadContext } from './context.js';

export interface KeepAliveOptions {
  readonly leases: number;
  readonly ttlMs: number;
  readonly intervalMs: number;
  readonly streams: number;
}

export interface KeepAliveResult {
  readonly leases: number;
  readonly keepalives_per_s: number;
  readonly latency_p50_ms: number;
  readonly latency_p99_ms: number;
  readonly leader_cpu_percent: number;
  readonly followers_cpu_percent: number;
  readonly grant_per_s: number;
  readonly unanswered: number;
  readonly lost_leases: number;
}

export async function runKeepAlive(
  ctx: WorkloadContext,
  address: string,
  leaderPid: number,
  followerPids: number[],
  opts: KeepAliveOptions,
  label: string,
): Promise<KeepAliveResult> {
  const locker = ctx.newLocker(address);
  const streams: KeepAliveStream[] = [];
  try {
    const g0 = performance.now();
    const leases = await grantMany(locker, opts.leases, opts.ttlMs);
    const grantPerS = (opts.leases * 1000) / (performance.now() - g0);
    const streamOf = new Map<string, number>(leases.map((l, k) => [l, k % opts.streams]));
    const pending = new Map<string, number[]>(); // lease → send times, oldest first
    const latency = new Recorder();
    let lost = 0;
    let streamError: Error | undefined;
    const w = new Window(ctx.spec);
    for (let s = 0; s < opts.streams; s++) {
      const st = locker.keepAlives();
      st.onReply((lease, ttlMs) => {
        const sent = pending.get(lease)?.shift();
        if (sent === undefined) return;
        if (ttlMs <= 0) lost++;
        const now = performance.now();
        if (w.counts(now)) latency.add(now - sent);
      });
      st.onError((e) => (streamError ??= e));
      streams.push(st);
    }
    // Pace renewals evenly: by time t, every lease has been sent t / intervalMs times.
    const t0 = performance.now();
    let sent = 0;
    let cpu: { leader: CpuMeter; followers: CpuMeter[] } | undefined;
    let cpuResult = { leader: NaN, followers: NaN };
    while (!w.over && !streamError) {
      const now = performance.now();
      if (!cpu && now >= w.start) cpu = { leader: new CpuMeter(leaderPid), followers: followerPids.map((p) => new CpuMeter(p)) };
      const due = Math.floor(((now - t0) / opts.intervalMs) * leases.length);
      for (; sent < due; sent++) {
        const lease = leases[sent % leases.length];
        const q = pending.get(lease);
        if (q) q.push(performance.now());
        else pending.set(lease, [performance.now()]);
        streams[streamOf.get(lease)!].send(lease);
      }
      await sleep(5);
    }
    if (cpu) cpuResult = { leader: cpu.leader.percent(), followers: cpu.followers.reduce((a, m) => a + m.percent(), 0) };
    if (streamError) throw new Error(`keepalive stream failed: ${streamError.message}`);
    await sleep(Math.min(2000, opts.intervalMs)); // late replies still count as answered
    let unanswered = 0;
    for (const q of pending.values()) unanswered += q.length;
    const s = latency.summary(w.lengthMs);
    const res: KeepAliveResult = {
      leases: opts.leases,
      keepalives_per_s: round(s.perSecond),
      latency_p50_ms: round(s.p50Ms),
      latency_p99_ms: round(s.p99Ms),
      leader_cpu_percent: round(cpuResult.leader),
      followers_cpu_percent: round(cpuResult.followers),
      grant_per_s: round(grantPerS),
      unanswered,
      lost_leases: lost,
    };
    ctx.log(
      `[${label}] keepalive ${opts.leases} leases: ${fmt(res.keepalives_per_s, 0)} renewals/s, latency p50 ${fmt(res.latency_p50_ms, 1)} ms p99 ${fmt(res.latency_p99_ms, 1)} ms, leader CPU ${fmt(res.leader_cpu_percent, 0)}% (followers ${fmt(res.followers_cpu_percent, 0)}%), grants ${fmt(res.grant_per_s, 0)}/s${unanswered ? `, ${unanswered} unanswered` : ''}${lost ? `, ${lost} LOST` : ''}`,
    );
    return res;
  } finally {
    for (const st of streams) st.close();
    locker.close();
  }
}
