#!/usr/bin/env node
// lockctl: the lockd command line (see lockctl/args.ts for the commands, `lockctl --help`).
import { constants } from 'node:os';
import { interruptGraceMs, runCli } from './lockctl/cli.js';

const argv = process.argv.slice(2);
const interrupt = new AbortController();

/** Stop as on `sig`: long-running commands stop on the abort; the others are given a moment, then `die`. */
function interruptBy(sig: NodeJS.Signals, die: () => never): void {
  interrupt.abort(sig);
  const grace = interruptGraceMs(argv);
  if (grace !== Infinity) setTimeout(die, grace).unref();
}

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    const die = (): never => process.exit(128 + constants.signals[sig]);
    // A second signal while the first is being handled: stop at once.
    if (interrupt.signal.aborted) die();
    interruptBy(sig, die);
  });
}

// The reader of stdout went away (`lockctl ... | head`): what is left to print has no reader. Node
// ignores SIGPIPE, so without this the write's EPIPE is an uncaught 'error' that ends lockctl with a
// stack trace and exit 1, mid-command (a demo would leave its faults in place). Instead it stops as
// on a signal (SIGPIPE: what `run` passes to its command), quietly, and exits 0. Later writes to the
// destroyed stream are dropped without another 'error'.
let readerGone = false;
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  if (readerGone) return;
  readerGone = true;
  if (!interrupt.signal.aborted) interruptBy('SIGPIPE', () => process.exit(0));
});

const code = await runCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, interrupted: interrupt.signal });
// Exit once stdout has drained (a pipe reader gets everything), without waiting on stray handles.
process.stdout.write('', () => process.exit(readerGone ? 0 : code));
