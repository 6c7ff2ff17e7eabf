// What `log dump` and `--compare` share of lockctl's io: one line per record (human or JSON),
// quiet once the reader stops reading (| head), and a refused data dir as exit 1 with its reason.
import type { ToolIo } from '../../../client/lockctl/tools.js';
import { DataDirError } from '../../storage/index.js';

/** A writer of records (out: `human` as text, or `data` as one JSON line with --json); closed(): the reader went away. */
export function recordWriter(io: ToolIo): { out: (human: string, data: Record<string, unknown>) => void; closed: () => boolean } {
  let closed = false;
  io.stdout.on('error', () => (closed = true));
  return {
    out: (human, data) => {
      if (!closed) io.stdout.write(io.json ? `${JSON.stringify(data)}\n` : `${human}\n`);
    },
    closed: () => closed,
  };
}

/** Exit 1 for a data dir storage refused (saying why); anything else is rethrown. */
export function refusedDir(e: unknown, io: ToolIo): number {
  if (!(e instanceof DataDirError)) throw e;
  io.stderr.write(`lockctl: ${e.message}\n`);
  return 1;
}
