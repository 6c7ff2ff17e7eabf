// Where lockctl writes: human-readable lines by default, one JSON document per result with --json
// (one per line for streams: observe, keepalive). Errors go to stderr either way.
import { Writable } from 'node:stream';
import { LeaseLostError, LockdError, LockHeldError, LockLostError } from '../errors.js';

export class Output {
  constructor(
    readonly json: boolean,
    private readonly out: Writable = process.stdout,
    private readonly err: Writable = process.stderr,
  ) {}

  /** One result: `human` for people, `data` for --json. */
  result(human: string | string[], data: unknown): void {
    if (this.json) this.out.write(`${JSON.stringify(data)}\n`);
    else this.out.write(`${Array.isArray(human) ? human.join('\n') : human}\n`);
  }

  /** A note for people (stderr, so stdout stays the result); in --json mode a JSON line. */
  note(text: string, data?: Record<string, unknown>): void {
    this.err.write(this.json ? `${JSON.stringify({ note: text, ...data })}\n` : `lockctl: ${text}\n`);
  }

  error(e: unknown): void {
    const { code, message } = describeError(e);
    this.err.write(this.json ? `${JSON.stringify({ error: { code, message } })}\n` : `lockctl: ${code === 'ERROR' ? '' : `${code}: `}${message}\n`);
  }
}

/** A code name and message for any error lockctl reports. */
export function describeError(e: unknown): { code: string; message: string } {
  if (e instanceof LockdError) return { code: e.codeName, message: e.details };
  if (e instanceof LockHeldError) return { code: 'HELD', message: e.message };
  if (e instanceof LeaseLostError) return { code: 'LEASE_LOST', message: e.message };
  if (e instanceof LockLostError) return { code: 'LOCK_LOST', message: e.message };
  return { code: 'ERROR', message: e instanceof Error ? e.message : String(e) };
}

/** Columns padded to their widest cell. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
