// lockctl's command line: global flags anywhere, a command path (`lease grant`), positionals, and
// for `run` everything after `--` untouched. Bad input is a UsageError (exit 2 with a usage line).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEndpoints } from '../endpoints.js';
import { clusterDir, clusterShEndpoints } from './cluster-sh.js';
import type { ClientTlsOptions } from '../tls.js';

export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The usage line of the command concerned, when known. */
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** The recipe flags: a semaphore of N, a shared (read) grant, a lock-delay. */
const RECIPE = ['permits', 'shared', 'lock-delay'] as const;

/** Every command: its words, positional names, its own flags, and a one-line summary. */
export interface CommandSpec {
  readonly path: readonly string[];
  readonly positionals: readonly string[];
  readonly flags: readonly string[];
  readonly summary: string;
}

export const COMMANDS: readonly CommandSpec[] = [
  { path: ['status'], positionals: [], flags: [], summary: 'every node: id, address, role, term, leader, commit, applied' },
  {
    path: ['leader', 'transfer'],
    positionals: ['[ID]'],
    flags: [],
    summary: 'hand leadership to voter ID (default: the most caught-up one) without an election timeout',
  },
  { path: ['lease', 'grant'], positionals: ['TTL'], flags: [], summary: 'create a lease (TTL in ms, or with s/m suffix); not kept alive' },
  { path: ['lease', 'keepalive'], positionals: ['ID'], flags: ['count'], summary: 'keep a lease alive until interrupted (or --count renewals)' },
  { path: ['lease', 'revoke'], positionals: ['ID'], flags: [], summary: 'end a lease now, releasing its locks' },
  { path: ['lease', 'ttl'], positionals: ['ID'], flags: [], summary: "a lease's granted TTL, remaining time and locks" },
  { path: ['lease', 'list'], positionals: [], flags: [], summary: 'every live lease' },
  {
    path: ['lock', 'acquire'],
    positionals: ['NAME'],
    flags: ['lease', 'wait', 'ttl', ...RECIPE],
    summary: 'take a lock (for --lease ID, else for a new lease of --ttl that is not kept alive)',
  },
  { path: ['lock', 'try'], positionals: ['NAME'], flags: ['lease', 'ttl', ...RECIPE], summary: 'take a lock only if it is free' },
  {
    path: ['lock', 'release'],
    positionals: ['NAME', 'TOKEN'],
    flags: ['lease'],
    summary: 'release a lock held under TOKEN (--lease: whose, when several share TOKEN)',
  },
  { path: ['lock', 'inspect'], positionals: ['NAME'], flags: [], summary: "a lock's holders, tokens, permits, lock-delay and queue" },
  {
    path: ['lock', 'set-permits'],
    positionals: ['NAME', 'N'],
    flags: [],
    summary: "change a semaphore's permits (growing grants waiters at once; admin with --acl)",
  },
  { path: ['lock', 'observe'], positionals: ['NAME'], flags: ['count'], summary: "print a lock's events until interrupted (or --count events)" },
  {
    path: ['fence', 'write'],
    positionals: ['KEY', 'VALUE'],
    flags: ['token', 'lock'],
    summary: "write to the fenced store under --token (with --lock NAME: only while T is that lock's current grant)",
  },
  { path: ['fence', 'delete'], positionals: ['KEY'], flags: ['token', 'lock'], summary: 'delete a fenced store key, fenced like a write' },
  { path: ['fence', 'read'], positionals: ['KEY'], flags: [], summary: "a fenced store key's value and token" },
  {
    path: ['elect'],
    positionals: ['NAME', 'VALUE'],
    flags: ['ttl', 'observe', 'count'],
    summary: 'campaign for NAME with VALUE (own lease, kept alive) and lead until interrupted; --observe NAME: print its leaders',
  },
  { path: ['run'], positionals: ['NAME'], flags: ['ttl', 'wait', 'grace', ...RECIPE], summary: 'hold a lock (own lease, kept alive) while a command runs' },
  {
    path: ['demo'],
    positionals: ['NAME'],
    flags: ['dashboard', 'story-port', 'step'],
    summary: 'replay a classic scenario on the ./cluster.sh cluster, printing its timeline (`lockctl demo list`)',
  },
  {
    path: ['log', 'dump'],
    positionals: [],
    flags: ['data-dir', 'from', 'type', 'exclude', 'compare', 'outcomes'],
    summary:
      "print a stopped node's log entries (decoded, with logical now) and its snapshot summary; --compare DIR2: the first index where two nodes' logs differ",
  },
  {
    path: ['snapshot', 'save'],
    positionals: ['FILE'],
    flags: [],
    summary: 'save a backup of the whole cluster state from the leader to FILE (admin; lockd restore reads it)',
  },
  {
    path: ['snapshot', 'status'],
    positionals: ['FILE'],
    flags: [],
    summary: 'verify a backup FILE (checksum, state) and summarize it: index, term, members, what it holds',
  },
  {
    path: ['acl', 'grant'],
    positionals: ['PRINCIPAL', 'VERB', 'PREFIX'],
    flags: [],
    summary: "let PRINCIPAL use VERB (lock|fence|read|admin) on names under PREFIX ('' = all); admins only",
  },
  { path: ['acl', 'revoke'], positionals: ['PRINCIPAL', 'VERB', 'PREFIX'], flags: [], summary: 'remove that rule; admins only' },
  { path: ['acl', 'list'], positionals: [], flags: [], summary: 'every access rule; admins only' },
  {
    path: ['acl', 'quota'],
    positionals: ['PRINCIPAL', '[QUOTA=N...]'],
    flags: ['reset'],
    summary:
      "show PRINCIPAL's quotas and use, or set them (leases, locks, dedup_ids, election_bytes, fence_keys; '*' = every caller without --acl); setting: admins only",
  },
  { path: ['member', 'list'], positionals: [], flags: [], summary: 'members: id, peer and client address, voter/learner, match index, lag (admin)' },
  {
    path: ['member', 'add'],
    positionals: ['ID'],
    flags: ['peer-url', 'client-url', 'learner', 'expect-config-index'],
    summary: 'add a member under a new id (--learner: receives the log, no vote; promote it once caught up)',
  },
  { path: ['member', 'promote'], positionals: ['ID'], flags: ['expect-config-index'], summary: 'make a caught-up learner a voter' },
  {
    path: ['member', 'remove'],
    positionals: ['ID'],
    flags: ['expect-config-index'],
    summary: 'remove a member for good (its id is never reused; not the leader: transfer first)',
  },
];

