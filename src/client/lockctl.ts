#!/usr/bin/env node
// lockctl: the lockd command line (see lockctl/args.ts for the commands, `lockctl --help`).
import { constants } from 'node:os';
import { interruptGraceMs, runCli } from './lockctl/cli.js';

const argv = process.argv.slice(2);
const interrupt = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    const die = (): never => process.exit(128 + constants.signals[sig]);
    // A second signal while the first is being handled: stop at once.
    if (interrupt.signal.aborted) die();
    // Long-running commands stop on this; the others are given a moment, then cut short.
    interrupt.abort(sig);
    const grace = interruptGraceMs(argv);
    if (grace !== Infinity) setTimeout(die, grace).unref();
  });
}

const code = await runCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, interrupted: interrupt.signal });
// Exit once stdout has drained (a pipe reader gets everything), without waiting on stray handles.
process.stdout.write('', () => process.exit(code));
