// One log entry decoded for people (lockctl log dump and --compare): its type (a command's, noop,
// config), its fields as text and as data.
import type { Entry } from '../../../raft/types.js';
import { decodeConfigEntry } from '../../../raft/index.js';
import { CommandDecodeError, decodeCommand, type Command } from '../../state-machine/index.js';

/** A value (a fenced write's bytes) is shown up to this many characters. */
const MAX_VALUE_CHARS = 64;

export interface Decoded {
  readonly type: string;
  readonly text: string;
  readonly command?: Record<string, unknown>;
  readonly error?: string;
}

export function decodeEntry(e: Entry): Decoded {
  if (e.type === 'config') return decodeConfig(e);
  if (e.data.length === 0) return { type: 'noop', text: "(a new leader's empty entry)" };
  let cmd: Command;
  try {
    cmd = decodeCommand(e.data);
  } catch (err) {
    if (!(err instanceof CommandDecodeError)) throw err;
    return { type: '?', text: `undecodable (${e.data.length} bytes): ${err.message}`, error: err.message };
  }
  const { type, ...fields } = cmd;
  const shown = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v instanceof Uint8Array ? showBytes(v) : v]));
  return {
    type,
    text: Object.entries(shown)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' '),
    command: shown,
  };
}

/** Bytes as text when they are printable UTF-8, else hex; cut at MAX_VALUE_CHARS. */
function showBytes(b: Uint8Array): string {
  const text = Buffer.from(b).toString('utf8');
  const printable = !/[\p{Cc}\uFFFD]/u.test(text);
  const body = printable ? JSON.stringify(text) : `0x${Buffer.from(b).toString('hex')}`;
  return `${body.length > MAX_VALUE_CHARS ? `${body.slice(0, MAX_VALUE_CHARS)}…` : body} (${b.length} bytes)`;
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
    return {
      type: 'config',
      text: `${change.op} ${change.node} → voters ${config.voters.join(',')}${config.learners.length ? ` learners ${config.learners.join(',')}` : ''}${mark}`,
      command,
    };
  } catch (err) {
    return { type: '?', text: `undecodable config entry (${e.data.length} bytes): ${(err as Error).message}`, error: (err as Error).message };
  }
}
