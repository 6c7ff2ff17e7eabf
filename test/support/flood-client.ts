// The abusive client of the flood test (test/lockd/api/flood*.ts), run as a process of its own so
// that its CPU is not the well-behaved client's: many KeepAlive streams over many connections, and
// slow readers that never read (raw HTTP/2 with a stream window of 0, so nothing the server sends
// ever leaves it): Lock.Observe streams on a lock it churns, and Sessions with large Fence.Reads in
// flight. Commands on stdin, one JSON report per line on stdout (script-process.ts):
//   keepalive  grant the leases, open the connections and streams, renew every RENEW_MS → {event:'keepalive-up'}
//   slow       open the slow readers and churn the observed lock → {event:'slow-up'}
//   close-slow destroy the slow readers' connections → {event:'slow-closed'}
//   report     → {event:'report', ...counts}
// Argument: one JSON object (FloodArgs).
import http2 from 'node:http2';
import { SessionClient } from '../../src/client/session-client.js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import { keepAliveFrames, readKeepAliveAnswers } from './raw-keepalive.js';
import { nonReadingSession } from './raw-stream.js';

export interface FloodArgs {
  /** The leader's client address. */
  readonly leader: string;
  readonly keepaliveStreams: number;
  /** Connections the KeepAlive streams are spread over (from 127.0.0.2). */
  readonly connections: number;
  readonly observers: number;
  readonly sessions: number;
  readonly readsPerSession: number;
  /** Acquire/release cycles of the observed lock (two events each for every observer). */
  readonly churn: number;
  /** A fenced key holding a large value (the flood writes it). */
  readonly valueBytes: number;
}

const args = JSON.parse(process.argv[2]) as FloodArgs;
const LEASE_TTL_MS = 20_000;
const RENEW_MS = 4_000;
/** The flood's connections come from an address of their own (net.connect's localAddress, which http2.connect passes on). */
const KA_OPTIONS = { settings: { enablePush: false }, ...{ localAddress: '127.0.0.2' } };
const report = (r: Record<string, unknown>): void => {
  process.stdout.write(JSON.stringify(r) + '\n');
};

const stats = { answered: 0, lost: 0, streamErrors: 0, streamsClosed: 0, connErrors: 0 };
const kaSessions: http2.ClientHttp2Session[] = [];
const kaStreams: Array<{ stream: http2.ClientHttp2Stream; lease: number; answered: number }> = [];
let renewTimer: NodeJS.Timeout | undefined;
let slow: http2.ClientHttp2Session[] = [];
const clients: SessionClient[] = [];

async function grantAll(n: number): Promise<number[]> {
  const sessions = Array.from({ length: 4 }, () => new SessionClient({ endpoints: [args.leader] }));
  clients.push(...sessions);
  const leases: number[] = [];
  let asked = 0;
  await Promise.all(
    sessions.map(async (s) => {
      while (asked < n) {
        const k = Math.min(250, n - asked);
        asked += k;
        const got = await Promise.all(Array.from({ length: k }, () => s.grant(LEASE_TTL_MS, { requestId: '' })));
        for (const g of got) leases.push(g.leaseId);
      }
    }),
  );
  return leases;
}

async function keepalive(): Promise<void> {
  const leases = await grantAll(args.keepaliveStreams);
  const perConn = Math.ceil(args.keepaliveStreams / args.connections);
  for (let c = 0; c < args.connections; c++) {
    const session = http2.connect(`http://${args.leader}`, KA_OPTIONS);
    session.on('error', () => stats.connErrors++);
    kaSessions.push(session);
    for (let k = c * perConn; k < Math.min(leases.length, (c + 1) * perConn); k++) {
      const stream = session.request({ ':method': 'POST', ':path': '/lockd.v1.Lease/KeepAlive', 'content-type': 'application/grpc', te: 'trailers' });
      const entry = { stream, lease: leases[k], answered: 0 };
      let buf: Buffer = Buffer.alloc(0);
      stream.on('data', (d: Buffer) => {
        buf = readKeepAliveAnswers(Buffer.concat([buf, d]), (_id, ttl) => {
          entry.answered++;
          stats.answered++;
          if (ttl === 0) stats.lost++;
        });
      });
      stream.on('error', () => stats.streamErrors++);
      stream.on('close', () => stats.streamsClosed++);
      stream.write(keepAliveFrames([entry.lease]));
      kaStreams.push(entry);
    }
  }
  // Every stream answered once: all are open and served.
  await until(() => kaStreams.every((s) => s.answered > 0), 60_000, 'every KeepAlive stream answered');
  // Renew each lease every RENEW_MS, spread evenly over the interval (a slice every 100 ms).
  let next = 0;
  const slice = Math.ceil(kaStreams.length / (RENEW_MS / 100));
  renewTimer = setInterval(() => {
    for (let k = 0; k < slice; k++) {
      const s = kaStreams[next];
      next = (next + 1) % kaStreams.length;
      if (!s.stream.closed) s.stream.write(keepAliveFrames([s.lease]));
    }
  }, 100);
  report({ event: 'keepalive-up', streams: kaStreams.length, connections: kaSessions.length, ...stats });
}

