// `lockctl log dump --data-dir DIR [--from INDEX] [--type T] [--exclude T,...]`: a stopped node's data dir for people,
// in the spirit of etcd-dump-logs — whose dir it is, its hard state, its snapshot's summary (index,
// term, configuration, what the state holds) and its log entries decoded (index, term, type,
// command), and where the log ends (last term, last index: the up-to-date rule). It reads through src/lockd/storage, which refuses a running node's dir (LevelDB's lock)
// and anything that is not a lockd data dir; exit 1 then, with the reason.
import type { ToolIo } from '../../../client/lockctl/tools.js';
import type { Entry, Snapshot } from '../../../raft/types.js';
import { decodeConfigEntry } from '../../../raft/index.js';
import { COMMAND_TYPES, CommandDecodeError, decodeCommand, type Command } from '../../state-machine/index.js';
import { decodeState } from '../../state-machine/snapshot-codec.js';
import { DataDirError, DataDirReader } from '../../storage/index.js';

/** --type takes a command type (Grant, Tick, ...) or noop, the empty entry a new leader appends. */
export const ENTRY_TYPES: readonly string[] = ['noop', ...COMMAND_TYPES, 'config'];
/** A value (a fenced write's bytes) is shown up to this many characters. */
const MAX_VALUE_CHARS = 64;

/** An entry type as --type and --exclude name it (any case), or undefined. */
function entryType(name: string): string | undefined {
  return ENTRY_TYPES.find((t) => t.toLowerCase() === name.trim().toLowerCase());
}

interface DumpOptions {
  readonly dataDir: string;
  readonly from?: number;
  readonly type?: string;
  readonly exclude?: string;
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
  const filters = parseFilters(opts, io);
  if (filters === undefined) return 2;
  let reader: DataDirReader;
  try {
    reader = await DataDirReader.open(opts.dataDir);
  } catch (e) {
    if (!(e instanceof DataDirError)) throw e;
    io.stderr.write(`lockctl: ${e.message}\n`);
    return 1;
  }
  // A reader that stops reading (| head) ends the dump quietly.
  let closed = false;
  io.stdout.on('error', () => (closed = true));
  const out: Out = (human, data) => {
    if (!closed) io.stdout.write(io.json ? `${JSON.stringify(data)}\n` : `${human}\n`);
  };
  try {
    const snap = printHeader(reader, out);
    if (!io.json) io.stdout.write(`${'INDEX'.padStart(8)}  ${'TERM'.padStart(5)}  ${'NOW ms'.padStart(9)}  ${'TYPE'.padEnd(11)}  COMMAND\n`);
    const seen = await printEntries(reader, opts, filters, snap, out, () => closed);
    printSummary(reader, opts, filters, seen, out);
    return 0;
  } catch (e) {
    if (!(e instanceof DataDirError)) throw e;
    io.stderr.write(`lockctl: ${e.message}\n`);
    return 1;
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
  out(`data dir ${reader.dir}: node ${id.nodeId} of cluster ${id.clusterId}, voters ${config?.voters.join(', ') ?? '(not recorded)'}`, { dataDir: reader.dir, nodeId: id.nodeId, clusterId: id.clusterId, voters: config?.voters ?? null });
  out(hs ? `hard state: term ${hs.term}, voted for ${hs.vote || '(nobody)'}, commit index ${hs.commit}` : 'hard state: none (never written)', { hardState: hs ?? null });
  const snap = snapshot ? summarize(snapshot) : undefined;
  out(snap ? `snapshot: ${snap.text}` : 'snapshot: none (the log starts at entry 1)', { snapshot: snap?.data ?? null });
  return snap;
}

/** One line per entry from --from on that the filters let through. */
async function printEntries(reader: DataDirReader, opts: DumpOptions, { type, exclude }: Filters, snap: ReturnType<typeof summarize> | undefined, out: Out, closed: () => boolean): Promise<Seen> {
  const { snapshot } = reader;
  const seen: Seen = { shown: 0, first: undefined, last: undefined, lastTerm: undefined };
  // The logical clock after each entry, as the state machine moves it: the snapshot's now (0 for a
  // log from entry 1) plus every Tick's elapsed time. Every entry is read for it, those before
  // --from too; unknown ('?') when the log does not start right after the snapshot.
  const start = snapshot ? snapshot.metadata.index + 1 : 1;
  const base = snapshot ? (snap?.data.logicalNowMs as number | undefined) : 0;
  let now: number | undefined;
  let prev: number | undefined;
  for await (const e of reader.entries(Math.min(start, opts.from ?? 1))) {
    if (closed()) break;
    if (e.index === start) now = base;
    else if (prev === undefined || e.index !== prev + 1) now = undefined; // before the snapshot, or a gap: unknown
    prev = e.index;
    const d = decodeEntry(e);
    if (d.type === 'Tick' && now !== undefined) now += (d.command?.elapsedMs as number | undefined) ?? 0;
    if (e.index < (opts.from ?? 1)) continue;
    seen.first ??= e.index;
    seen.last = e.index;
    seen.lastTerm = e.term;
    if (type !== undefined && d.type !== type) continue;
    if (exclude.has(d.type)) continue;
    seen.shown++;
    out(`${String(e.index).padStart(8)}  ${String(e.term).padStart(5)}  ${(now === undefined ? '?' : String(now)).padStart(9)}  ${d.type.padEnd(11)}  ${d.text}`, { index: e.index, term: e.term, logicalNowMs: now ?? null, type: d.type, command: d.command ?? null, ...(d.error ? { error: d.error } : {}) });
  }
  return seen;
}

/** The range read, the filters, how many shown, and where the log ends. */
function printSummary(reader: DataDirReader, opts: DumpOptions, { type, exclude }: Filters, { shown, first, last, lastTerm }: Seen, out: Out): void {
  const { snapshot } = reader;
  const range = first === undefined ? 'no entries' : `entries ${first}..${last}`;
  const filters = [opts.from === undefined ? '' : `from ${opts.from}`, type === undefined ? '' : `of type ${type}`, exclude.size === 0 ? '' : `without ${[...exclude].join(', ')}`].filter(Boolean).join(', ');
  // Where the log ends, as Raft's up-to-date rule compares logs (last term first, then last
  // index): what picks the survivor for --force-new-cluster. With no entries it ends at the
  // snapshot; unknown when --from skipped past every entry.
  const end = last !== undefined && lastTerm !== undefined ? { term: lastTerm, index: last } : opts.from === undefined ? { term: snapshot?.metadata.term ?? 0, index: snapshot?.metadata.index ?? 0 } : undefined;
  const ends = end ? `; the log ends at term ${end.term}, index ${end.index}` : '';
  out(`${range}${filters ? ` (${filters})` : ''}: ${shown} shown${ends}`, { shown, first: first ?? null, last: last ?? null, lastTerm: lastTerm ?? null, logEnd: end ?? null });
}

interface Decoded {
  readonly type: string;
  readonly text: string;
  readonly command?: Record<string, unknown>;
  readonly error?: string;
}

function decodeEntry(e: Entry): Decoded {
  if (e.type === 'config') return decodeConfig(e);
  if (e.data.length === 0) return { type: 'noop', text: '(a new leader\'s empty entry)' };
  let cmd: Command;
  try {
    cmd = decodeCommand(e.data);
  } catch (err) {
    if (!(err instanceof CommandDecodeError)) throw err;
    return { type: '?', text: `undecodable (${e.data.length} bytes): ${err.message}`, error: err.message };
  }
  const { type, ...fields } = cmd;
  const shown = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Uint8Array ? showBytes(v) : v]));
  return { type, text: Object.entries(shown).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' '), command: shown };
}

