// `lockctl log dump --data-dir DIR [--from INDEX] [--type T] [--exclude T,...]`: a stopped node's data dir for people,
// (`--compare DIR2`: two nodes' logs entry by entry, compare.ts)
// in the spirit of etcd-dump-logs — whose dir it is, its hard state, its snapshot's summary (index,
// term, configuration, what the state holds) and its log entries decoded (index, term, type,
// command), and where the log ends (last term, last index: the up-to-date rule). It reads through src/lockd/storage, which refuses a running node's dir (LevelDB's lock)
// and anything that is not a lockd data dir; exit 1 then, with the reason.
import type { ToolIo } from '../../../client/lockctl/tools.js';
import type { Snapshot } from '../../../raft/types.js';
import { COMMAND_TYPES } from '../../state-machine/index.js';
import { decodeState } from '../../state-machine/snapshot-codec.js';
import { DataDirReader } from '../../storage/index.js';
import { recordWriter, refusedDir } from './dump-io.js';
import { runLogCompare } from './compare.js';
import { decodeEntry } from './decode-entry.js';
import { Replay } from './replay.js';

/** --type takes a command type (Grant, Tick, ...) or noop, the empty entry a new leader appends. */
export const ENTRY_TYPES: readonly string[] = ['noop', ...COMMAND_TYPES, 'config'];

/** An entry type as --type and --exclude name it (any case), or undefined. */
function entryType(name: string): string | undefined {
  return ENTRY_TYPES.find((t) => t.toLowerCase() === name.trim().toLowerCase());
}

interface DumpOptions {
  readonly dataDir: string;
  readonly from?: number;
  readonly type?: string;
  readonly exclude?: string;
  readonly compare?: string;
  /** Each entry's outcome, from a replay of the state machine (replay.ts). */
  readonly outcomes?: boolean;
}

/** The entries shown: of one type (--type), without some (--exclude). */
interface Filters {
  readonly type: string | undefined;
  readonly exclude: ReadonlySet<string>;
}

/** A line for people, or its JSON object with --json. */
type Out = (human: string, data: Record<string, unknown>) => void;

/** What the dump saw of the log from --from on. */
interface Seen {
  shown: number;
  first: number | undefined;
  last: number | undefined;
  lastTerm: number | undefined;
}

export async function runLogDump(opts: DumpOptions, io: ToolIo): Promise<number> {
  if (opts.compare !== undefined) {
    if (opts.from !== undefined || opts.type !== undefined || opts.exclude !== undefined || opts.outcomes) {
      io.stderr.write('lockctl: --compare compares whole logs: it takes no --from, --type, --exclude or --outcomes\n');
      return 2;
    }
    return runLogCompare(opts.dataDir, opts.compare, io);
  }
  const filters = parseFilters(opts, io);
  if (filters === undefined) return 2;
  let reader: DataDirReader;
  try {
    reader = await DataDirReader.open(opts.dataDir);
  } catch (e) {
    return refusedDir(e, io);
  }
  // A reader that stops reading (| head) ends the dump quietly.
  const { out, closed } = recordWriter(io);
  try {
    const snap = printHeader(reader, out);
    if (!io.json) io.stdout.write(`${'INDEX'.padStart(8)}  ${'TERM'.padStart(5)}  ${'NOW ms'.padStart(9)}  ${'TYPE'.padEnd(11)}  COMMAND\n`);
    const seen = await printEntries(reader, opts, filters, snap, out, closed);
    printSummary(reader, opts, filters, seen, out);
    return 0;
  } catch (e) {
    return refusedDir(e, io);
  } finally {
    await reader.close();
  }
}

/** --type and --exclude as entry types; undefined (after saying why) if one names none. */
function parseFilters(opts: DumpOptions, io: ToolIo): Filters | undefined {
  const type = opts.type === undefined ? undefined : entryType(opts.type);
  if (opts.type !== undefined && type === undefined) {
    io.stderr.write(`lockctl: --type ${JSON.stringify(opts.type)} is not an entry type; one of: ${ENTRY_TYPES.join(', ')}\n`);
    return undefined;
  }
  // --exclude Tick,noop: the routine entries left out (Ticks are most of a log).
  const excludeNames = opts.exclude === undefined ? [] : opts.exclude.split(',').filter((x) => x.trim() !== '');
  const exclude = new Set<string>();
  for (const name of excludeNames) {
    const t = entryType(name);
    if (t === undefined) {
      io.stderr.write(`lockctl: --exclude ${JSON.stringify(name)} is not an entry type; one of: ${ENTRY_TYPES.join(', ')}\n`);
      return undefined;
    }
    exclude.add(t);
  }
  return { type, exclude };
}

/** Whose dir it is, its hard state and its snapshot's summary (returned: the entries' clock starts from it). */
function printHeader(reader: DataDirReader, out: Out): ReturnType<typeof summarize> | undefined {
  const { identity: id, configuration: config, hardState: hs, snapshot } = reader;
  out(`data dir ${reader.dir}: node ${id.nodeId} of cluster ${id.clusterId}, voters ${config?.voters.join(', ') ?? '(not recorded)'}`, {
    dataDir: reader.dir,
    nodeId: id.nodeId,
    clusterId: id.clusterId,
    voters: config?.voters ?? null,
  });
  out(hs ? `hard state: term ${hs.term}, voted for ${hs.vote || '(nobody)'}, commit index ${hs.commit}` : 'hard state: none (never written)', {
    hardState: hs ?? null,
  });
  const snap = snapshot ? summarize(snapshot) : undefined;
  out(snap ? `snapshot: ${snap.text}` : 'snapshot: none (the log starts at entry 1)', { snapshot: snap?.data ?? null });
  return snap;
}