async function slowReaders(): Promise<void> {
  const s = new SessionClient({ endpoints: [args.leader] });
  clients.push(s);
  const { leaseId } = await s.grant(60_000);
  const held = await s.acquire('flood-value', leaseId);
  await s.fenceWrite('flood-big', Buffer.alloc(args.valueBytes, 7), held.fencingToken);
  const observe = lockdProto.lockd.v1.Lock.service.Observe.requestSerialize;
  const open = lockdProto.lockd.v1.Session.service.Open.requestSerialize;
  const frame = (m: Buffer) => {
    const head = Buffer.alloc(5);
    head.writeUInt32BE(m.length, 1);
    return Buffer.concat([head, m]);
  };
  // The observers: all on one connection, as measured before (400 on one connection froze a leader at close).
  const obs = nonReadingSession(args.leader, '127.0.0.3');
  slow.push(obs);
  let observersAnswered = 0;
  for (let k = 0; k < args.observers; k++) {
    const req = obs.request({ ':method': 'POST', ':path': '/lockd.v1.Lock/Observe', 'content-type': 'application/grpc', te: 'trailers' });
    req.on('error', () => {});
    req.once('response', () => observersAnswered++);
    req.end(frame(observe({ name: 'flood-hot' })));
  }
  // The sessions: each on its own connection, every read sent at once, none of the answers read.
  for (let k = 0; k < args.sessions; k++) {
    const session = nonReadingSession(args.leader, '127.0.0.4');
    slow.push(session);
    const req = session.request({ ':method': 'POST', ':path': '/lockd.v1.Session/Open', 'content-type': 'application/grpc', te: 'trailers' });
    req.on('error', () => {});
    req.write(Buffer.concat(Array.from({ length: args.readsPerSession }, (_, id) => frame(open({ id: id + 1, fenceRead: { key: 'flood-big' } })))));
  }
  await until(() => observersAnswered >= args.observers, 30_000, 'the observers answered (headers)');
  // Churn the observed lock: two events per cycle for every observer, none of them read.
  const { leaseId: churnLease } = await s.grant(60_000);
  for (let k = 0; k < args.churn; k++) {
    const a = await s.acquire('flood-hot', churnLease);
    await s.release('flood-hot', a.fencingToken);
  }
  report({ event: 'slow-up', observers: args.observers, sessions: args.sessions });
}

function closeSlow(): void {
  for (const s of slow) s.destroy();
  slow = [];
  report({ event: 'slow-closed' });
}

async function until(pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`flood client: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const commands: Record<string, () => Promise<void> | void> = {
  keepalive,
  slow: slowReaders,
  'close-slow': closeSlow,
  report: () => report({ event: 'report', ...stats }),
};

let chain: Promise<void> = Promise.resolve();
process.stdin.setEncoding('utf8');
let pending = '';
process.stdin.on('data', (d: string) => {
  pending += d;
  for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
    const cmd = pending.slice(0, nl).trim();
    pending = pending.slice(nl + 1);
    const run = commands[cmd];
    chain = chain.then(async () => {
      if (!run) {
        report({ event: 'error', message: `unknown command ${cmd}` });
        return;
      }
      try {
        await run();
      } catch (e) {
        report({ event: 'error', message: (e as Error).message });
      }
    });
  }
});
process.stdin.on('end', () => {
  if (renewTimer) clearInterval(renewTimer);
  for (const s of [...kaSessions, ...slow]) s.destroy();
  for (const c of clients) c.close();
  process.exit(0);
});
