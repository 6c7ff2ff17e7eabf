// Profile lockd's leader under the uncontended C=64 load: every node runs with --cpu-prof, the
// nodes stop on SIGTERM (which writes the profiles), and the leader's profile is summarized over
// the measured window (start-up and warm-up left out). The followers' and the load generator's
// CPU use are reported alongside, since all of them share the machine's cores.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockdCluster } from '../clusters/lockd-cluster.js';
import { round } from '../lib/stats.js';
import type { WindowSpec } from '../lib/window.js';
import { LockdLocker } from '../systems/lockd-locker.js';
import type { Locker } from '../systems/locker.js';
import { runUncontended, type UncontendedResult } from '../workloads/uncontended.js';
import { formatSummary, monotonicUs, summarize, type ProfileSummary, type SampleWindow } from './summarize.js';

export interface ProfileRun extends ProfileSummary {
  readonly leader: string;
  readonly dir: string;
  readonly load: UncontendedResult;
  /** Busy share of the window, per follower (% of one core). */
  readonly followers_busy_pct: Record<string, number>;
  /** Each follower's summary over the same window (its layers and top functions). */
  readonly follower_profiles: Record<string, ProfileSummary>;
  /** The benchmark's own process (the 64 clients), % of one core over the whole run. */
  readonly load_generator_cpu_pct: number;
}

export async function profileLockd(
  nodes: number,
  spec: WindowSpec,
  log: (line: string) => void,
  newLocker: (address: string) => Locker = (a) => new LockdLocker(a),
): Promise<ProfileRun> {
  const dir = mkdtempSync(join(tmpdir(), 'lockd-cpuprof-'));
  const cluster = await LockdCluster.start({ size: nodes, cpuProfDir: dir });
  let leaderId: string;
  let window: SampleWindow;
  let load: UncontendedResult;
  let clientPct: number;
  try {
    const leader = await cluster.waitForLeader();
    leaderId = leader.id;
    const fromUs = monotonicUs() + spec.warmupMs * 1000; // start-up and warm-up are not the load
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const probe = newLocker(leader.clientAddress);
    const label = probe.label;
    probe.close();
    load = await runUncontended({ log, spec, newLocker }, leader.clientAddress, 64, `${label} --cpu-prof`);
    const used = process.cpuUsage(cpu0);
    clientPct = ((used.user + used.system) / 1000 / (performance.now() - t0)) * 100;
    window = { fromUs, toUs: fromUs + spec.windowMs * 1000 };
  } finally {
    await cluster.stop();
  }
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const fileOf = (id: string) => files.find((f) => f.startsWith(`${id}-`));
  const leaderFile = fileOf(leaderId);
  if (!leaderFile) throw new Error(`no .cpuprofile for the leader ${leaderId} in ${dir} (did it exit on SIGTERM?)`);
  const s = summarize(join(dir, leaderFile), 25, window!);
  const followers: Record<string, number> = {};
  const followerProfiles: Record<string, ProfileSummary> = {};
  for (const n of cluster.nodes) {
    const f = fileOf(n.id);
    if (n.id === leaderId || !f) continue;
    const fs = summarize(join(dir, f), 15, window!);
    followers[n.id] = fs.busy_pct_of_wall;
    followerProfiles[n.id] = fs;
  }
  log(
    `[profile] leader ${leaderId}, profiles kept in ${dir} (summary of the measured window only); followers busy ${JSON.stringify(followers)} %, load generator ${round(clientPct!)} % of a core\n${formatSummary(s)}`,
  );
  for (const [id, fs] of Object.entries(followerProfiles)) log(`[profile] follower ${id}\n${formatSummary(fs)}`);
  return {
    ...s,
    leader: leaderId,
    dir,
    load: load!,
    followers_busy_pct: followers,
    follower_profiles: followerProfiles,
    load_generator_cpu_pct: round(clientPct!),
  };
}