/** One line per entry from --from on that the filters let through. */
async function printEntries(
  reader: DataDirReader,
  opts: DumpOptions,
  { type, exclude }: Filters,
  snap: ReturnType<typeof summarize> | undefined,
  out: Out,
  closed: () => boolean,
): Promise<Seen> {
  const { snapshot } = reader;
  const seen: Seen = { shown: 0, first: undefined, last: undefined, lastTerm: undefined };
  // The logical clock after each entry, as the state machine moves it: the snapshot's now (0 for a
  // log from entry 1) plus every Tick's elapsed time. Every entry is read for it, those before
  // --from too; unknown ('?') when the log does not start right after the snapshot.
  const start = snapshot ? snapshot.metadata.index + 1 : 1;
  const base = snapshot ? (snap?.data.logicalNowMs as number | undefined) : 0;
  let now: number | undefined;
  let prev: number | undefined;
  // Every entry from the snapshot on is applied (shown or not), so each shown outcome is the one it had.
  const replay = opts.outcomes ? new Replay(snapshot) : undefined;
  for await (const e of reader.entries(Math.min(start, opts.from ?? 1))) {
    if (closed()) break;
    if (e.index === start) now = base;
    else if (prev === undefined || e.index !== prev + 1) now = undefined; // before the snapshot, or a gap: unknown
    prev = e.index;
    const d = decodeEntry(e);
    if (d.type === 'Tick' && now !== undefined) now += (d.command?.elapsedMs as number | undefined) ?? 0;
    const outcome = replay?.outcome(e);
    if (e.index < (opts.from ?? 1)) continue;
    seen.first ??= e.index;
    seen.last = e.index;
    seen.lastTerm = e.term;
    if (type !== undefined && d.type !== type) continue;
    if (exclude.has(d.type)) continue;
    seen.shown++;
    out(
      `${String(e.index).padStart(8)}  ${String(e.term).padStart(5)}  ${(now === undefined ? '?' : String(now)).padStart(9)}  ${d.type.padEnd(11)}  ${d.text}${outcome ? `  ⇒ ${outcome.text}` : ''}`,
      {
        index: e.index,
        term: e.term,
        logicalNowMs: now ?? null,
        type: d.type,
        command: d.command ?? null,
        ...(d.error ? { error: d.error } : {}),
        ...(outcome ? { outcome: outcome.data } : {}),
      },
    );
  }
  return seen;
}

/** The range read, the filters, how many shown, and where the log ends. */
function printSummary(reader: DataDirReader, opts: DumpOptions, { type, exclude }: Filters, { shown, first, last, lastTerm }: Seen, out: Out): void {
  const { snapshot } = reader;
  const range = first === undefined ? 'no entries' : `entries ${first}..${last}`;
  const filters = [
    opts.from === undefined ? '' : `from ${opts.from}`,
    type === undefined ? '' : `of type ${type}`,
    exclude.size === 0 ? '' : `without ${[...exclude].join(', ')}`,
  ]
    .filter(Boolean)
    .join(', ');
  // Where the log ends, as Raft's up-to-date rule compares logs (last term first, then last
  // index): what picks the survivor for --force-new-cluster. With no entries it ends at the
  // snapshot; unknown when --from skipped past every entry.
  const end =
    last !== undefined && lastTerm !== undefined
      ? { term: lastTerm, index: last }
      : opts.from === undefined
        ? { term: snapshot?.metadata.term ?? 0, index: snapshot?.metadata.index ?? 0 }
        : undefined;
  const ends = end ? `; the log ends at term ${end.term}, index ${end.index}` : '';
  out(`${range}${filters ? ` (${filters})` : ''}: ${shown} shown${ends}`, {
    shown,
    first: first ?? null,
    last: last ?? null,
    lastTerm: lastTerm ?? null,
    logEnd: end ?? null,
  });
}

function summarize(s: Snapshot): { text: string; data: Record<string, unknown> } {
  const meta = { index: s.metadata.index, term: s.metadata.term, voters: s.metadata.voters, bytes: s.data.length };
  const head = `index ${meta.index}, term ${meta.term}, voters ${meta.voters.join(', ')}, ${meta.bytes} bytes`;
  try {
    const st = decodeState(s.data);
    const waiters = [...st.locks.values()].reduce((n, l) => n + l.waiters.length, 0);
    const counts = { logicalNowMs: st.now, leases: st.leases.size, locks: st.locks.size, waiters, fencedKeys: st.fence.size, requestIds: st.dedup.size };
    return {
      text: `${head}: logical now ${counts.logicalNowMs} ms, ${counts.leases} leases, ${counts.locks} locks held (${waiters} waiting), ${counts.fencedKeys} fenced keys, ${counts.requestIds} request ids remembered`,
      data: { ...meta, ...counts },
    };
  } catch (e) {
    return { text: `${head}: state undecodable (${(e as Error).message})`, data: { ...meta, error: (e as Error).message } };
  }
}