const FLAG_USAGE: Record<string, string> = {
  lease: '[--lease ID]',
  wait: '[--wait]',
  ttl: '[--ttl MS]',
  count: '[--count N]',
  token: '--token T',
  lock: '[--lock NAME]',
  grace: '[--grace MS]',
  permits: '[--permits N]',
  shared: '[--shared]',
  'lock-delay': '[--lock-delay MS]',
  observe: '[--observe]',
  'data-dir': '--data-dir DIR',
  from: '[--from INDEX]',
  type: '[--type T]',
  exclude: '[--exclude T,...]',
  compare: '[--compare DIR2]',
  outcomes: '[--outcomes]',
  'peer-url': '--peer-url HOST:PORT',
  'client-url': '[--client-url HOST:PORT]',
  learner: '[--learner]',
  'expect-config-index': '[--expect-config-index N]',
  reset: '[--reset]',
  dashboard: '[--dashboard]',
  'story-port': '[--story-port PORT]',
  step: '[--step MS]',
};

export function usageLine(spec: CommandSpec): string {
  const tail = spec.path[0] === 'run' ? ['--', 'command', 'args…'] : [];
  return ['lockctl', ...spec.path, ...spec.positionals, ...spec.flags.map((f) => FLAG_USAGE[f]), ...tail].join(' ');
}

export const GLOBAL_USAGE = [
  'global flags: --endpoints host:port,... (default $LOCKD_ENDPOINTS, else the ./cluster.sh cluster of $LOCKD_CLUSTER_DIR',
  '              and $LOCKD_BASE_PORT if either is set, else 127.0.0.1:7001..7005)  --json  --timeout MS',
  '              --cacert FILE --cert FILE --key FILE (TLS; default $LOCKD_CACERT/$LOCKD_CERT/$LOCKD_KEY, else',
  '              $LOCKD_CLUSTER_DIR/tls/ or .cluster/tls/ as root if present)',
].join('\n');

