// Prints cluster.sh's status table: asks every node for Cluster.Status (in parallel, short deadline),
// through the client library's fan-out (LockClient.statusAll).
// usage: cluster-status.js [--wait-leader SECONDS] [--json] [--tls DIR] ID=HOST:PORT=PID ...
// (--tls DIR: trust DIR/ca.crt and present DIR/root.crt, as ./cluster.sh start --tls leaves them.)
import { join } from 'node:path';
import { LockClient, LockdError, type ClientTlsOptions, type NodeStatus } from '../../client/index.js';

interface Row {
  id: string;
  address: string;
  pid: string;
  alive: boolean;
  status?: NodeStatus;
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

/** Fills in each row's status or error. Rows are matched by address; members the nodes report beyond them are not shown. */
async function query(client: LockClient, rows: Row[]): Promise<void> {
  const byAddress = new Map(rows.map((r) => [r.address, r]));
  for (const { address, status, error } of await client.statusAll({ timeoutMs: 800 })) {
    const row = byAddress.get(address);
    if (!row) continue;
    if (status) row.status = status;
    else row.error = error instanceof LockdError ? (error.codeName === 'DEADLINE_EXCEEDED' ? 'no answer (paused?)' : error.details) : String(error?.message);
  }
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
    r.id,
    r.address,
    r.pid || '-',
    r.alive ? 'yes' : 'no',
    // A live process not answering yet (starting, paused) has no role: why goes below the table.
    r.status?.role ?? (r.alive ? 'no answer' : '-'),
    String(r.status?.term ?? '-'),
    r.status?.leaderId || '-',
    String(r.status?.commitIndex ?? '-'),
    String(r.status?.appliedIndex ?? '-'),
  ]);
  const widths = head.map((h, k) => Math.max(h.length, ...body.map((b) => b[k].length)));
  const notes = rows.filter((r) => !r.status && r.alive && r.error).map((r) => `  ${r.id}: ${oneLine(r.error!)}`);
  return [
    ...[head, ...body].map((cols) =>
      cols
        .map((c, k) => c.padEnd(widths[k]))
        .join('  ')
        .trimEnd(),
    ),
    ...notes,
  ].join('\n');
}

/** A gRPC error's detail on one short line ("No connection established. Last error: …"). */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let waitSeconds = 0;
  let json = false;
  let tls: ClientTlsOptions = {};
  const rows: Row[] = [];
  for (let k = 0; k < args.length; k++) {
    if (args[k] === '--wait-leader') waitSeconds = Number(args[++k]);
    else if (args[k] === '--json') json = true;
    else if (args[k] === '--tls') {
      const dir = args[++k];
      tls = { cacert: join(dir, 'ca.crt'), cert: join(dir, 'root.crt'), key: join(dir, 'root.key') };
    } else {
      const [id, host, port, pid = ''] = args[k].split(/[=:]/);
      rows.push({ id, address: `${host}:${port}`, pid, alive: pidAlive(pid) });
    }
  }
  const deadline = Date.now() + waitSeconds * 1000;
  const asked = rows.filter((r) => r.alive || !r.pid);
  const client = new LockClient({ endpoints: asked.map((r) => r.address), ...tls });
  for (;;) {
    for (const r of rows) {
      r.status = undefined;
      r.error = undefined;
    }
    if (asked.length > 0) await query(client, asked);
    const leader = agreedLeader(rows);
    if (waitSeconds === 0 || leader !== undefined || Date.now() > deadline) {
      process.stdout.write(json ? JSON.stringify({ leader: leader ?? null, nodes: rows }) + '\n' : table(rows) + '\n');
      client.close();
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
