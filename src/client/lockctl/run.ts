// `lockctl run NAME -- command args…`: hold a lock while a command runs.
//
// The lock is taken with a lease of its own, kept alive by this process. The command gets the
// grant in its environment (LOCKD_FENCING_TOKEN — pass it to whatever the lock protects —,
// LOCKD_LEASE_ID, LOCKD_LOCK_NAME, LOCKD_ENDPOINTS). It runs in a process group of its own, and
// the whole group — the command and everything it started — is gone BY the lease's trust deadline,
// so nothing of it overlaps the next holder:
//  - keepalives stall so that only --grace ms of trust remain (the deadline: sendTime(last
//    acknowledged keepalive) + ttl, which the cluster's expiry never precedes): SIGTERM to the
//    group, SIGKILL to the group at the deadline;
//  - the cluster ends the grant (revoked, released, superseded, lease gone): SIGTERM at once,
//    SIGKILL --grace ms later or at the deadline, whichever is first.
// Either way lockctl exits LOCK_LOST. --grace defaults to a quarter of the TTL (2.5 s at the
// default 10 s) and may be at most half of it (a renewal is due every third of the TTL).
// When the command exits, whatever it left running in its group is killed (it would run without
// the lock), the lock is released and the lease revoked; lockctl exits with the command's status.
// SIGINT/SIGTERM/SIGHUP sent to lockctl are passed on to the group, so the command decides when to
// stop and the lock is still released afterwards. (The group has its own session: a ^C reaches
// the command through lockctl, not straight from the terminal.)
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { LockdError, LockHeldError } from '../errors.js';
import type { Lock } from '../lock.js';
import { monoNow } from '../deadlines.js';
import { UsageError } from './args.js';
import { recipeOf, type Context } from './actions.js';
import { EXIT } from './exit-codes.js';

const DEFAULT_TTL_MS = 10_000;
/** How long to wait for a SIGKILLed group to be gone (a zombie nobody reaps would hold it forever). */
const GROUP_EXIT_WAIT_MS = 2000;
/** setTimeout's ceiling (2^31-1 ms, else it fires at once): a longer wait re-arms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** --grace: how long before the trust deadline the command gets SIGTERM (default ttl/4, at most ttl/2). */
export function graceFor(ttlMs: number, graceMs: number | undefined): number {
  if (graceMs === undefined) return Math.floor(ttlMs / 4);
  if (graceMs > ttlMs / 2)
    throw new UsageError(`--grace ${graceMs} ms must be at most half the lease TTL (${ttlMs} ms): the command gets SIGTERM when only that much trust is left`);
  return graceMs;
}

/** The lock the command runs under, or the exit code saying why it does not run (held, timed out, interrupted). */
async function acquireToRun(ctx: Context, name: string, ttlMs: number): Promise<Lock | number> {
  const { p, out } = ctx;
  try {
    return await ctx.client.acquire(name, {
      ttlMs,
      wait: p.flags.wait,
      ...recipeOf(ctx),
      signal: ctx.interrupted,
      ...(p.timeoutMs === undefined ? {} : { timeoutMs: p.timeoutMs }),
    });
  } catch (e) {
    if (e instanceof LockHeldError) {
      out.error(new Error(`lock ${name} is held by lease ${e.holderLeaseId}; not running the command (use --wait to queue)`));
      return EXIT.NOT_ACQUIRED;
    }
    if (e instanceof LockdError && e.codeName === 'DEADLINE_EXCEEDED') {
      out.error(new Error(`lock ${name} was not acquired within the timeout; not running the command`));
      return EXIT.NOT_ACQUIRED;
    }
    if (ctx.interrupted.aborted) {
      out.error(new Error(`interrupted while waiting for lock ${name}; not running the command`));
      return EXIT.NOT_ACQUIRED;
    }
    throw e;
  }
}

