// lockd.v1.Membership for tests: promise wrappers, and waits on the member list.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../src/proto/lockd-package.js';
import type { MembershipClient } from '../../src/proto/gen/lockd/v1/Membership.js';
import type { MemberListResponse__Output } from '../../src/proto/gen/lockd/v1/MemberListResponse.js';
import type { MemberChangeResponse__Output } from '../../src/proto/gen/lockd/v1/MemberChangeResponse.js';
import type { MemberAddRequest } from '../../src/proto/gen/lockd/v1/MemberAddRequest.js';
import type { MemberPromoteRequest } from '../../src/proto/gen/lockd/v1/MemberPromoteRequest.js';
import { waitFor } from './process-cluster.js';

export class Members {
  readonly client: MembershipClient;

  constructor(address: string) {
    this.client = new lockdProto.lockd.v1.Membership(address, grpc.credentials.createInsecure());
  }

  list(): Promise<MemberListResponse__Output> {
    return new Promise((resolve, reject) => this.client.MemberList({}, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!))));
  }

  add(req: MemberAddRequest): Promise<MemberChangeResponse__Output> {
    return new Promise((resolve, reject) => this.client.MemberAdd(req, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!))));
  }

  promote(req: MemberPromoteRequest): Promise<MemberChangeResponse__Output> {
    return new Promise((resolve, reject) => this.client.MemberPromote(req, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!))));
  }

  remove(req: MemberPromoteRequest): Promise<MemberChangeResponse__Output> {
    return new Promise((resolve, reject) => this.client.MemberRemove(req, { deadline: Date.now() + 5000 }, (err, res) => (err ? reject(err) : resolve(res!))));
  }

  /** The gRPC error a call fails with (throws if it succeeds). */
  static async refusal(p: Promise<unknown>): Promise<grpc.ServiceError> {
    try {
      await p;
    } catch (e) {
      return e as grpc.ServiceError;
    }
    throw new Error('expected the call to be refused, it succeeded');
  }

  /** Retry a change while the leader answers UNAVAILABLE (an election, a change not committed yet). */
  static async retrying<T>(what: string, fn: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
    return waitFor(
      what,
      async () => {
        try {
          return await fn();
        } catch (e) {
          if ((e as grpc.ServiceError).code === grpc.status.UNAVAILABLE) return undefined;
          throw e;
        }
      },
      timeoutMs,
      100,
    );
  }

  /** Wait until the member list shows `id` as `role` with nothing committed missing. */
  async caughtUp(id: string, role: 'voter' | 'learner', timeoutMs = 20_000): Promise<MemberListResponse__Output> {
    return waitFor(
      `${id} a caught-up ${role}`,
      async () => {
        const l = await this.list();
        const m = l.members.find((x) => x.id === id);
        return m && m.role === role && m.lag === 0 && m.matchIndex > 0 ? l : undefined;
      },
      timeoutMs,
    );
  }
}
