// Prints cluster.sh's status table: asks every node for Cluster.Status (in parallel, short deadline).
// usage: cluster-status.js [--wait-leader SECONDS] [--json] [--tls DIR] ID=HOST:PORT=PID ...
// (--tls DIR: trust DIR/ca.crt and present DIR/root.crt, as ./cluster.sh start --tls leaves them.)
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { channelSecurity, loadClientTls, type TlsMaterial } from '../../client/tls.js';
import { lockdProto } from '../../proto/lockd.js';
import type { StatusResponse__Output } from '../../proto/gen/lockd/v1/StatusResponse.js';

interface Row {
  id: string;
  address: string;
  pid: string;
  alive: boolean;
  status?: StatusResponse__Output;
  error?: string;
}

function pidAlive(pid: string): boolean {
  if (!/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

async function query(rows: Row[], tls: TlsMaterial | undefined): Promise<void> {
  await Promise.all(
    rows.map(
      (row) =>
        new Promise<void>((resolve) => {
          const { credentials, options } = channelSecurity(row.address, tls);
          const client = new lockdProto.lockd.v1.Cluster(row.address, credentials, options);
          client.Status({}, { deadline: Date.now() + 800 }, (err, res) => {
            if (err) row.error = err.code === grpc.status.DEADLINE_EXCEEDED ? 'no answer (paused?)' : (err.details || err.message);
            else row.status = res!;
            client.close();
            resolve();
          });
        }),
    ),
  );
}

function agreedLeader(rows: Row[]): string | undefined {
  const answering = rows.filter((r) => r.status);
  const leaders = answering.filter((r) => r.status!.role === 'leader');
  if (leaders.length !== 1 || answering.length <= rows.length / 2) return undefined;
  const leader = leaders[0].status!;
  return answering.every((r) => r.status!.leaderId === leader.nodeId) ? leader.nodeId : undefined;
}

function table(rows: Row[]): string {
  const head = ['ID', 'ADDRESS', 'PID', 'ALIVE', 'ROLE', 'TERM', 'LEADER', 'COMMIT', 'APPLIED'];
  const body = rows.map((r) => [
    r.id, r.address, r.pid || '-', r.alive ? 'yes' : 'no',
    r.status?.role ?? (r.alive ? `(${r.error ?? '?'})` : '-'),
    String(r.status?.term ?? '-'), r.status?.leaderId || '-', String(r.status?.commitIndex ?? '-'), String(r.status?.appliedIndex ?? '-'),
  ]);
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((b) => b[k].length)));
  return [head, ...body].map((cols) => cols.map((c, k) => c.padEnd(widths[k])).join('  ').trimEnd()).join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let waitSeconds = 0;
  let json = false;
  let tls: TlsMaterial | undefined;
  const rows: Row[] = [];
  for (let k = 0; k < args.length; k++) {
    if (args[k] === '--wait-leader') waitSeconds = Number(args[++k]);
    else if (args[k] === '--json') json = true;
    else if (args[k] === '--tls') {
      const dir = args[++k];
      tls = loadClientTls({ cacert: join(dir, 'ca.crt'), cert: join(dir, 'root.crt'), key: join(dir, 'root.key') });
    }
    else {
      const [id, host, port, pid = ''] = args[k].split(/[=:]/);
      rows.push({ id, address: `${host}:${port}`, pid, alive: pidAlive(pid) });
    }
  }
  const deadline = Date.now() + waitSeconds * 1000;
  for (;;) {
    for (const r of rows) {
      r.status = undefined;
      r.error = undefined;
    }
    await query(rows.filter((r) => r.alive || !r.pid), tls);
    const leader = agreedLeader(rows);
    if (waitSeconds === 0 || leader !== undefined || Date.now() > deadline) {
      process.stdout.write(json ? JSON.stringify({ leader: leader ?? null, nodes: rows }) + '\n' : table(rows) + '\n');
      if (waitSeconds > 0 && leader === undefined) {
        process.stderr.write(`no leader agreed on by a majority within ${waitSeconds} s\n`);
        process.exit(1);
      }
      return;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

void main();
