// Node configuration from flags (and LOCKD_* environment variables). Every value is checked here,
// at start, so a mistake is a clear message and exit code 2 — never a crash later.
import { parseArgs } from 'node:util';
import type { NodeId } from '../../raft/types.js';

export interface NodeConfig {
  readonly id: NodeId;
  /** host:port the public client API (lockd.v1) binds. */
  readonly listen: string;
  /** host:port the peer service binds: Raft (raft.v1) and follower→leader forwarding, nothing else. */
  readonly peerListen: string;
  /** The client address this node tells peers (and through them, clients) to dial; default: listen. */
  readonly advertiseClient: string;
  /** The peer address others dial for this node; default: peerListen. Must match this node's --peers entry. */
  readonly advertisePeer: string;
  /** Every voter, this node included: id → host:port of its PEER listener. */
  readonly peers: ReadonlyMap<NodeId, string>;
  /** PEM files; when set, both listeners and every outbound channel use TLS and peers authenticate each other. */
  readonly tls?: TlsFiles;
  /** Require and verify client certificates on the public port (needs tls). */
  readonly clientCertAuth: boolean;
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

export interface TlsFiles {
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
}

export class ConfigError extends Error {}

const USAGE = `usage: lockd --id ID --listen HOST:PORT --peer-listen HOST:PORT --peers ID=PEER_HOST:PORT,... --data-dir DIR --cluster-id NAME
             [--advertise-client HOST:PORT] [--advertise-peer HOST:PORT]
             [--tls-cert FILE --tls-key FILE --tls-ca FILE [--client-cert-auth]]
             [--tick-ms 50] [--election-ticks 20] [--heartbeat-ticks 2] [--snapshot-every 10000] [--log-level info]
             [--http-listen HOST:PORT]
Each flag may also come from the environment: LOCKD_ID, LOCKD_LISTEN, LOCKD_PEER_LISTEN, LOCKD_PEERS, ...
(upper case, '-' as '_'; LOCKD_CLIENT_CERT_AUTH=1 for the switch).`;

const FLAGS = [
  'id', 'listen', 'peer-listen', 'advertise-client', 'advertise-peer', 'peers', 'data-dir', 'cluster-id',
  'tls-cert', 'tls-key', 'tls-ca', 'tick-ms', 'election-ticks', 'heartbeat-ticks', 'snapshot-every', 'log-level',
  'http-listen',
] as const;
type Flag = (typeof FLAGS)[number];

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): NodeConfig {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { ...Object.fromEntries(FLAGS.map((f) => [f, { type: 'string' as const }])), 'client-cert-auth': { type: 'boolean' }, help: { type: 'boolean' } },
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
  if (!NODE_ID_PATTERN.test(id)) throw new ConfigError(`--id "${id}": use 1-64 letters, digits, '.', '_' or '-'`);
  const listen = checkAddress('--listen', required('listen'));
  const peerListen = checkAddress('--peer-listen', required('peer-listen'));
  if (listen === peerListen) throw new ConfigError(`--listen and --peer-listen are both ${listen}: the client API and the peer service need a port each`);
  const advertiseClient = checkAdvertised('--advertise-client', get('advertise-client') ?? listen);
  const advertisePeer = checkAdvertised('--advertise-peer', get('advertise-peer') ?? peerListen);
  const peers = parsePeers(required('peers'));
  if (!peers.has(id)) throw new ConfigError(`--peers must include this node (${id}); got ${[...peers.keys()].join(', ')}`);
  if (peers.get(id) !== advertisePeer)
    throw new ConfigError(`--peers says ${id} is at ${peers.get(id)}, but this node's peer address is ${advertisePeer} (--advertise-peer, default --peer-listen): --peers names PEER addresses`);
  const tlsParts = { cert: get('tls-cert'), key: get('tls-key'), ca: get('tls-ca') };
  const tlsGiven = Object.values(tlsParts).filter((v) => v !== undefined).length;
  if (tlsGiven !== 0 && tlsGiven !== 3) throw new ConfigError('--tls-cert, --tls-key and --tls-ca go together: give all three or none');
  const tls = tlsGiven === 3 ? (tlsParts as TlsFiles) : undefined;
  const certAuthRaw = values['client-cert-auth'] === true ? 'true' : env.LOCKD_CLIENT_CERT_AUTH;
  if (certAuthRaw !== undefined && certAuthRaw !== '' && !['1', 'true', '0', 'false'].includes(certAuthRaw))
    throw new ConfigError(`LOCKD_CLIENT_CERT_AUTH must be 1, true, 0 or false, got "${certAuthRaw}"`);
  const clientCertAuth = certAuthRaw === '1' || certAuthRaw === 'true';
  if (clientCertAuth && !tls) throw new ConfigError('--client-cert-auth needs TLS: give --tls-cert, --tls-key and --tls-ca');
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
    peerListen,
    advertiseClient,
    advertisePeer,
    peers,
    ...(tls ? { tls } : {}),
    clientCertAuth,
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

/** A member id (--id, and any id a client names, e.g. Cluster.TransferLeader's target). */
export const NODE_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * HOST:PORT, as a peer or a client may be told it (also what a peer's handshake is checked with).
 * HOST is an IPv4 address, a bracketed IPv6 one, or a DNS name (RFC 1123 labels: letters, digits
 * and inner '-', at most 63 each, 253 in all; a trailing '.' allowed), e.g. `localhost:7001` or
 * `lockd-0.lockd-peers.default.svc.cluster.local:7101`. A name is resolved by gRPC when it dials
 * and again when a connection to it is lost (peer-transport.ts DNS_RERESOLVE_MS), so a member that
 * comes back at a new IP address under the same name is found again.
 */
export const ADDRESS_PATTERN = /^((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?|\[[0-9a-fA-F:.]{2,45}\]):(\d{1,5})$/;

export function isAddress(address: string): boolean {
  const m = ADDRESS_PATTERN.exec(address);
  return !!m && m[1].length <= 253 && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

function checkAddress(what: string, address: string): string {
  if (!isAddress(address)) throw new ConfigError(`${what} "${address}" is not HOST:PORT`);
  return address;
}

/** An address others dial: a wildcard bind address cannot be one. */
function checkAdvertised(what: string, address: string): string {
  checkAddress(what, address);
  if (/^(0\.0\.0\.0|\[::\]|\[0*(:0*)*\]):/.test(address)) throw new ConfigError(`${what} is ${address}, which nobody can dial: set ${what} to a reachable HOST:PORT`);
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
