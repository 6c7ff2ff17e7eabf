// Child processes a test started, stopped if mocha itself exits or is told to stop before the test
// could (an uncaught error, `exit: true` at the end, ^C): no node or helper outlives the run.
// Tests still stop what they start; this is the net under them.
import type { ChildProcess } from 'node:child_process';

interface Tracked {
  readonly proc: ChildProcess;
  /** The child leads its own process group (spawned detached): the whole group is killed. */
  readonly group: boolean;
}

const live = new Set<Tracked>();
let installed = false;

/** Track `proc` until it exits. */
export function reapOnExit(proc: ChildProcess, group = false): void {
  install();
  const t = { proc, group };
  live.add(t);
  proc.once('exit', () => live.delete(t));
}

/** SIGCONT (a paused child cannot die) then SIGKILL, to the child or its group; gone already is fine. */
export function killNow(proc: ChildProcess, group: boolean): void {
  for (const sig of ['SIGCONT', 'SIGKILL'] as const) {
    try {
      if (group && proc.pid !== undefined) process.kill(-proc.pid, sig);
      else proc.kill(sig);
    } catch {
      // ESRCH: already gone
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      killAll();
      process.kill(process.pid, sig); // the default action now that our listener is gone
    });
  }
}

function killAll(): void {
  for (const t of live) killNow(t.proc, t.group);
  live.clear();
}
