// Node configuration from flags (and LOCKD_* environment variables). Every value is checked here,
// at start, so a mistake is a clear message and exit code 2 — never a crash later.
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { NodeId } from '../../raft/types.js';
import { DEFAULT_BUMP, validatePrincipal } from '../state-machine/index.js';
import type { SecuritySettings, TlsFiles } from '../security/settings.js';
import { ADMISSION_FLAGS, type AdmissionSettings } from './admission-settings.js';

/** The security fields (tls, clientCertAuth, acl, admins) are the security layer's own: security/settings.ts. */
export interface NodeConfig extends SecuritySettings {
  readonly id: NodeId;
  /** host:port the public client API (lockd.v1) binds. */
  readonly listen: string;
  /** host:port the peer service binds: Raft (raft.v1) and follower→leader forwarding, nothing else. */
  readonly peerListen: string;
  /** The client address this node tells peers (and through them, clients) to dial; default: listen. */
  readonly advertiseClient: string;
  /** The peer address others dial for this node; default: peerListen. Must match this node's --peers entry. */
  readonly advertisePeer: string;
  /**
   * id → host:port of its PEER listener, this node included. On a fresh data dir (without --join)
   * these are the voters of a new cluster; once the data dir holds a configuration of its own (a
   * membership change happened) or was made by --join, only the addresses count.
   */
  readonly peers: ReadonlyMap<NodeId, string>;
  /**
   * A fresh data dir joins an existing cluster instead of founding one: the node starts with no
   * configuration, never campaigns, and learns the membership from the leader once an operator
   * added it (lockctl member add). --peers names the current members' peer addresses (and this node).
   */
  readonly join: boolean;
  /** A learner may be promoted once its match index is within this many entries of the commit index. */
  readonly promoteMaxLag: number;
  readonly dataDir: string;
  readonly clusterId: string;
  readonly tickMs: number;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly snapshotEvery: number;
  readonly logLevel: string;
  /** host:port of the HTTP endpoint (/metrics, /livez, /readyz, /events, the dashboard); undefined = off. */
  readonly httpListen?: string;
  /**
   * The HTTP address this node tells peers (and through them the dashboard) to reach its HTTP
   * endpoint at; default: httpListen unless that is a wildcard (then none is told).
   */
  readonly advertiseHttp?: string;
  /** Test-only: the fault command file SIGUSR2 reads (node/test-faults.ts); undefined = no faults (the default). */
  readonly unsafeTestFaults?: string;
  /**
   * Test-only (--unsafe-no-fsync, flag only): every LevelDB write unsynced, so a power cut loses
   * acknowledged state. The fault suite's control build (--no-fsync-control) shows with it that its
   * power cuts are real; never on a node that holds anything.
   */
  readonly unsafeNoFsync?: boolean;
  /**
   * Recovery from a lost quorum: before starting, make this voter's data dir a one-voter cluster
   * (node/force-start.ts, storage/force-new-cluster.ts); one-shot per data dir.
   */
  readonly forceNewCluster?: boolean;
  /** With forceNewCluster: force a data dir that was forced before and has members again. */
  readonly forceNewClusterAgain?: boolean;
  /** With forceNewCluster: how far past the survivor's last entry the new log starts (--bump-index, as lockd restore's). */
  readonly forceBumpIndex?: number;
  /** Limits of the public port: connections, streams, calls, outbound and inbound bytes (admission-settings.ts). */
  readonly admission: AdmissionSettings;
}

export class ConfigError extends Error {}

const USAGE = `usage: lockd --id ID --listen HOST:PORT --peer-listen HOST:PORT --peers ID=PEER_HOST:PORT,... --data-dir DIR --cluster-id-file FILE
             (or --cluster-id NAME, which every user of the host sees in ps: prefer the file)
             [--advertise-client HOST:PORT] [--advertise-peer HOST:PORT]
             [--tls-cert FILE --tls-key FILE --tls-ca FILE [--client-cert-auth [--acl] [--admin PRINCIPAL]...]]
             [--tick-ms 50] [--election-ticks 20] [--heartbeat-ticks 2] [--snapshot-every 10000] [--log-level info]
             [--http-listen HOST:PORT [--advertise-http HOST:PORT]] [--join] [--promote-max-lag 1000]
             [--max-connections 4096] [--max-connections-per-address 1024] [--max-streams-per-connection 4096]
             [--max-streams-per-principal 16384] [--max-unary-per-principal 8192]
             [--max-outbound-bytes 134217728] [--max-stream-outbound-bytes 8388608]
             [--max-inbound-bytes 67108864]   (client-port admission: docs/operating.md)
             [--unsafe-test-faults FILE]   (tests and demos only, flag only: SIGUSR2 runs the fault command in FILE)
             [--unsafe-no-fsync]           (tests only, flag only: no write is synced; a power cut then loses acknowledged state)
             [--force-new-cluster [--force-new-cluster-again] [--bump-index N]]   (lost quorum only, flag only: docs/operating.md)
       lockd restore --from BACKUP --data-dir DIR --id ID --peers ID=PEER_HOST:PORT,... --cluster-id-file FILE [--bump-index N]
Each flag may also come from the environment: LOCKD_ID, LOCKD_LISTEN, LOCKD_PEER_LISTEN, LOCKD_PEERS, ...
(upper case, '-' as '_'; LOCKD_CLIENT_CERT_AUTH=1, LOCKD_ACL=1 and LOCKD_JOIN=1 for the switches, LOCKD_ADMIN=a,b for admins).`;

