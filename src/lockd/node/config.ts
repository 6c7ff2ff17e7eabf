// Node configuration from flags (and LOCKD_* environment variables). Every value is checked here,
// at start, so a mistake is a clear message and exit code 2 — never a crash later.
import { parseArgs } from 'node:util';
import type { NodeId } from '../../raft/types.js';

export interface NodeConfig {
  readonly id: NodeId;
  /** host:port this node's gRPC server binds (peer protocol and public API on one port). */
  readonly listen: string;
  /** Every voter, this node included: id → host:port. */
  readonly peers: ReadonlyMap<NodeId, string>;
  readonly dataDir: string;
  readonly clusterId: string;
  readonly tickMs: number;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly snapshotEvery: number;
  readonly logLevel: string;
  /** host:port of the HTTP endpoint (/metrics, /livez, /readyz, /events); undefined = off. */
  readonly httpListen?: string;
}

export class ConfigError extends Error {}

const USAGE = `usage: lockd --id ID --listen HOST:PORT --peers ID=HOST:PORT,... --data-dir DIR --cluster-id NAME
             [--tick-ms 50] [--election-ticks 20] [--heartbeat-ticks 2] [--snapshot-every 10000] [--log-level info]
             [--http-listen HOST:PORT]
Each flag may also come from the environment: LOCKD_ID, LOCKD_LISTEN, LOCKD_PEERS, LOCKD_DATA_DIR,
LOCKD_CLUSTER_ID, LOCKD_TICK_MS, LOCKD_ELECTION_TICKS, LOCKD_HEARTBEAT_TICKS, LOCKD_SNAPSHOT_EVERY, LOCKD_LOG_LEVEL,
LOCKD_HTTP_LISTEN.`;

const FLAGS = ['id', 'listen', 'peers', 'data-dir', 'cluster-id', 'tick-ms', 'election-ticks', 'heartbeat-ticks', 'snapshot-every', 'log-level', 'http-listen'] as const;
type Flag = (typeof FLAGS)[number];

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): NodeConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { ...Object.fromEntries(FLAGS.map((f) => [f, { type: 'string' as const }])), help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new ConfigError(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new ConfigError(USAGE);
  const get = (flag: Flag): string | undefined => {
    const v = values[flag] ?? env[`LOCKD_${flag.toUpperCase().replace(/-/g, '_')}`];
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const required = (flag: Flag): string => {
    const v = get(flag);
    if (v === undefined) throw new ConfigError(`missing --${flag}\n${USAGE}`);
    return v;
  };
  const int = (flag: Flag, def: number, min: number, max: number): number => {
    const raw = get(flag);
    if (raw === undefined) return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`--${flag} must be an integer in [${min}, ${max}], got "${raw}"`);
    return n;
  };

  const id = required('id');
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new ConfigError(`--id "${id}": use 1-64 letters, digits, '.', '_' or '-'`);
  const listen = checkAddress('listen', required('listen'));
  const peers = parsePeers(required('peers'));
  if (!peers.has(id)) throw new ConfigError(`--peers must include this node (${id}); got ${[...peers.keys()].join(', ')}`);
  if (peers.size % 2 === 0) throw new ConfigError(`--peers lists ${peers.size} nodes; use an odd number (3 or 5) so a majority survives a failure`);
  const clusterId = required('cluster-id');
  const tickMs = int('tick-ms', 50, 1, 10_000);
  const heartbeatTicks = int('heartbeat-ticks', 2, 1, 1000);
  const electionTicks = int('election-ticks', 20, 2, 100_000);
  if (electionTicks <= heartbeatTicks) throw new ConfigError(`--election-ticks (${electionTicks}) must exceed --heartbeat-ticks (${heartbeatTicks})`);
  const logLevel = get('log-level') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) throw new ConfigError(`--log-level "${logLevel}" is not a pino level`);
  const httpRaw = get('http-listen');
  const httpListen = httpRaw === undefined ? undefined : checkAddress('--http-listen', httpRaw);
  return {
    id,
    listen,
    peers,
    dataDir: required('data-dir'),
    clusterId,
    tickMs,
    electionTicks,
    heartbeatTicks,
    snapshotEvery: int('snapshot-every', 10_000, 1, 10_000_000),
    logLevel,
    ...(httpListen === undefined ? {} : { httpListen }),
  };
}

function checkAddress(what: string, address: string): string {
  const m = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(address);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new ConfigError(`${what} "${address}" is not HOST:PORT`);
  return address;
}

function parsePeers(raw: string): Map<NodeId, string> {
  const peers = new Map<NodeId, string>();
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--peers entry "${part}" is not ID=HOST:PORT`);
    const id = part.slice(0, eq);
    if (peers.has(id)) throw new ConfigError(`--peers names ${id} twice`);
    peers.set(id, checkAddress(`--peers entry for ${id}`, part.slice(eq + 1)));
  }
  if (peers.size === 0) throw new ConfigError('--peers is empty');
  return peers;
}