export async function runCommand(ctx: Context): Promise<number> {
  const { p, out } = ctx;
  const name = p.args.NAME;
  const [cmd, ...cmdArgs] = p.command;
  const ttlMs = p.flags.ttlMs ?? DEFAULT_TTL_MS;
  const graceMs = graceFor(ttlMs, p.flags.graceMs);
  const lock = await acquireToRun(ctx, name, ttlMs);
  if (typeof lock === 'number') return lock;
  out.note(`acquired lock ${name} (fencing token ${lock.token}, lease ${lock.lease.id}); running ${cmd}`, {
    name,
    fencingToken: lock.token,
    leaseId: lock.lease.id,
  });

  const child = spawnUnderLock(ctx, cmd, cmdArgs, name, lock);
  const group = new ProcessGroup(child);
  // lockctl itself exiting (a crash, process.exit) must not leave the command running unlocked.
  const onExit = (): void => group.signal('SIGKILL');
  process.once('exit', onExit);
  const watch = watchLock(ctx, name, lock, group, graceMs);

  const outcome = await new Promise<Outcome>((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  // What the command left behind in its group would run without the lock: gone before the release.
  group.signal('SIGKILL');
  await group.gone(GROUP_EXIT_WAIT_MS);
  process.removeListener('exit', onExit);
  watch.stop();
  await lock.release().catch((e) => out.note(`releasing lock ${name} failed (${(e as Error).message}); it ends with its lease`));
  return exitCodeOf(ctx, cmd, outcome, watch.lost());
}

/** The command, in a process group of its own, with the grant in its environment. */
function spawnUnderLock(ctx: Context, cmd: string, cmdArgs: string[], name: string, lock: Lock): ChildProcess {
  return spawn(cmd, cmdArgs, {
    stdio: 'inherit',
    detached: true, // its own process group: the group is what gets signalled
    env: {
      ...process.env,
      LOCKD_FENCING_TOKEN: String(lock.token),
      LOCKD_LEASE_ID: String(lock.lease.id),
      LOCKD_LOCK_NAME: name,
      LOCKD_ENDPOINTS: ctx.client.endpoints().join(','),
    },
  });
}

/** How the command ended: its exit, or why it could not start. */
type Outcome = { code: number | null; signal: NodeJS.Signals | null } | { error: Error };

/** What watches the lock while the command runs: `lost()` once it stopped the command; `stop()` ends the watch. */
interface LockWatch {
  lost(): boolean;
  stop(): void;
}

/**
 * Stops the group when the lock's trust runs low (keepalives stalled) or the cluster ends the grant,
 * and passes lockctl's own interruption on to it.
 */
function watchLock(ctx: Context, name: string, lock: Lock, group: ProcessGroup, graceMs: number): LockWatch {
  const { out } = ctx;
  let lost = false;
  let killAt = Infinity;
  let killTimer: NodeJS.Timeout | undefined;
  let trustTimer: NodeJS.Timeout | undefined;
  /** Stop the command: SIGTERM now (once), SIGKILL of the group at monotonic time `by` (the earliest asked). */
  const stop = (why: string, by: number): void => {
    if (!lost) {
      lost = true;
      out.error(
        new Error(
          `lost lock ${name}: ${why}; stopping the command (SIGTERM now, SIGKILL of its process group in ${Math.max(0, Math.round(by - monoNow()))} ms)`,
        ),
      );
      group.signal('SIGTERM');
    }
    if (by >= killAt) return;
    killAt = by;
    if (killTimer) clearTimeout(killTimer);
    killTimer = setTimeout(() => group.signal('SIGKILL'), Math.max(0, by - monoNow()));
  };
  // Re-armed by every renewal: fires only when keepalives stalled until `graceMs` of trust are left.
  const watchTrust = (): void => {
    if (trustTimer) clearTimeout(trustTimer);
    trustTimer = undefined;
    if (lost) return;
    const deadline = lock.lease.deadline;
    const left = deadline - monoNow();
    if (left <= graceMs) return stop(`no keepalive acknowledged; lease ${lock.lease.id} is trusted for ${Math.max(0, Math.round(left))} ms more`, deadline);
    trustTimer = setTimeout(watchTrust, Math.min(left - graceMs, MAX_TIMER_MS));
  };
  lock.lease.on('renewed', watchTrust);
  watchTrust();
  const onLost = (): void => {
    if (lock.signal.reason?.why === 'released-here') return;
    stop((lock.signal.reason as Error)?.message ?? 'unknown reason', Math.min(monoNow() + graceMs, lock.lease.deadline));
  };
  lock.signal.addEventListener('abort', onLost, { once: true });
  const onInterrupt = (): void => {
    group.signal((ctx.interrupted.reason as NodeJS.Signals | undefined) ?? 'SIGTERM');
  };
  ctx.interrupted.addEventListener('abort', onInterrupt, { once: true });
  return {
    lost: () => lost,
    stop: () => {
      if (killTimer) clearTimeout(killTimer);
      if (trustTimer) clearTimeout(trustTimer);
      lock.lease.off('renewed', watchTrust);
      lock.signal.removeEventListener('abort', onLost);
      ctx.interrupted.removeEventListener('abort', onInterrupt);
    },
  };
}

/** lockctl's exit status: CANNOT_RUN, LOCK_LOST, or the command's own (128 + signal number if killed). */
function exitCodeOf(ctx: Context, cmd: string, outcome: Outcome, lost: boolean): number {
  if ('error' in outcome) {
    ctx.out.error(new Error(`cannot run ${cmd}: ${outcome.error.message}`));
    return EXIT.CANNOT_RUN;
  }
  if (lost) return EXIT.LOCK_LOST;
  if (outcome.signal) return 128 + (constants.signals[outcome.signal] ?? 0);
  return outcome.code ?? EXIT.ERROR;
}

/** The command's process group (it leads it: spawned detached). */
class ProcessGroup {
  constructor(private readonly leader: ChildProcess) {}

  /** Signal every process of the group; one that is gone already is fine. */
  signal(sig: NodeJS.Signals): void {
    const pid = this.leader.pid;
    if (pid === undefined) return; // never started (spawn failed)
    try {
      process.kill(-pid, sig);
    } catch {
      // ESRCH: the whole group is gone
    }
  }

  /** Resolves once no process of the group is left (ESRCH), or after `maxMs`. */
  async gone(maxMs: number): Promise<void> {
    const pid = this.leader.pid;
    if (pid === undefined) return;
    const until = monoNow() + maxMs;
    while (monoNow() < until) {
      try {
        process.kill(-pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}
