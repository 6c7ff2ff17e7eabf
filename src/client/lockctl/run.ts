// `lockctl run NAME -- command args…`: hold a lock while a command runs.
//
// The lock is taken with a lease of its own, kept alive by this process. The command gets the
// grant in its environment (LOCKD_FENCING_TOKEN — pass it to whatever the lock protects —,
// LOCKD_LEASE_ID, LOCKD_LOCK_NAME, LOCKD_ENDPOINTS). If the lock is lost (Lock.signal: the
// lease's local deadline passed, or the cluster ended the grant) the command gets SIGTERM, then
// SIGKILL after the grace period, and lockctl exits LOCK_LOST. When the command exits, the lock is
// released and the lease revoked; lockctl exits with the command's status. SIGINT/SIGTERM/SIGHUP
// sent to lockctl are passed on to the command, so it decides when to stop and the lock is still
// released afterwards. Only the command's own process is signalled: a command that leaves
// children behind should handle SIGTERM itself (or run under `exec`).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { LockdError, LockHeldError } from '../errors.js';
import type { Lock } from '../lock.js';
import type { Context } from './commands.js';
import { EXIT } from './exit-codes.js';

const DEFAULT_TTL_MS = 10_000;
const DEFAULT_GRACE_MS = 5_000;

export async function runCommand(ctx: Context): Promise<number> {
  const { client, p, out } = ctx;
  const name = p.args.NAME;
  const [cmd, ...cmdArgs] = p.command;
  let lock: Lock;
  try {
    lock = await client.acquire(name, {
      ttlMs: p.flags.ttlMs ?? DEFAULT_TTL_MS,
      wait: p.flags.wait,
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
  out.note(`acquired lock ${name} (fencing token ${lock.token}, lease ${lock.lease.id}); running ${cmd}`, { name, fencingToken: lock.token, leaseId: lock.lease.id });

  const child = spawn(cmd, cmdArgs, {
    stdio: 'inherit',
    env: {
      ...process.env,
      LOCKD_FENCING_TOKEN: String(lock.token),
      LOCKD_LEASE_ID: String(lock.lease.id),
      LOCKD_LOCK_NAME: name,
      LOCKD_ENDPOINTS: client.endpoints().join(','),
    },
  });

  let lost = false;
  let killTimer: NodeJS.Timeout | undefined;
  const onLost = (): void => {
    if (lock.signal.reason?.why === 'released-here') return;
    lost = true;
    out.error(new Error(`lost lock ${name}: ${(lock.signal.reason as Error)?.message ?? 'unknown reason'}; stopping the command (SIGTERM, SIGKILL after ${p.flags.graceMs ?? DEFAULT_GRACE_MS} ms)`));
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), p.flags.graceMs ?? DEFAULT_GRACE_MS);
  };
  lock.signal.addEventListener('abort', onLost, { once: true });
  const onInterrupt = (): void => {
    child.kill((ctx.interrupted.reason as NodeJS.Signals | undefined) ?? 'SIGTERM');
  };
  ctx.interrupted.addEventListener('abort', onInterrupt, { once: true });

  const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  if (killTimer) clearTimeout(killTimer);
  lock.signal.removeEventListener('abort', onLost);
  ctx.interrupted.removeEventListener('abort', onInterrupt);
  await lock.release().catch((e) => out.note(`releasing lock ${name} failed (${(e as Error).message}); it ends with its lease`));

  if ('error' in outcome) {
    out.error(new Error(`cannot run ${cmd}: ${outcome.error.message}`));
    return EXIT.CANNOT_RUN;
  }
  if (lost) return EXIT.LOCK_LOST;
  if (outcome.signal) return 128 + (constants.signals[outcome.signal] ?? 0);
  return outcome.code ?? EXIT.ERROR;
}
