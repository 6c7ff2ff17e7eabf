// One gRPC channel per endpoint, shared by the lockd.v1 service stubs on it.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../proto/lockd-package.js';
import type { AuthClient } from '../proto/gen/lockd/v1/Auth.js';
import type { ClusterClient } from '../proto/gen/lockd/v1/Cluster.js';
import type { FenceClient } from '../proto/gen/lockd/v1/Fence.js';
import type { LeaseClient } from '../proto/gen/lockd/v1/Lease.js';
import type { LockClient as LockStub } from '../proto/gen/lockd/v1/Lock.js';
import type { MembershipClient } from '../proto/gen/lockd/v1/Membership.js';
import type { MaintenanceClient } from '../proto/gen/lockd/v1/Maintenance.js';
import type { SessionClient as SessionStub } from '../proto/gen/lockd/v1/Session.js';
import type { ElectionClient } from '../proto/gen/lockd/v1/Election.js';
import { channelSecurity, type TlsMaterial } from './tls.js';

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // A restarted node should be reachable again within about a second, not grpc's default minutes.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1000,
  // A node named by DNS that comes back at a new IP is resolved again within a second of losing it
  // (grpc-js re-resolves on a lost connection, by default at most every 30 s).
  'grpc.dns_min_time_between_resolutions_ms': 1000,
};

export class Endpoint {
  readonly lease: LeaseClient;
  readonly lock: LockStub;
  readonly fence: FenceClient;
  readonly cluster: ClusterClient;
  readonly auth: AuthClient;
  readonly session: SessionStub;
  readonly election: ElectionClient;
  readonly membership: MembershipClient;
  readonly maintenance: MaintenanceClient;
  private readonly channel: grpc.Channel;

  constructor(
    readonly address: string,
    tls?: TlsMaterial,
  ) {
    const { credentials: creds, options } = channelSecurity(address, tls);
    this.channel = new grpc.Channel(address, creds, { ...CHANNEL_OPTIONS, ...options });
    const opts = { channelOverride: this.channel };
    const v1 = lockdProto.lockd.v1;
    this.lease = new v1.Lease(address, creds, opts);
    this.lock = new v1.Lock(address, creds, opts);
    this.fence = new v1.Fence(address, creds, opts);
    this.cluster = new v1.Cluster(address, creds, opts);
    this.auth = new v1.Auth(address, creds, opts);
    this.session = new v1.Session(address, creds, opts);
    this.election = new v1.Election(address, creds, opts);
    this.membership = new v1.Membership(address, creds, opts);
    this.maintenance = new v1.Maintenance(address, creds, opts);
  }

  close(): void {
    this.channel.close();
  }
}

/** Endpoints by address, created on first use (a leader hint may name one not configured). */
export class Connections {
  private readonly byAddress = new Map<string, Endpoint>();
  private closed = false;

  constructor(private readonly tls?: TlsMaterial) {}

  get(address: string): Endpoint {
    if (this.closed) throw new Error('the client is closed');
    let ep = this.byAddress.get(address);
    if (!ep) {
      ep = new Endpoint(address, this.tls);
      this.byAddress.set(address, ep);
    }
    return ep;
  }

  close(): void {
    this.closed = true;
    for (const ep of this.byAddress.values()) ep.close();
    this.byAddress.clear();
  }
}
