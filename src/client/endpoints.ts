// Endpoint lists: "host:port,host:port". A bad entry is a clear error here, not a connection
// failure later.

/** Where lockctl and LockClient look when nothing is configured: a local 5-node cluster.sh cluster. */
export const DEFAULT_ENDPOINTS: readonly string[] = ['127.0.0.1:7001', '127.0.0.1:7002', '127.0.0.1:7003', '127.0.0.1:7004', '127.0.0.1:7005'];

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/;

/** Validate one "host:port"; returns it trimmed. */
export function parseEndpoint(text: string): string {
  const s = text.trim();
  const m = HOST_PORT.exec(s);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port >= 1 && port <= 65535)) throw new Error(`bad endpoint ${JSON.stringify(text)}: expected host:port, e.g. 127.0.0.1:7001`);
  return s;
}

/** A comma-separated list of host:port, deduplicated, in order; empty is an error. */
export function parseEndpoints(text: string): string[] {
  const list = [
    ...new Set(
      text
        .split(',')
        .filter((p) => p.trim() !== '')
        .map(parseEndpoint),
    ),
  ];
  if (list.length === 0) throw new Error(`no endpoints in ${JSON.stringify(text)}: expected host:port[,host:port...]`);
  return list;
}

/** --endpoints if given, else $LOCKD_ENDPOINTS, else DEFAULT_ENDPOINTS. */
export function resolveEndpoints(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  if (flag !== undefined) return parseEndpoints(flag);
  if (env.LOCKD_ENDPOINTS) return parseEndpoints(env.LOCKD_ENDPOINTS);
  return [...DEFAULT_ENDPOINTS];
}
