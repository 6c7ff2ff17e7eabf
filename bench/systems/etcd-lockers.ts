// etcd lock clients over unary gRPC calls (the same pattern as LockdLocker):
//  - EtcdV3Locker: etcd's server-side v3lock service (Lock/Unlock with a lease);
//  - EtcdMutexLocker: the client-side mutex recipe of etcd's clientv3/concurrency (v3.4): a Txn
//    creates <prefix>/<lease> with the lease; if an older key exists, wait for the deletion of the
//    newest key created before ours, watched from the revision after the read that found it, with
//    a re-read once the watch exists (so a delete that raced the watch's creation is not left to
//    etcd's 100 ms catch-up of unsynced watchers). etcd's own recipe lacks both tweaks: this is
//    the strongest client-side variant we know, so that the comparison is against etcd at its best.
import * as grpc from '@grpc/grpc-js';
import { EtcdKV, EtcdLease, EtcdLock, EtcdWatch, type KeyValue, type RangeResponse, type TxnResponse, type WatchResponse } from '../lib/etcd-proto.js';
import { CHANNEL_OPTIONS, unary, type InFlight } from '../lib/grpc-call.js';
import type { Held, KeepAliveStream, Locker } from './locker.js';

const creds = () => grpc.credentials.createInsecure();

abstract class EtcdLeases {
  abstract readonly label: string;
  protected readonly leaseClient: grpc.Client;

  constructor(protected readonly address: string) {
    this.leaseClient = new EtcdLease(address, creds(), CHANNEL_OPTIONS);
  }

  async grant(ttlMs: number): Promise<string> {
    const r = await unary<{ ID: string; error: string }>(this.leaseClient, 'LeaseGrant', { TTL: Math.ceil(ttlMs / 1000), ID: 0 }, 5000);
    if (r.error) throw new Error(`etcd LeaseGrant: ${r.error}`);
    return r.ID;
  }

  async revoke(lease: string): Promise<void> {
    await unary(this.leaseClient, 'LeaseRevoke', { ID: lease }, 5000);
  }

  keepAlives(): KeepAliveStream {
    const call = (this.leaseClient as unknown as { LeaseKeepAlive(): grpc.ClientDuplexStream<{ ID: string }, { ID: string; TTL: string }> }).LeaseKeepAlive();
    return {
      send: (lease) => void call.write({ ID: lease }),
      onReply: (cb) => void call.on('data', (r: { ID: string; TTL: string }) => cb(r.ID, Number(r.TTL) * 1000)),
      onError: (cb) => void call.on('error', (e: Error) => cb(e)),
      close: () => {
        call.on('error', () => {});
        call.cancel();
      },
    };
  }

  close(): void {
    this.leaseClient.close();
  }
}

export class EtcdV3Locker extends EtcdLeases implements Locker {
  readonly label = 'etcd v3lock';
  private readonly lock: grpc.Client;

  constructor(address: string) {
    super(address);
    this.lock = new EtcdLock(address, creds(), CHANNEL_OPTIONS);
  }

  async acquire(name: string, lease: string, timeoutMs: number, inflight?: InFlight): Promise<Held> {
    const r = await unary<{ key: Buffer }>(this.lock, 'Lock', { name: Buffer.from(name), lease }, timeoutMs, inflight);
    return { name, handle: r.key.toString('latin1') };
  }

  async release(held: Held, timeoutMs: number): Promise<void> {
    await unary(this.lock, 'Unlock', { key: Buffer.from(String(held.handle), 'latin1') }, timeoutMs);
  }

  override close(): void {
    super.close();
    this.lock.close();
  }
}

/** The end of the key range holding every key that starts with `prefix` (etcd's GetPrefixRangeEnd). */
function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

interface PendingWatch {
  watchId?: string;
  readonly key: Buffer;
  onCreated(): void;
  resolve(): void;
  reject(e: Error): void;
}

/** One Watch stream per client; at most one watch open on it at a time. */
class DeleteWatcher {
  private call: grpc.ClientDuplexStream<unknown, WatchResponse> | undefined;
  private current: PendingWatch | undefined;

  constructor(private readonly client: grpc.Client) {}

  private stream(): grpc.ClientDuplexStream<unknown, WatchResponse> {
    if (this.call) return this.call;
    const call = (this.client as unknown as { Watch(): grpc.ClientDuplexStream<unknown, WatchResponse> }).Watch();
    call.on('data', (r: WatchResponse) => this.onResponse(r));
    call.on('error', (e: Error) => {
      this.call = undefined;
      this.current?.reject(e);
      this.current = undefined;
    });
    this.call = call;
    return call;
  }

  private onResponse(r: WatchResponse): void {
    const cur = this.current;
    if (!cur) return;
    if (r.created && cur.watchId === undefined) {
      cur.watchId = r.watch_id;
      if (r.canceled) {
        this.current = undefined;
        cur.reject(new Error(`etcd watch refused: ${r.cancel_reason}`));
        return;
      }
      cur.onCreated();
    }
    if (r.watch_id !== cur.watchId) return; // a cancelled watch's late events
    if (r.events.some((e) => e.type === 'DELETE' && e.kv.key.equals(cur.key))) {
      this.current = undefined;
      this.call?.write({ cancel_request: { watch_id: r.watch_id } });
      cur.resolve();
    }
  }

