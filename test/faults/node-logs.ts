// What the node logs say about a run: error and fatal entries, and anything that is not a pino JSON
// line (an uncaught exception's stack, a crash message) — a node must never crash under faults.
import { readFileSync } from 'node:fs';

export interface NodeLogScan {
  errors: number;
  fatal: number;
  /** Lines that are not structured log entries, with the node they came from (first few). */
  stray: string[];
}

export function scanNodeLogs(files: ReadonlyMap<string, string>): NodeLogScan {
  const out: NodeLogScan = { errors: 0, fatal: 0, stray: [] };
  for (const [node, file] of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      if (!line.startsWith('{')) {
        if (out.stray.length < 10) out.stray.push(`${node}: ${line.slice(0, 300)}`);
        continue;
      }
      const m = /"level":(\d+)/.exec(line);
      const level = m ? Number(m[1]) : 0;
      if (level >= 60) out.fatal++;
      else if (level >= 50) out.errors++;
    }
  }
  return out;
}
