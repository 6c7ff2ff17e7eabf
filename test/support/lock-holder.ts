// A tiny lock holder run as a child process by the API tests (so it can be killed with -9 or
// paused with SIGSTOP): grants a lease, waits for a lock, keeps the lease alive, and on stdin
// commands writes to the fenced store with its token. Reports JSON lines on stdout:
//   {"event":"acquired","leaseId":..,"token":..}  {"event":"lost"}
//   {"event":"renewed","sentAt":..} (Date.now() when the keepalive it answered was sent)
//   {"event":"write","ok":true,"highestToken":..} | {"event":"write","ok":false,"code":..,"details":".."}
// stdin: "write VALUE" | "exit".
// usage: tsx lock-holder.ts --endpoints A,B,C --name NAME --ttl-ms N --key KEY [--keepalive-ms N]
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type * as grpc from '@grpc/grpc-js';
import { LockApi } from './lock-api-client.js';
import { LeaseKeeper } from './lease-keeper.js';

const { values } = parseArgs({
  options: {
    endpoints: { type: 'string' },
    name: { type: 'string' },
    'ttl-ms': { type: 'string' },
    key: { type: 'string' },
    'keepalive-ms': { type: 'string' },
  },
});
if (!values.endpoints || !values.name || !values['ttl-ms'] || !values.key) {
  process.stderr.write('usage: lock-holder --endpoints A,B --name NAME --ttl-ms N --key KEY [--keepalive-ms N]\n');
  process.exit(2);
}
const apis = values.endpoints.split(',').map((a) => new LockApi(a));
const ttlMs = Number(values['ttl-ms']);
const keepAliveMs = Number(values['keepalive-ms'] ?? Math.floor(ttlMs / 3));
const say = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

/** Try each endpoint in turn (any node forwards to the leader) until one answers, for up to 10 s. */
async function anyNode<T>(fn: (api: LockApi) => Promise<T>): Promise<T> {
  const until = Date.now() + 10_000;
  for (let k = 0; ; k++) {
    try {
      return await fn(apis[k % apis.length]);
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function main(): Promise<void> {
  const { leaseId } = await anyNode((api) => api.grant(ttlMs));
  const keeper = new LeaseKeeper(
    apis,
    leaseId,
    keepAliveMs,
    () => say({ event: 'lost' }),
    (sentAt) => say({ event: 'renewed', sentAt }),
  ).start();
  const requestId = `holder-${process.pid}`;
  const acq = await anyNode((api) => api.acquire(values.name!, leaseId, { wait: true, requestId, timeoutMs: 30_000 }));
  say({ event: 'acquired', leaseId, token: acq.fencingToken });
  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    const [cmd, ...rest] = line.trim().split(' ');
    if (cmd === 'exit') break;
    if (cmd === 'write') {
      try {
        const r = await apis[0].fenceWrite(values.key!, rest.join(' '), acq.fencingToken);
        say({ event: 'write', ok: true, highestToken: r.highestToken });
      } catch (e) {
        const err = e as grpc.ServiceError;
        say({ event: 'write', ok: false, code: err.code, details: err.details });
      }
    }
  }
  keeper.stop();
  for (const a of apis) a.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`lock-holder: ${(e as Error).message}\n`);
  process.exit(1);
});
