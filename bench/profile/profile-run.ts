// Profile lockd's leader under the uncontended C=64 load: every node runs with --cpu-prof, the
// nodes stop on SIGTERM (which writes the profiles), and the leader's profile is summarized.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockdCluster } from '../clusters/lockd-cluster.js';
import type { WindowSpec } from '../lib/window.js';
import { LockdLocker } from '../systems/lockd-locker.js';
import { runUncontended } from '../workloads/uncontended.js';
import { formatSummary, monotonicUs, summarize, type ProfileSummary, type SampleWindow } from './summarize.js';

export async function profileLockd(nodes: number, spec: WindowSpec, log: (line: string) => void): Promise<ProfileSummary & { leader: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lockd-cpuprof-'));
  const cluster = await LockdCluster.start({ size: nodes, cpuProfDir: dir });
  let leaderId: string;
  let window: SampleWindow;
  try {
    const leader = await cluster.waitForLeader();
    leaderId = leader.id;
    const fromUs = monotonicUs() + spec.warmupMs * 1000; // start-up and warm-up are not the load
    await runUncontended({ log, spec, newLocker: (a) => new LockdLocker(a) }, leader.clientAddress, 64, 'lockd --cpu-prof');
    window = { fromUs, toUs: fromUs + spec.windowMs * 1000 };
  } finally {
    await cluster.stop();
  }
  const file = readdirSync(dir).find((f) => f.startsWith(`${leaderId}-`) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile for the leader ${leaderId} in ${dir} (did it exit on SIGTERM?)`);
  const s = summarize(join(dir, file), 25, window!);
  log(`[profile] leader ${leaderId}, profiles kept in ${dir} (summary of the measured window only)\n${formatSummary(s)}`);
  return { ...s, leader: leaderId, dir };
}