const FLAGS = [
  'id',
  'listen',
  'peer-listen',
  'advertise-client',
  'advertise-peer',
  'peers',
  'data-dir',
  'cluster-id',
  'cluster-id-file',
  'tls-cert',
  'tls-key',
  'tls-ca',
  'tick-ms',
  'election-ticks',
  'heartbeat-ticks',
  'snapshot-every',
  'log-level',
  'http-listen',
  'advertise-http',
  'unsafe-test-faults',
  'promote-max-lag',
  ...ADMISSION_FLAGS.map((f) => f.flag),
] as const;
type Flag = string;

type FlagValues = Record<string, string | boolean | string[] | undefined>;

interface FlagReaders {
  get(flag: Flag): string | undefined;
  required(flag: Flag): string;
  int(flag: Flag, def: number, min: number, max: number): number;
}

/** The command line as parsed flags; unknown flags, positionals and --help are a ConfigError. */
function readFlags(argv: readonly string[]): FlagValues {
  let values: FlagValues;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        ...Object.fromEntries(FLAGS.map((f) => [f, { type: 'string' as const }])),
        'client-cert-auth': { type: 'boolean' },
        acl: { type: 'boolean' },
        admin: { type: 'string', multiple: true },
        join: { type: 'boolean' },
        'force-new-cluster': { type: 'boolean' },
        'unsafe-no-fsync': { type: 'boolean' },
        'force-new-cluster-again': { type: 'boolean' },
        'bump-index': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new ConfigError(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) throw new ConfigError(USAGE);
  return values;
}

/** A flag's value, or its LOCKD_* environment variable; required and bounded integers. */
function flagReaders(values: FlagValues, env: NodeJS.ProcessEnv): FlagReaders {
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
  return { get, required, int };
}

/** This node's id, its listen and advertised addresses, and --peers (which must name it there). */
function parseAddresses({ get, required }: FlagReaders) {
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
    throw new ConfigError(
      `--peers says ${id} is at ${peers.get(id)}, but this node's peer address is ${advertisePeer} (--advertise-peer, default --peer-listen): --peers names PEER addresses`,
    );
  return { id, listen, peerListen, advertiseClient, advertisePeer, peers };
}

/** TLS files, client certificates, --acl and --admin (each needing the one before it). */
function parseSecurity(values: FlagValues, env: NodeJS.ProcessEnv, get: FlagReaders['get']) {
  const tlsParts = { cert: get('tls-cert'), key: get('tls-key'), ca: get('tls-ca') };
  const tlsGiven = Object.values(tlsParts).filter((v) => v !== undefined).length;
  if (tlsGiven !== 0 && tlsGiven !== 3) throw new ConfigError('--tls-cert, --tls-key and --tls-ca go together: give all three or none');
  const tls = tlsGiven === 3 ? (tlsParts as TlsFiles) : undefined;
  const clientCertAuth = flagSwitch(values['client-cert-auth'], env.LOCKD_CLIENT_CERT_AUTH, 'LOCKD_CLIENT_CERT_AUTH');
  if (clientCertAuth && !tls) throw new ConfigError('--client-cert-auth needs TLS: give --tls-cert, --tls-key and --tls-ca');
  const acl = flagSwitch(values.acl, env.LOCKD_ACL, 'LOCKD_ACL');
  // Rules name principals, and only a verified client certificate proves one: without it every
  // caller is 'anonymous' and the rules would protect nothing.
  if (acl && !(tls && clientCertAuth))
    throw new ConfigError(
      '--acl needs TLS and --client-cert-auth (a principal is a verified client certificate): give --tls-cert, --tls-key, --tls-ca and --client-cert-auth',
    );
  const adminFlags = Array.isArray(values.admin) ? values.admin : [];
  const admins =
    adminFlags.length > 0
      ? adminFlags
      : (env.LOCKD_ADMIN ?? '')
          .split(',')
          .map((a) => a.trim())
          .filter(Boolean);
  for (const a of admins) {
    const bad = validatePrincipal(a);
    if (bad) throw new ConfigError(`--admin "${a.slice(0, 80)}": ${bad.message}`);
  }
  return { tls, clientCertAuth, acl, admins };
}