  /**
   * Resolves when `key` is deleted at or after revision `rev`, or when `gone()` (asked once the
   * watch exists) finds it already deleted.
   */
  waitDelete(key: Buffer, rev: number, timeoutMs: number, gone: () => Promise<boolean>): Promise<void> {
    if (this.current) throw new Error('DeleteWatcher: one watch at a time');
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.current?.key !== key) return;
        this.current = undefined;
        this.close(); // a fresh stream next time: no stale watch can be mistaken for the next one
        reject(new Error(`etcd watch for delete of ${key} timed out`));
      }, timeoutMs);
      const cur: PendingWatch = {
        key,
        onCreated: () => {
          gone().then(
            (g) => {
              if (!g || this.current !== cur) return;
              this.current = undefined;
              if (cur.watchId !== undefined) this.call?.write({ cancel_request: { watch_id: cur.watchId } });
              cur.resolve();
            },
            (e: Error) => {
              if (this.current !== cur) return;
              this.current = undefined;
              this.close();
              cur.reject(e);
            },
          );
        },
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e: Error) => (clearTimeout(timer), reject(e)),
      };
      this.current = cur;
      this.stream().write({ create_request: { key, start_revision: rev } });
    });
  }

  close(): void {
    this.call?.on('error', () => {});
    this.call?.cancel();
    this.call = undefined;
  }
}

export class EtcdMutexLocker extends EtcdLeases implements Locker {
  readonly label = 'etcd mutex';
  private readonly kv: grpc.Client;
  private readonly watcher: DeleteWatcher;
  private readonly watchClient: grpc.Client;

  constructor(address: string) {
    super(address);
    this.kv = new EtcdKV(address, creds(), CHANNEL_OPTIONS);
    this.watchClient = new EtcdWatch(address, creds(), CHANNEL_OPTIONS);
    this.watcher = new DeleteWatcher(this.watchClient);
  }

  async acquire(name: string, lease: string, timeoutMs: number, inflight?: InFlight): Promise<Held> {
    const deadline = Date.now() + timeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    const pfx = Buffer.from(`/bench-mutex/${name}/`);
    const myKey = Buffer.concat([pfx, Buffer.from(BigInt(lease).toString(16))]);
    const range = (extra: object) => ({ key: pfx, range_end: prefixEnd(pfx), sort_target: 'CREATE', limit: 1, ...extra });
    const getOwner = { request_range: range({ sort_order: 'ASCEND' }) };
    const txn = await unary<TxnResponse>(
      this.kv,
      'Txn',
      {
        compare: [{ result: 'EQUAL', target: 'CREATE', key: myKey, create_revision: 0 }],
        success: [{ request_put: { key: myKey, value: Buffer.alloc(0), lease } }, getOwner],
        failure: [{ request_range: { key: myKey } }, getOwner],
      },
      left(),
      inflight,
    );
    const myRev = txn.succeeded ? Number(txn.header.revision) : Number(txn.responses[0].response_range!.kvs[0].create_revision);
    const owner: KeyValue[] = txn.responses[1].response_range!.kvs;
    const held = { name, handle: myKey.toString('latin1') };
    if (owner.length === 0 || Number(owner[0].create_revision) === myRev) return held;
    try {
      // waitDeletes: until no key created before ours is left
      for (;;) {
        const r = await unary<RangeResponse>(this.kv, 'Range', range({ sort_order: 'DESCEND', max_create_revision: myRev - 1 }), left(), inflight);
        if (r.kvs.length === 0) return held;
        // From the revision after the read: the key existed then, so its delete comes later. A
        // watch that starts past the store's current revision is "synced" and hears the delete at
        // once; etcd's own recipe (WithRev(rev)) lands in the unsynced set, caught up every 100 ms.
        // If the delete happened before the watch was created, the watch is unsynced too: so once
        // it exists, one more read checks whether the key is already gone.
        const key = r.kvs[0].key;
        const gone = () => unary<RangeResponse>(this.kv, 'Range', { key, count_only: true }, left(), inflight).then((x) => Number(x.count) === 0);
        await this.watcher.waitDelete(key, Number(r.header.revision) + 1, left(), gone);
      }
    } catch (e) {
      // the recipe releases its key when the wait fails
      await unary(this.kv, 'DeleteRange', { key: myKey }, 2000).catch(() => {});
      throw e;
    }
  }

  async release(held: Held, timeoutMs: number): Promise<void> {
    await unary(this.kv, 'DeleteRange', { key: Buffer.from(String(held.handle), 'latin1') }, timeoutMs);
  }

  override close(): void {
    super.close();
    this.watcher.close();
    this.kv.close();
    this.watchClient.close();
  }
}
