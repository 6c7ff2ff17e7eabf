// Counter figures per lock cycle: every node's /metrics scraped before and after a
// workload's window, the differences summed over the nodes (or read on the leader) and divided by
// the cycles counted in that window. Load-insensitive: a busy machine slows a run down but does
// not change how many messages or disk writes one cycle costs.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { parsePromText, sumSeries } from './prom-text.js';

export type Series = ReadonlyMap<string, number>;

/** Client TLS material for an HTTPS /metrics (lockd with --tls: the bench principal may read). */
export interface ScrapeTls {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

const MAX_BODY = 8 << 20;

/** GET `url` (…/metrics) and parse it; rejects on a non-200, a body over 8 MiB or after `timeoutMs`. */
export function scrapeMetrics(url: string, tls?: ScrapeTls, timeoutMs = 5000): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: import('node:http').IncomingMessage) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`${url} answered ${res.statusCode}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) return req.destroy(new Error(`${url}: body over ${MAX_BODY} bytes`));
        chunks.push(c);
      });
      res.on('end', () => resolve(parsePromText(Buffer.concat(chunks).toString('utf8'))));
      res.on('error', reject);
    };
    const req = url.startsWith('https:') ? httpsGet(url, { ...tls, timeout: timeoutMs }, onResponse) : httpGet(url, { timeout: timeoutMs }, onResponse);
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

/**
 * after − before for every series in `after` (absent before: counted from 0). A series that went
 * down (the process restarted) is NaN: its figure is unusable, not zero.
 */
export function diffSeries(before: Series, after: Series): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    out.set(k, d < 0 ? NaN : d);
  }
  return out;
}

/** One node's counter differences over a window. */
export interface NodeDelta {
  readonly name: string;
  readonly leader: boolean;
  readonly delta: Series;
}

const per = (x: number | undefined, cycles: number) => (x === undefined || cycles <= 0 ? undefined : x / cycles);
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b === 0 ? undefined : a / b);
const sumOver = (nodes: readonly NodeDelta[], name: string, labels?: Record<string, string>) =>
  nodes.reduce<number | undefined>((s, n) => {
    const v = sumSeries(n.delta, name, labels);
    return v === undefined ? s : (s ?? 0) + v;
  }, undefined);

/** The Raft message types reported one by one (the rest only in the total). */
export const REPORTED_TYPES = ['App', 'AppResp', 'Heartbeat', 'HeartbeatResp'] as const;

/**
 * lockd's figures per cycle, keyed as in the report (`msgs_App`, `disk_synced`, ...). Messages are
 * counted where sent, summed over the nodes. A node without the replication counters (a baseline
 * checkout from before them) still gives its synced writes, from the disk-sync histogram's count.
 */
export function lockdFigures(nodes: readonly NodeDelta[], cycles: number): Record<string, number | undefined> {
  const leader = nodes.filter((n) => n.leader);
  const out: Record<string, number | undefined> = {
    msgs_sent: per(sumOver(nodes, 'lockd_raft_messages_sent_total'), cycles),
  };
  for (const t of REPORTED_TYPES) out[`msgs_${t}`] = per(sumOver(nodes, 'lockd_raft_messages_sent_total', { type: t }), cycles);
  out.msgs_App_empty = per(sumOver(nodes, 'lockd_raft_app_empty_sent_total'), cycles);
  const synced = sumOver(nodes, 'lockd_disk_synced_writes_total') ?? sumOver(nodes, 'lockd_disk_sync_duration_seconds_count');
  out.disk_synced = per(synced, cycles);
  out.disk_unsynced = per(sumOver(nodes, 'lockd_disk_unsynced_writes_total'), cycles);
  out.entries_per_persist = ratio(sumOver(nodes, 'lockd_disk_synced_entries_total'), sumOver(nodes, 'lockd_disk_synced_writes_total'));
  out.leader_readies = per(sumOver(leader, 'lockd_raft_ready_batches_total'), cycles);
  out.leader_entries_per_ready = ratio(sumOver(leader, 'lockd_raft_ready_entries_total'), sumOver(leader, 'lockd_raft_ready_batches_with_entries_total'));
  out.leader_entries_per_app = ratio(sumOver(leader, 'lockd_raft_app_entries_sent_total'), sumOver(leader, 'lockd_raft_messages_sent_total', { type: 'App' }));
  return out;
}

/** etcd's comparable figures: WAL fsyncs (its synced writes) and backend commits, summed over the nodes. */
export function etcdFigures(nodes: readonly NodeDelta[], cycles: number): Record<string, number | undefined> {
  return {
    disk_synced: per(sumOver(nodes, 'etcd_disk_wal_fsync_duration_seconds_count'), cycles),
    backend_commits: per(sumOver(nodes, 'etcd_disk_backend_commit_duration_seconds_count'), cycles),
    peer_bytes_sent: per(sumOver(nodes, 'etcd_network_peer_sent_bytes_total'), cycles),
  };
}