/** --http-listen and the address others are told (--advertise-http). */
function parseHttp(get: FlagReaders['get']) {
  const httpRaw = get('http-listen');
  const httpListen = httpRaw === undefined ? undefined : checkAddress('--http-listen', httpRaw);
  const advertiseHttpRaw = get('advertise-http');
  if (advertiseHttpRaw !== undefined && httpListen === undefined) throw new ConfigError('--advertise-http needs --http-listen');
  // A wildcard bind address is nobody's to dial: advertised only when named with --advertise-http.
  const advertiseHttp =
    advertiseHttpRaw !== undefined
      ? checkAdvertised('--advertise-http', advertiseHttpRaw)
      : httpListen !== undefined && !isWildcard(httpListen)
        ? httpListen
        : undefined;
  return { httpListen, advertiseHttp };
}

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): NodeConfig {
  const values = readFlags(argv);
  const readers = flagReaders(values, env);
  const { get, required, int } = readers;
  const { id, listen, peerListen, advertiseClient, advertisePeer, peers } = parseAddresses(readers);
  const { tls, clientCertAuth, acl, admins } = parseSecurity(values, env, get);
  const join = flagSwitch(values.join, env.LOCKD_JOIN, 'LOCKD_JOIN');
  if (join && peers.size < 2)
    throw new ConfigError('--join needs --peers to name the members of the cluster to join (their peer addresses), not only this node');
  // (An odd number of voters for a new cluster is checked when the data dir is created: after a
  // membership change a cluster may well have 4 members, and --peers then names addresses only.)
  const clusterId = readClusterId(get('cluster-id'), get('cluster-id-file'));
  const tickMs = int('tick-ms', 50, 1, 10_000);
  const heartbeatTicks = int('heartbeat-ticks', 2, 1, 1000);
  const electionTicks = int('election-ticks', 20, 2, 100_000);
  if (electionTicks <= heartbeatTicks) throw new ConfigError(`--election-ticks (${electionTicks}) must exceed --heartbeat-ticks (${heartbeatTicks})`);
  const logLevel = get('log-level') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel))
    throw new ConfigError(`--log-level "${logLevel}" is not a pino level`);
  const { httpListen, advertiseHttp } = parseHttp(get);
  // Flag only, never from the environment: a leftover variable must not arm faults on a real node.
  const faultsRaw = values['unsafe-test-faults'];
  const unsafeTestFaults = typeof faultsRaw === 'string' && faultsRaw !== '' ? faultsRaw : undefined;
  // Flag only, never from the environment, for the same reason.
  const unsafeNoFsync = values['unsafe-no-fsync'] === true;
  // Flags only, never from the environment: a leftover variable must not remove members.
  const forceNewCluster = values['force-new-cluster'] === true;
  const forceNewClusterAgain = values['force-new-cluster-again'] === true;
  if (forceNewClusterAgain && !forceNewCluster) throw new ConfigError('--force-new-cluster-again goes with --force-new-cluster');
  if (forceNewCluster && join)
    throw new ConfigError("--force-new-cluster and --join exclude each other: force a surviving voter's data dir, join with a fresh one");
  const bumpRaw = values['bump-index'];
  if (typeof bumpRaw === 'string' && !forceNewCluster) throw new ConfigError('--bump-index goes with --force-new-cluster (or lockd restore)');
  const forceBumpIndex = parseBumpIndex(typeof bumpRaw === 'string' ? bumpRaw : undefined);
  const admission = parseAdmission(get, int);
  return {
    id,
    listen,
    peerListen,
    advertiseClient,
    advertisePeer,
    peers,
    ...(tls ? { tls } : {}),
    clientCertAuth,
    acl,
    admins: [...new Set(admins)],
    dataDir: required('data-dir'),
    clusterId,
    tickMs,
    electionTicks,
    heartbeatTicks,
    snapshotEvery: int('snapshot-every', 10_000, 1, 10_000_000),
    logLevel,
    join,
    promoteMaxLag: int('promote-max-lag', 1000, 0, 1_000_000_000),
    ...(httpListen === undefined ? {} : { httpListen }),
    ...(advertiseHttp === undefined ? {} : { advertiseHttp }),
    ...(unsafeTestFaults === undefined ? {} : { unsafeTestFaults }),
    ...(unsafeNoFsync ? { unsafeNoFsync } : {}),
    ...(forceNewCluster ? { forceNewCluster, forceNewClusterAgain, forceBumpIndex } : {}),
    admission,
  };
}

