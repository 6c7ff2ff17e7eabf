// A plaintext lockctl against a TLS cluster sees only UNAVAILABLE ("unreachable" for every node).
// After such a failure, and only then, lockctl asks the endpoints whether they speak TLS (one
// handshake each, bounded) and, if one does, says so with the flags to pass, naming the TLS files
// of a cluster.sh cluster it can find.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { connect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { clusterDir } from './cluster-sh.js';

/** How long one endpoint may take to answer a TLS ClientHello. */
const PROBE_MS = 700;

/**
 * Whether `address` (HOST:PORT) answers a TLS handshake. A server that then asks for a client
 * certificate and refuses ours (none) sends a TLS alert: that too is TLS. A refused connection, a
 * reset or plaintext garbage is not.
 */
export function speaksTls(address: string, timeoutMs = PROBE_MS): Promise<boolean> {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(address.slice(colon + 1));
  return new Promise((resolve) => {
    let done = false;
    const finish = (yes: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(yes);
    };
    const socket = connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'], ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }) });
    socket.on('secureConnect', () => finish(true));
    socket.on('error', (e: NodeJS.ErrnoException) => finish(/alert|certificate/i.test(e.message) || /^ERR_SSL_(TLSV1_ALERT|SSLV3_ALERT)/.test(e.code ?? '')));
    const timer = setTimeout(() => finish(false), timeoutMs);
  });
}

/** TLS dirs of cluster.sh clusters near here that hold a CA: $LOCKD_CLUSTER_DIR/tls, ./.cluster/tls, the checkout's .cluster/tls. */
export function knownTlsDirs(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const dirs = [join(clusterDir(env, cwd), 'tls'), join(cwd, '.cluster', 'tls')];
  const root = checkoutRoot();
  if (root) dirs.push(join(root, '.cluster', 'tls'));
  return [...new Set(dirs)].filter((d) => existsSync(join(d, 'ca.crt')));
}

/** The lockd checkout this lockctl runs from (a directory above it holding cluster.sh), if any. */
function checkoutRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'cluster.sh'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** The hint for endpoints that speak TLS to a plaintext lockctl, or undefined when none of them does. */
export async function tlsHint(endpoints: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string | undefined> {
  const answers = await Promise.all(endpoints.slice(0, 8).map((e) => speaksTls(e)));
  const tls = endpoints.filter((_, k) => answers[k]);
  if (tls.length === 0) return undefined;
  const dirs = knownTlsDirs(env, cwd);
  const files =
    dirs.length > 0
      ? `, e.g. ${dirs.map((d) => `--cacert ${join(d, 'ca.crt')} --cert ${join(d, 'root.crt')} --key ${join(d, 'root.key')}`).join('   or   ')} (cluster.sh's admin root)`
      : " (the CA that signed the nodes' certificates; with client-certificate auth also --cert FILE --key FILE)";
  return `TLS cluster: ${tls.join(', ')} ${tls.length > 1 ? 'speak' : 'speaks'} TLS and this call was plaintext; pass --cacert FILE and --cert/--key${files}, or set LOCKD_CLUSTER_DIR to the cluster.sh dir that made them`;
}
