// Test-only faults a demo or test can inject into a running node, OFF unless the node was started
// with --unsafe-test-faults FILE. On SIGUSR2 the node reads one command from FILE:
//   isolate          drop every Raft message to and from the peers (the client port stays open, as
//                    for a client on the leader's side of a network partition)
//   heal             stop dropping them
//   clock-jump MS    add MS (1 .. 86,400,000) to the clock the leader's lease clock measures with
//                    (performance.now()): a leap of the leader's clock source, as a VM resume or a
//                    misbehaving timer would make it
//   block-loop MS    hold the event loop busy for MS (1 .. 10,000) ms, as a long task would (the
//                    stall watch, observe/stall-watch.ts, must report it)
// Every command is logged at warn, and so is the flag at start: a node running with it is not one
// to trust data to. A command that cannot be read or parsed is logged and changes nothing.
import { closeSync, openSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { loopActivity } from '../observe/loop-activity.js';

/** A fault command file is one short line; anything longer is refused unread. */
const MAX_COMMAND_BYTES = 256;
export const MAX_CLOCK_JUMP_MS = 86_400_000;
export const MAX_BLOCK_LOOP_MS = 10_000;
/** The task label a block-loop fault runs under (observe/loop-activity.ts). */
export const BLOCK_LOOP_TASK = 'test fault block-loop';

export type FaultCommand =
  | { readonly kind: 'isolate' }
  | { readonly kind: 'heal' }
  | { readonly kind: 'clock-jump'; readonly ms: number }
  | { readonly kind: 'block-loop'; readonly ms: number };

/** The command in `text`, or a message saying why it is not one. */
export function parseFaultCommand(text: string): FaultCommand | string {
  const words = text.trim().split(/\s+/);
  if (words.length === 1 && (words[0] === 'isolate' || words[0] === 'heal')) return { kind: words[0] };
  if (words.length === 2 && words[0] === 'clock-jump' && /^\d{1,8}$/.test(words[1])) {
    const ms = Number(words[1]);
    if (ms >= 1 && ms <= MAX_CLOCK_JUMP_MS) return { kind: 'clock-jump', ms };
  }
  if (words.length === 2 && words[0] === 'block-loop' && /^\d{1,5}$/.test(words[1])) {
    const ms = Number(words[1]);
    if (ms >= 1 && ms <= MAX_BLOCK_LOOP_MS) return { kind: 'block-loop', ms };
  }
  return `not a fault command: ${JSON.stringify(text.slice(0, 80))} (isolate | heal | clock-jump MS with MS in 1..${MAX_CLOCK_JUMP_MS} | block-loop MS with MS in 1..${MAX_BLOCK_LOOP_MS})`;
}

export class TestFaults {
  private isolatedNow = false;
  private clockOffsetMs = 0;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {
    logger.warn(
      { event: 'unsafe test faults enabled', file },
      `UNSAFE: test faults are enabled (--unsafe-test-faults ${file}): SIGUSR2 runs the command in that file (isolate, heal, clock-jump MS, block-loop MS); never run a real cluster like this`,
    );
  }

  /** True while Raft traffic to and from the peers is dropped. */
  get isolated(): boolean {
    return this.isolatedNow;
  }

  /** performance.now() plus every clock jump so far: what the leader's lease clock measures with. */
  now(): number {
    return performance.now() + this.clockOffsetMs;
  }

  /** SIGUSR2: read the command file and apply it. */
  runCommandFile(): void {
    let text: string;
    try {
      text = readBounded(this.file);
    } catch (e) {
      this.logger.error({ event: 'test fault refused', file: this.file, err: e }, `test fault: cannot read ${this.file}: ${(e as Error).message}`);
      return;
    }
    const cmd = parseFaultCommand(text);
    if (typeof cmd === 'string') {
      this.logger.error({ event: 'test fault refused', file: this.file }, `test fault: ${cmd}`);
      return;
    }
    this.apply(cmd);
  }

  apply(cmd: FaultCommand): void {
    if (cmd.kind === 'block-loop') {
      this.logger.warn({ event: 'test fault', fault: cmd.kind, ms: cmd.ms }, `UNSAFE test fault: holding the event loop for ${cmd.ms} ms`);
      loopActivity.run(BLOCK_LOOP_TASK, () => {
        const until = performance.now() + cmd.ms;
        while (performance.now() < until); // busy on purpose: nothing else may run
      });
      return;
    }
    if (cmd.kind === 'clock-jump') this.clockOffsetMs += cmd.ms;
    else this.isolatedNow = cmd.kind === 'isolate';
    const what =
      cmd.kind === 'clock-jump'
        ? `the lease clock's source leapt forward ${cmd.ms} ms (offset now ${this.clockOffsetMs} ms)`
        : cmd.kind === 'isolate'
          ? 'dropping all Raft traffic to and from peers'
          : 'peer traffic flows again';
    this.logger.warn(
      { event: 'test fault', fault: cmd.kind, ...(cmd.kind === 'clock-jump' ? { ms: cmd.ms, offsetMs: this.clockOffsetMs } : {}) },
      `UNSAFE test fault: ${what}`,
    );
  }
}

function readBounded(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(MAX_COMMAND_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    if (n > MAX_COMMAND_BYTES) throw new Error(`longer than ${MAX_COMMAND_BYTES} bytes`);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