export function usageText(): string {
  const width = Math.max(...COMMANDS.map((c) => usageLine(c).length));
  return [
    'usage: lockctl [global flags] COMMAND ...',
    GLOBAL_USAGE,
    '',
    ...COMMANDS.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    '',
    'exit status: 0 ok, 1 server error, 2 usage, 75 lock not acquired, 76 lock lost during run, 127 command not startable;',
    "`run` otherwise exits with the command's status (128+N when it died of signal N).",
  ].join('\n');
}

export interface Parsed {
  readonly spec: CommandSpec;
  readonly args: Record<string, string>;
  readonly endpoints: string[];
  readonly json: boolean;
  /** --timeout in ms, if given. */
  readonly timeoutMs?: number;
  /** TLS files (paths), when TLS is on. */
  readonly tls?: ClientTlsOptions;
  readonly flags: {
    lease?: number;
    wait: boolean;
    ttlMs?: number;
    count?: number;
    token?: number;
    graceMs?: number;
    lock?: string;
    permits?: number;
    shared: boolean;
    lockDelayMs?: number;
    observe: boolean;
    dataDir?: string;
    from?: number;
    type?: string;
    exclude?: string;
    compare?: string;
    outcomes: boolean;
    peerUrl?: string;
    clientUrl?: string;
    learner: boolean;
    expectConfigIndex?: number;
    reset: boolean;
    dashboard: boolean;
    storyPort?: number;
    stepMs?: number;
  };
  /** `run`: the command and its arguments. */
  readonly command: string[];
  /** What a last positional `[NAME...]` collected (none: []). */
  readonly more: string[];
}

const OPTIONS = {
  endpoints: { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  lease: { type: 'string' },
  wait: { type: 'boolean' },
  ttl: { type: 'string' },
  count: { type: 'string' },
  token: { type: 'string' },
  lock: { type: 'string' },
  grace: { type: 'string' },
  permits: { type: 'string' },
  shared: { type: 'boolean' },
  'lock-delay': { type: 'string' },
  observe: { type: 'boolean' },
  'data-dir': { type: 'string' },
  from: { type: 'string' },
  type: { type: 'string' },
  exclude: { type: 'string' },
  compare: { type: 'string' },
  outcomes: { type: 'boolean' },
  'peer-url': { type: 'string' },
  'client-url': { type: 'string' },
  learner: { type: 'boolean' },
  'expect-config-index': { type: 'string' },
  reset: { type: 'boolean' },
  dashboard: { type: 'boolean' },
  'story-port': { type: 'string' },
  step: { type: 'string' },
  cacert: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A duration: milliseconds, or a number with ms / s / m. */
export function parseDuration(what: string, text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) throw new UsageError(`${what} must be a duration in milliseconds (or with s/m suffix), got ${JSON.stringify(text)}`);
  const ms = Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1));
  if (!Number.isSafeInteger(ms)) throw new UsageError(`${what} is out of range: ${JSON.stringify(text)}`);
  return ms;
}

/** A positive integer id, token or count. */
export function parsePositive(what: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${what} must be a positive integer, got ${JSON.stringify(text)}`);
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${what} must be a positive integer below 2^53, got ${JSON.stringify(text)}`);
  return n;
}

/** A TCP port (1..65535). */
export function parsePort(text: string): number {
  const n = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || n < 1 || n > 65_535) throw new UsageError(`--story-port must be a port (1..65535), got ${JSON.stringify(text)}`);
  return n;
}

