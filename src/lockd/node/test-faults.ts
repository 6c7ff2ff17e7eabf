// Test-only faults a demo or test can inject into a running node, OFF unless the node was started
// with --unsafe-test-faults FILE. On SIGUSR2 the node reads one command from FILE:
//   isolate          drop every Raft message to and from the peers (the client port stays open, as
//                    for a client on the leader's side of a network partition)
//   heal             stop dropping them
//   clock-jump MS    add MS (1 .. 86,400,000) to the clock the leader's lease clock measures with
//                    (performance.now()): a leap of the leader's clock source, as a VM resume or a
//                    misbehaving timer would make it
// Every command is logged at warn, and so is the flag at start: a node running with it is not one
// to trust data to. A command that cannot be read or parsed is logged and changes nothing.
import { closeSync, openSync, readSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';

/** A fault command file is one short line; anything longer is refused unread. */
const MAX_COMMAND_BYTES = 256;
export const MAX_CLOCK_JUMP_MS = 86_400_000;

export type FaultCommand = { readonly kind: 'isolate' } | { readonly kind: 'heal' } | { readonly kind: 'clock-jump'; readonly ms: number };

/** The command in `text`, or a message saying why it is not one. */
export function parseFaultCommand(text: string): FaultCommand | string {
  const words = text.trim().split(/\s+/);
  if (words.length === 1 && (words[0] === 'isolate' || words[0] === 'heal')) return { kind: words[0] };
  if (words.length === 2 && words[0] === 'clock-jump' && /^\d{1,8}$/.test(words[1])) {
    const ms = Number(words[1]);
    if (ms >= 1 && ms <= MAX_CLOCK_JUMP_MS) return { kind: 'clock-jump', ms };
  }
  return `not a fault command: ${JSON.stringify(text.slice(0, 80))} (isolate | heal | clock-jump MS with MS in 1..${MAX_CLOCK_JUMP_MS})`;
}

export class TestFaults {
  private isolatedNow = false;
  private clockOffsetMs = 0;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {
    logger.warn({ event: 'unsafe test faults enabled', file }, `UNSAFE: test faults are enabled (--unsafe-test-faults ${file}): SIGUSR2 runs the command in that file (isolate, heal, clock-jump MS); never run a real cluster like this`);
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
    if (cmd.kind === 'clock-jump') this.clockOffsetMs += cmd.ms;
    else this.isolatedNow = cmd.kind === 'isolate';
    const what = cmd.kind === 'clock-jump' ? `the lease clock's source leapt forward ${cmd.ms} ms (offset now ${this.clockOffsetMs} ms)` : cmd.kind === 'isolate' ? 'dropping all Raft traffic to and from peers' : 'peer traffic flows again';
    this.logger.warn({ event: 'test fault', fault: cmd.kind, ...(cmd.kind === 'clock-jump' ? { ms: cmd.ms, offsetMs: this.clockOffsetMs } : {}) }, `UNSAFE test fault: ${what}`);
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