/** Bytes as text when they are printable UTF-8, else hex; cut at MAX_VALUE_CHARS. */
function showBytes(b: Uint8Array): string {
  const text = Buffer.from(b).toString('utf8');
  const printable = !/[\p{Cc}\uFFFD]/u.test(text);
  const body = printable ? JSON.stringify(text) : `0x${Buffer.from(b).toString('hex')}`;
  return `${body.length > MAX_VALUE_CHARS ? `${body.slice(0, MAX_VALUE_CHARS)}…` : body} (${b.length} bytes)`;
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

/** A membership change: the change, the configuration after it, and --force-new-cluster's mark when it wrote it. */
function decodeConfig(e: Entry): Decoded {
  try {
    const { change, config } = decodeConfigEntry(e.data, 'log-dump', e.index);
    let forced: { by?: unknown; at?: unknown } | undefined;
    try {
      forced = change.context === undefined ? undefined : (JSON.parse(change.context) as { forced?: { by?: unknown; at?: unknown } }).forced;
    } catch {
      forced = undefined;
    }
    const mark = forced ? ` FORCED by ${String(forced.by)} at ${String(forced.at)} (--force-new-cluster)` : '';
    const command = { op: change.op, node: change.node, voters: config.voters, learners: config.learners, ...(forced ? { forced } : {}) };
    return { type: 'config', text: `${change.op} ${change.node} → voters ${config.voters.join(',')}${config.learners.length ? ` learners ${config.learners.join(',')}` : ''}${mark}`, command };
  } catch (err) {
    return { type: '?', text: `undecodable config entry (${e.data.length} bytes): ${(err as Error).message}`, error: (err as Error).message };
  }
}