/**
 * The admission flags (node/admission-settings.ts). A per-address or per-stream limit left at its
 * default shrinks to a smaller total given; one given above its total is refused.
 */
function parseAdmission(get: (flag: string) => string | undefined, int: (flag: string, def: number, min: number, max: number) => number): AdmissionSettings {
  const a = Object.fromEntries(ADMISSION_FLAGS.map((f) => [f.key, int(f.flag, f.def, f.min, f.max)])) as unknown as {
    -readonly [K in keyof AdmissionSettings]: number;
  };
  const within = (part: keyof AdmissionSettings, partFlag: string, whole: keyof AdmissionSettings, wholeFlag: string) => {
    if (a[part] <= a[whole]) return;
    if (get(partFlag) === undefined) a[part] = a[whole];
    else throw new ConfigError(`--${partFlag} (${a[part]}) must not exceed --${wholeFlag} (${a[whole]})`);
  };
  within('maxConnectionsPerAddress', 'max-connections-per-address', 'maxConnections', 'max-connections');
  within('streamOutboundBytes', 'max-stream-outbound-bytes', 'outboundBytes', 'max-outbound-bytes');
  return a;
}

/** --bump-index (lockd restore, --force-new-cluster): an integer ≥ 0; absent: DEFAULT_BUMP (state-machine/rebase.ts says why). */
export function parseBumpIndex(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_BUMP;
  const bump = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(bump)) throw new ConfigError(`--bump-index must be an integer ≥ 0, got "${raw.slice(0, 80)}"`);
  return bump;
}

/**
 * The cluster id from --cluster-id or --cluster-id-file (one of them). The file is read once, at
 * start, trimmed; it is the secret a stranger needs to speak Raft, so a file others on the host may
 * read (group or world bits) is refused, as ssh refuses a readable key: chmod 600 it.
 */
function readClusterId(inline: string | undefined, file: string | undefined): string {
  if (inline !== undefined && file !== undefined) throw new ConfigError('give --cluster-id or --cluster-id-file, not both');
  if (file === undefined) {
    if (inline === undefined) throw new ConfigError(`missing --cluster-id-file (or --cluster-id)\n${USAGE}`);
    return inline;
  }
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`--cluster-id-file ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if ((mode & 0o077) !== 0)
    throw new ConfigError(
      `--cluster-id-file ${file} is readable by others (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): the cluster id is a secret; chmod 600 it`,
    );
  const id = text.trim();
  if (id === '') throw new ConfigError(`--cluster-id-file ${file} is empty`);
  if (/[\r\n]/.test(id)) throw new ConfigError(`--cluster-id-file ${file} holds more than one line: it holds the cluster id only`);
  return id;
}

/** A boolean switch from its flag or its environment variable (1, true, 0, false). */
function flagSwitch(flag: unknown, envValue: string | undefined, envName: string): boolean {
  const raw = flag === true ? 'true' : envValue;
  if (raw !== undefined && raw !== '' && !['1', 'true', '0', 'false'].includes(raw))
    throw new ConfigError(`${envName} must be 1, true, 0 or false, got "${raw}"`);
  return raw === '1' || raw === 'true';
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
export const ADDRESS_PATTERN =
  /^((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.?|\[[0-9a-fA-F:.]{2,45}\]):(\d{1,5})$/;

export function isAddress(address: string): boolean {
  const m = ADDRESS_PATTERN.exec(address);
  return !!m && m[1].length <= 253 && Number(m[2]) >= 1 && Number(m[2]) <= 65535;
}

function checkAddress(what: string, address: string): string {
  if (!isAddress(address)) throw new ConfigError(`${what} "${address}" is not HOST:PORT`);
  return address;
}

function isWildcard(address: string): boolean {
  return /^(0\.0\.0\.0|\[::\]|\[0*(:0*)*\]):/.test(address);
}

/** An address others dial: a wildcard bind address cannot be one. */
function checkAdvertised(what: string, address: string): string {
  checkAddress(what, address);
  if (isWildcard(address)) throw new ConfigError(`${what} is ${address}, which nobody can dial: set ${what} to a reachable HOST:PORT`);
  return address;
}

export function parsePeers(raw: string): Map<NodeId, string> {
  const peers = new Map<NodeId, string>();
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--peers entry "${part}" is not ID=HOST:PORT`);
    const id = part.slice(0, eq);
    if (peers.has(id)) throw new ConfigError(`--peers names ${id} twice`);
    peers.set(id, checkAddress(`--peers entry for ${id}`, part.slice(eq + 1)));
  }
  if (peers.size === 0) throw new ConfigError('--peers is empty');
  return peers;
}