/** A log index: 0 or more (0 is the bootstrap configuration's). */
export function parseIndex(what: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${what} must be a log index (an integer ≥ 0), got ${JSON.stringify(text)}`);
  const n = Number(text.trim());
  if (!Number.isSafeInteger(n)) throw new UsageError(`${what} must be below 2^53, got ${JSON.stringify(text)}`);
  return n;
}

/** A lock name for --lock: non-empty (the server checks the rest). */
export function parseLockName(text: string): string {
  if (text === '') throw new UsageError('--lock must name a lock');
  return text;
}

function readArgs(own: string[]) {
  try {
    return parseArgs({ args: own, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

type Values = ReturnType<typeof readArgs>['values'];

/** The command the positionals name; unknown ones are a UsageError listing the group's commands. */
function findCommand(positionals: string[]): (typeof COMMANDS)[number] {
  const spec = COMMANDS.find((c) => c.path.every((w, i) => positionals[i] === w));
  if (spec) return spec;
  const group = COMMANDS.filter((c) => c.path[0] === positionals[0]);
  if (group.length)
    throw new UsageError(
      `unknown ${positionals[0]} command ${JSON.stringify(positionals[1] ?? '')}; one of: ${group.map((c) => c.path[1]).join(', ')}`,
      usageLine(group[0]),
    );
  throw new UsageError(`unknown command ${JSON.stringify(positionals[0])}`);
}

/** The flags' values, each parsed (`wrap` adds the command's usage line to a refusal). */
function flagsOf(values: Values, wrap: <T>(f: () => T) => T): Parsed['flags'] {
  return {
    lease: values.lease === undefined ? undefined : wrap(() => parsePositive('--lease', values.lease!)),
    wait: values.wait ?? false,
    ttlMs: values.ttl === undefined ? undefined : wrap(() => parseDuration('--ttl', values.ttl!)),
    count: values.count === undefined ? undefined : wrap(() => parsePositive('--count', values.count!)),
    token: values.token === undefined ? undefined : wrap(() => parsePositive('--token', values.token!)),
    graceMs: values.grace === undefined ? undefined : wrap(() => parseDuration('--grace', values.grace!)),
    lock: values.lock === undefined ? undefined : wrap(() => parseLockName(values.lock!)),
    permits: values.permits === undefined ? undefined : wrap(() => parsePositive('--permits', values.permits!)),
    shared: values.shared ?? false,
    lockDelayMs: values['lock-delay'] === undefined ? undefined : wrap(() => parseDuration('--lock-delay', values['lock-delay']!)),
    observe: values.observe ?? false,
    dataDir: values['data-dir'],
    from: values.from === undefined ? undefined : wrap(() => parsePositive('--from', values.from!)),
    type: values.type,
    exclude: values.exclude,
    compare: values.compare,
    outcomes: values.outcomes ?? false,
    peerUrl: values['peer-url'],
    clientUrl: values['client-url'],
    learner: values.learner ?? false,
    expectConfigIndex:
      values['expect-config-index'] === undefined ? undefined : wrap(() => parseIndex('--expect-config-index', values['expect-config-index']!)),
    reset: values.reset ?? false,
    dashboard: values.dashboard ?? false,
    storyPort: values['story-port'] === undefined ? undefined : wrap(() => parsePort(values['story-port']!)),
    stepMs: values.step === undefined ? undefined : wrap(() => parseDuration('--step', values.step!)),
  };
}

/** Parse argv (without node and script). `--help` (or no command) is a UsageError with no message. */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Parsed {
  const dashdash = argv.indexOf('--');
  const own = dashdash >= 0 ? argv.slice(0, dashdash) : [...argv];
  const command = dashdash >= 0 ? argv.slice(dashdash + 1) : [];
  const { values, positionals } = readArgs(own);
  if (values.help || positionals.length === 0) throw new UsageError('');
  const spec = findCommand(positionals);
  const usage = usageLine(spec);
  const fail = (msg: string): never => {
    throw new UsageError(msg, usage);
  };
  const rest = positionals.slice(spec.path.length);
  // `elect --observe NAME` takes no VALUE.
  const wanted = spec.path[0] === 'elect' && values.observe ? ['NAME'] : spec.positionals;
  const requiredCount = wanted.filter((p) => !p.startsWith('[')).length; // "[ID]": optional, last
  const variadic = wanted.length > 0 && wanted[wanted.length - 1].endsWith('...]'); // "[QUOTA=N...]": any number, last
  const fixed = variadic ? wanted.slice(0, -1) : wanted;
  if (rest.length < requiredCount || (!variadic && rest.length > wanted.length))
    fail(`expected ${wanted.length ? wanted.join(' ') : 'no arguments'}, got ${rest.length ? rest.map((r) => JSON.stringify(r)).join(' ') : 'none'}`);
  for (const name of [
    'lease',
    'wait',
    'ttl',
    'count',
    'token',
    'grace',
    'lock',
    'observe',
    ...RECIPE,
    'data-dir',
    'from',
    'type',
    'exclude',
    'compare',
    'outcomes',
    'peer-url',
    'client-url',
    'learner',
    'expect-config-index',
    'reset',
    'dashboard',
    'story-port',
    'step',
  ] as const) {
    if (values[name] !== undefined && !spec.flags.includes(name)) fail(`--${name} does not apply to ${spec.path.join(' ')}`);
  }
  if (spec.flags.includes('token') && values.token === undefined) fail('--token is required');
  if (spec.flags.includes('data-dir') && !values['data-dir']) fail('--data-dir is required');
  if (spec.flags.includes('peer-url') && values['peer-url'] === undefined) fail("--peer-url is required (the new member's --advertise-peer)");
  if (spec.path[0] === 'run' && command.length === 0) fail('no command given after --');
  if (spec.path[0] !== 'run' && dashdash >= 0) fail('unexpected -- (only run takes a command)');

  let endpoints: string[];
  try {
    endpoints =
      values.endpoints === undefined && !env.LOCKD_ENDPOINTS
        ? (clusterShEndpoints(env, process.cwd()) ?? resolveEndpoints(undefined, env))
        : resolveEndpoints(values.endpoints, env);
  } catch (e) {
    throw new UsageError((e as Error).message, usage);
  }
  const wrap = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw e instanceof UsageError ? new UsageError(e.message, usage) : e;
    }
  };
  const args: Record<string, string> = Object.fromEntries(fixed.flatMap((p, i) => (rest[i] === undefined ? [] : [[p.replace(/^\[(.*)\]$/, '$1'), rest[i]]])));
  const tls = wrap(() => resolveTls(values, env));
  return {
    spec,
    args,
    endpoints,
    ...(tls ? { tls } : {}),
    json: values.json ?? false,
    timeoutMs: values.timeout === undefined ? undefined : wrap(() => parseDuration('--timeout', values.timeout!)),
    flags: flagsOf(values, wrap),
    command,
    more: variadic ? rest.slice(fixed.length) : [],
  };
}

/** Where ./cluster.sh start --tls leaves its CA and the admin client certificate (principal root). */
export const CLUSTER_TLS_DIR = join('.cluster', 'tls');

/**
 * TLS files: each of --cacert/--cert/--key, else its LOCKD_* variable; with none of the six given,
 * the cluster.sh cluster's tls/ ($LOCKD_CLUSTER_DIR/tls, else .cluster/tls of the working
 * directory) if it exists, as principal root. Undefined: plaintext.
 */
export function resolveTls(
  values: { cacert?: string; cert?: string; key?: string },
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): ClientTlsOptions | undefined {
  const pick = (flag: 'cacert' | 'cert' | 'key', name: string): string | undefined => values[flag] ?? (env[name] || undefined);
  const given = { cacert: pick('cacert', 'LOCKD_CACERT'), cert: pick('cert', 'LOCKD_CERT'), key: pick('key', 'LOCKD_KEY') };
  if (given.cacert === undefined && given.cert === undefined && given.key === undefined) {
    const dir = env.LOCKD_CLUSTER_DIR ? join(clusterDir(env, cwd), 'tls') : join(cwd, CLUSTER_TLS_DIR);
    if (!existsSync(join(dir, 'ca.crt'))) return undefined;
    return { cacert: join(dir, 'ca.crt'), cert: join(dir, 'root.crt'), key: join(dir, 'root.key') };
  }
  if ((given.cert === undefined) !== (given.key === undefined)) throw new UsageError('--cert and --key go together (or LOCKD_CERT and LOCKD_KEY)');
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as ClientTlsOptions;
}
