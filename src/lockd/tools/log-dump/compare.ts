// `lockctl log dump --data-dir DIR --compare DIR2`: two stopped nodes' logs side by side, entry by
// entry over the indexes both hold (a compacted prefix lives only in a snapshot), and the first
// index where they differ — term, kind or bytes: a divergent tail a new leader has not replaced
// yet — or "identical up to N". Both dirs are read through src/lockd/storage, checked as a starting
// node would; two clusters' dirs are refused, as is one dir twice.
import { realpathSync } from 'node:fs';
import type { ToolIo } from '../../../client/lockctl/tools.js';
import type { Entry } from '../../../raft/types.js';
import { DataDirReader } from '../../storage/index.js';
import { recordWriter, refusedDir } from './dump-io.js';
import { decodeEntry } from './decode-entry.js';

/** What one dir's log holds: its first and last entry (undefined: none). */
interface LogRange {
  first?: number;
  last?: number;
}

export async function runLogCompare(dirA: string, dirB: string, io: ToolIo): Promise<number> {
  if (samePath(dirA, dirB)) {
    io.stderr.write(`lockctl: --compare ${dirB} is the same data dir as --data-dir: nothing to compare\n`);
    return 2;
  }
  const readers: DataDirReader[] = [];
  try {
    for (const dir of [dirA, dirB]) readers.push(await DataDirReader.open(dir));
    const [a, b] = readers;
    if (a.identity.clusterId !== b.identity.clusterId) {
      io.stderr.write(
        `lockctl: ${b.dir} is node ${b.identity.nodeId} of cluster ${b.identity.clusterId}, not of ${a.identity.clusterId} (${a.dir}): two clusters' logs have nothing in common\n`,
      );
      return 1;
    }
    const { out } = recordWriter(io);
    for (const r of readers) {
      const hs = r.hardState;
      const snap = r.snapshot ? `, snapshot at ${r.snapshot.metadata.index} (term ${r.snapshot.metadata.term})` : '';
      out(
        `data dir ${r.dir}: node ${r.identity.nodeId} of cluster ${r.identity.clusterId}; ${hs ? `term ${hs.term}, commit index ${hs.commit}` : 'no hard state'}${snap}`,
        {
          dataDir: r.dir,
          nodeId: r.identity.nodeId,
          clusterId: r.identity.clusterId,
          hardState: hs ?? null,
          snapshotIndex: r.snapshot?.metadata.index ?? null,
        },
      );
    }
    const result = await firstDifference(a, b);
    const [na, nb] = [a.identity.nodeId, b.identity.nodeId];
    const ranges = `${na}'s log ${span(result.a)}, ${nb}'s ${span(result.b)}`;
    const common = result.compared.first === undefined ? undefined : `${result.compared.first}..${result.compared.last}`;
    if (result.diff) {
      const { index, x, y } = result.diff;
      const same = index - 1 >= (result.compared.first ?? index) ? `identical up to ${index - 1}` : 'nothing identical before it';
      out(`first difference at index ${index} (${same}; ${ranges})`, {
        firstDifference: index,
        identicalUpTo: index - 1 >= (result.compared.first ?? index) ? index - 1 : null,
        compared: result.compared,
        logs: { [na]: result.a, [nb]: result.b },
      });
      for (const [node, e] of [
        [na, x],
        [nb, y],
      ] as const) {
        const d = e ? decodeEntry(e) : undefined;
        out(
          `  ${node.padEnd(6)} ${e && d ? `${String(e.index).padStart(8)}  ${String(e.term).padStart(5)}  ${d.type.padEnd(11)}  ${d.text}` : `(no entry ${index})`}`,
          { node, entry: e && d ? { index: e.index, term: e.term, type: d.type, command: d.command ?? null } : null },
        );
      }
    } else if (common === undefined) {
      out(`no index in common (${ranges}): nothing to compare`, {
        firstDifference: null,
        identicalUpTo: null,
        compared: null,
        logs: { [na]: result.a, [nb]: result.b },
      });
    } else {
      const longer =
        result.a.last !== result.b.last
          ? `; ${(result.a.last ?? 0) > (result.b.last ?? 0) ? `${na}'s goes on to ${result.a.last}` : `${nb}'s goes on to ${result.b.last}`}`
          : '';
      out(`identical up to ${result.compared.last}: entries ${common} compared (${ranges})${longer}`, {
        firstDifference: null,
        identicalUpTo: result.compared.last,
        compared: result.compared,
        logs: { [na]: result.a, [nb]: result.b },
      });
    }
    return 0;
  } catch (e) {
    return refusedDir(e, io);
  } finally {
    for (const r of readers) await r.close();
  }
}

/**
 * Walk both logs in index order. From the later of their first entries on, every index is compared
 * (term, kind, bytes) until one log ends; an index one log skips (never in a sound dir) is a
 * difference too.
 */
async function firstDifference(
  a: DataDirReader,
  b: DataDirReader,
): Promise<{ a: LogRange; b: LogRange; compared: LogRange; diff?: { index: number; x?: Entry; y?: Entry } }> {
  const ra: LogRange = {};
  const rb: LogRange = {};
  const compared: LogRange = {};
  const ia = a.entries()[Symbol.asyncIterator]();
  const ib = b.entries()[Symbol.asyncIterator]();
  const next = async (it: AsyncIterator<Entry>, r: LogRange): Promise<Entry | undefined> => {
    const n = await it.next();
    if (n.done) return undefined;
    r.first ??= n.value.index;
    r.last = n.value.index;
    return n.value;
  };
  let x = await next(ia, ra);
  let y = await next(ib, rb);
  // The prefix only one log still holds (the other compacted it into its snapshot) is not compared.
  while (x && y && x.index !== y.index) {
    if (x.index < y.index) x = await next(ia, ra);
    else y = await next(ib, rb);
  }
  let diff: { index: number; x?: Entry; y?: Entry } | undefined;
  while (x && y) {
    if (x.index !== y.index) {
      const index = Math.min(x.index, y.index);
      diff = x.index === index ? { index, x } : { index, y };
      break;
    }
    if (!sameEntry(x, y)) {
      diff = { index: x.index, x, y };
      break;
    }
    compared.first ??= x.index;
    compared.last = x.index;
    x = await next(ia, ra);
    y = await next(ib, rb);
  }
  // Read each log to its end for its range (a difference stops the comparison, not the count).
  while (x) x = await next(ia, ra);
  while (y) y = await next(ib, rb);
  return { a: ra, b: rb, compared, ...(diff ? { diff } : {}) };
}

function sameEntry(x: Entry, y: Entry): boolean {
  return x.term === y.term && x.type === y.type && Buffer.compare(x.data, y.data) === 0;
}

function span(r: LogRange): string {
  return r.first === undefined ? 'is empty' : `${r.first}..${r.last}`;
}

function samePath(p: string, q: string): boolean {
  try {
    return realpathSync(p) === realpathSync(q);
  } catch {
    return false; // a path that does not exist: DataDirReader says so
  }
}
