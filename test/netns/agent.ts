// The netns test's client, run inside the client namespace (`ip netns exec NS node --import tsx
// agent.ts`): it does what the test asks over stdin and answers on stdout, one JSON line each way.
//   → {"id":1,"op":"status","address":"n1:7001"}      ← {"id":1,"ok":true,"result":{...}}
//   ops: status {address} | transfer {address, target} | hold {endpoints, name, ttlMs} | held |
//        ttl | inspect {name} | release                   ← {"id":..,"ok":false,"code":"UNAVAILABLE","details":".."}
// `hold` takes one lock with the real client (src/client: a kept-alive lease), and samples the
// client's own trust in its lease (lease.remainingMs) every 10 ms until `release`.
import { createInterface } from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import { LockClient, type Lease, type Lock } from '../../src/client/index.js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { ClusterClient } from '../../src/proto/gen/lockd/v1/Cluster.js';

interface Request {
  readonly id: number;
  readonly op: string;
  readonly address?: string;
  readonly target?: string;
  readonly endpoints?: string[];
  readonly name?: string;
  readonly ttlMs?: number;
}

const clusters = new Map<string, ClusterClient>();
const cluster = (address: string): ClusterClient => {
  let c = clusters.get(address);
  // As lockd's own channels (and src/client's): a host name is resolved again within 1 s of a lost
  // connection, not grpc-js's default 30 s — the test moves a host to a new address.
  if (!c)
    clusters.set(
      address,
      (c = new lockdProto.lockd.v1.Cluster(address, grpc.credentials.createInsecure(), { 'grpc.dns_min_time_between_resolutions_ms': 1000 })),
    );
  return c;
};
const call = <T>(start: (cb: (err: grpc.ServiceError | null, res?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => start((err, res) => (err ? reject(err) : resolve(res!))));

let client: LockClient | undefined;
let held: { lease: Lease; lock: Lock; token: number; minRemainingMs: number; renewals: number; sampler: NodeJS.Timeout } | undefined;

async function serve(r: Request): Promise<unknown> {
  switch (r.op) {
    case 'status':
      return call((cb) => cluster(r.address!).Status({}, { deadline: Date.now() + 500 }, cb));
    case 'transfer':
      return call((cb) => cluster(r.address!).TransferLeader({ targetId: r.target ?? '' }, { deadline: Date.now() + 5000 }, cb));
    case 'hold': {
      client = new LockClient({ endpoints: r.endpoints! });
      const lease = await client.grantLease(r.ttlMs!);
      const lock = await client.acquire(r.name!, { lease });
      const h = {
        lease,
        lock,
        token: lock.token,
        minRemainingMs: Infinity,
        renewals: 0,
        sampler: setInterval(() => (h.minRemainingMs = Math.min(h.minRemainingMs, lease.remainingMs)), 10),
      };
      lease.on('renewed', () => h.renewals++);
      held = h;
      return { leaseId: lease.id, token: lock.token };
    }
    case 'held':
      return {
        token: held!.lock.token,
        leaseLost: held!.lease.signal.aborted ? String(held!.lease.signal.reason) : false,
        lockLost: held!.lock.signal.aborted ? String(held!.lock.signal.reason) : false,
        minRemainingMs: held!.minRemainingMs,
        renewals: held!.renewals,
      };
    case 'ttl':
      return client!.timeToLive(held!.lease.id);
    case 'inspect':
      return client!.inspect(r.name!);
    case 'release':
      clearInterval(held!.sampler);
      await held!.lock.release();
      return {};
    default:
      throw new Error(`unknown op ${r.op}`);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const r = JSON.parse(line) as Request;
  serve(r).then(
    (result) => process.stdout.write(JSON.stringify({ id: r.id, ok: true, result }) + '\n'),
    (e: unknown) => {
      const err = e as grpc.ServiceError & { codeName?: string };
      const code = err.codeName ?? (typeof err.code === 'number' ? grpc.status[err.code] : 'ERROR');
      process.stdout.write(JSON.stringify({ id: r.id, ok: false, code, details: err.details ?? err.message }) + '\n');
    },
  );
});
process.stdin.on('end', () => process.exit(0));
