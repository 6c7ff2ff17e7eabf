// A world op of the recipe property test: a node paused (SIGSTOP, as a GC pause or a stopped VM
// would) while the others move on and compact their logs past it, then resumed. It catches up by
// snapshot, which carries no per-entry events. Two variants:
//  - a follower: the leader keeps serving;
//  - the leader: it is deposed; the test waits, bounded, until the other two agree
//    on a new leader (asking them), and everything goes there until the old one has caught up.
// What the paused node served must then be settled from the restored state, never left silent
// (proto: Lock.Observe a RESYNC, Election.Observe the leadership the snapshot holds, KeepAlive
// ttl_ms = 0 for a lease gone, a waiting Acquire/Campaign its grant or its error). The runner checks
// the Observe streams and waits (recipe-runner.ts); the KeepAlive stream is this file's.
import type * as grpc from '@grpc/grpc-js';
import type { ApiFixture } from './api-fixture.js';
import { waitFor } from './api-fixture.js';
import type { LeaseKeepAliveRequest } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveRequest.js';
import type { LeaseKeepAliveResponse__Output } from '../../../src/proto/gen/lockd/v1/LeaseKeepAliveResponse.js';

/**
 * More single-entry writes than the leader sends a paused follower unacknowledged (its inflight
 * window, 256 messages, sits in the follower's socket and is applied entry by entry on resume):
 * what comes after them reaches it only by snapshot. The fixture compacts every few entries.
 */
const FILLERS = 300;
const CATCH_UP_MS = 20_000;
const LEADER_MS = 10_000;
const SETTLE_MS = 10_000;
const UNAVAILABLE = 14;
export const SNAPSHOT_EVERY = '10';

export class NodePause {
  /** The paused node's index in the cluster (the unary senders' order). */
  readonly index: number;
  readonly id: string;
  /** Where calls meant for the paused node go while it is paused (the leader; for the leader variant, the new one). */
  private leaderIndex: number;
  private installsBefore = 0;
  private filler = 0;
  /** A lease of this pause's own (not the model's), renewed on a KeepAlive stream served by the paused node, revoked while it is paused. */
  private ka:
    | {
        lease: number;
        stream: grpc.ClientDuplexStream<LeaseKeepAliveRequest, LeaseKeepAliveResponse__Output>;
        answers: LeaseKeepAliveResponse__Output[];
        error?: grpc.ServiceError;
      }
    | undefined;
  /** Ops left until the resume (0: not paused). */
  opsLeft = 0;
  /** Whether the leader was paused in this run (the Session, which the leader serves, is not used after). */
  leaderPaused = false;

  constructor(
    private readonly f: ApiFixture,
    private readonly prefix: string,
    readonly leader: boolean,
  ) {
    this.index = f.cluster.nodes.findIndex((n) => (leader ? n.id === f.leaderId : n.id !== f.leaderId));
    this.id = f.cluster.nodes[this.index].id;
    this.leaderIndex = f.cluster.nodes.findIndex((n) => n.id === f.leaderId);
  }

  /** A node that is never paused in this run (its streams see every entry applied). */
  get steadyIndex(): number {
    return this.leader ? this.f.cluster.nodes.findIndex((n) => n.id !== this.id) : this.leaderIndex;
  }

  get paused(): boolean {
    return this.opsLeft > 0;
  }

  /** Where a call meant for node `via` (3: the Session, which is on the leader) goes now. */
  route(via: number): number {
    if (via === 3 && this.leaderPaused) return this.leaderIndex;
    return this.paused && via === this.index ? this.leaderIndex : via;
  }

  /** Pause for the next `ops` ops; a string says why the run cannot go on (a leader change). */
  async pause(ops: number): Promise<string | undefined> {
    try {
      await this.openKeepAlive();
    } catch (e) {
      return `a KeepAlive on ${this.id} before the pause: ${(e as Error).message}`;
    }
    this.installsBefore = this.installs();
    this.f.cluster.signal(this.id, 'SIGSTOP');
    this.opsLeft = ops;
    try {
      if (this.leader) {
        this.leaderPaused = true;
        const others = this.f.cluster.nodes.map((n) => n.id).filter((id) => id !== this.id);
        this.f.leaderId = await this.f.cluster.waitForLeader(others, LEADER_MS);
        this.leaderIndex = this.f.cluster.nodes.findIndex((n) => n.id === this.f.leaderId);
      }
      if (!this.filler) this.filler = (await this.f.leader.grant(60_000)).leaseId;
      for (let k = 0; k < FILLERS; k++) await this.f.leader.acquire(`${this.prefix}-filler`, this.filler);
      // The lease the paused node's KeepAlive stream watches ends while it cannot tell anyone.
      await this.f.leader.revoke(this.ka!.lease);
    } catch (e) {
      return `while ${this.id} is paused: ${(e as Error).message}`;
    }
    return undefined;
  }

  /** Count one op; at the last, resume and wait for the catch-up by snapshot. */
  async tick(): Promise<string | undefined> {
    if (!this.paused || --this.opsLeft > 0) return undefined;
    return this.resume();
  }

  async resume(): Promise<string | undefined> {
    this.opsLeft = 0;
    this.f.cluster.signal(this.id, 'SIGCONT');
    try {
      await waitFor(`${this.id} catches up by snapshot`, () => (this.installs() > this.installsBefore ? true : undefined), CATCH_UP_MS);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  }

  /**
   * After the catch-up: the KeepAlive stream on the paused node was told its lease ended (ttl_ms 0),
   * or — the leader variant: a deposed leader ends its streams UNAVAILABLE (proto: reconnect and
   * resend) — it ended so and a fresh KeepAlive of the lease on that node says ttl_ms 0. Silence
   * (bounded) or anything else breaks the proto's promise. Returns [what broke, or undefined; the
   * coverage tag of what happened].
   */
  async keepAliveSettled(): Promise<[string | undefined, string]> {
    const ka = this.ka!;
    const told = () => (ka.answers.some((a) => Number(a.leaseId) === ka.lease && Number(a.ttlMs) === 0) ? 'ttl' : ka.error ? 'error' : undefined);
    let how: 'ttl' | 'error';
    try {
      how = await waitFor('the KeepAlive stream on the paused node hears of its lease', told, SETTLE_MS, 10);
    } catch {
      return [
        `a KeepAlive stream on ${this.id}, which caught up by snapshot, was told nothing of lease ${ka.lease}, revoked while it was paused (answers: ${JSON.stringify(ka.answers)})`,
        'keepalive stream silent',
      ];
    }
    const where = this.leader ? 'paused leader' : 'paused follower';
    if (how === 'ttl') return [undefined, `keepalive stream on a ${where} told ttl 0`];
    if (ka.error!.code !== UNAVAILABLE)
      return [
        `the KeepAlive stream on ${this.id} ended ${ka.error!.code} (${ka.error!.details}) instead of telling lease ${ka.lease} ended`,
        'keepalive stream failed',
      ];
    const again = await new Promise<LeaseKeepAliveResponse__Output | grpc.ServiceError>((res) => {
      const s = this.f.api(this.id).keepAliveStream();
      const timer = setTimeout(() => (s.cancel(), res(Object.assign(new Error('no answer'), { code: 4 }) as grpc.ServiceError)), SETTLE_MS);
      s.once('data', (r: LeaseKeepAliveResponse__Output) => (clearTimeout(timer), s.cancel(), res(r)));
      s.once('error', (e: grpc.ServiceError) => (clearTimeout(timer), res(e)));
      s.write({ leaseId: ka.lease });
    });
    if ('code' in again && !('ttlMs' in again))
      return again.code === UNAVAILABLE
        ? [undefined, 'keepalive inconclusive']
        : [`a fresh KeepAlive of lease ${ka.lease} on ${this.id} after its stream ended UNAVAILABLE: error ${again.code}`, 'keepalive stream failed'];
    const r = again as LeaseKeepAliveResponse__Output;
    if (Number(r.ttlMs) !== 0)
      return [`lease ${ka.lease}, revoked while ${this.id} was paused, is renewed by a fresh KeepAlive there (ttl ${r.ttlMs})`, 'keepalive stream failed'];
    return [undefined, `keepalive stream on a ${where} ended UNAVAILABLE, a fresh one told ttl 0`];
  }

  /** Whatever happened: the node runs again, the filler and KeepAlive leases are gone. */
  async end(): Promise<void> {
    if (this.paused) this.f.cluster.signal(this.id, 'SIGCONT');
    this.opsLeft = 0;
    this.ka?.stream.cancel();
    if (this.leaderPaused) await this.f.refreshLeader().catch(() => {});
    if (this.filler) await this.f.leader.revoke(this.filler).catch(() => {});
    if (this.ka) await this.f.leader.revoke(this.ka.lease).catch(() => {});
  }

  /** A lease renewed once (answered ttl > 0) on a KeepAlive stream served by the node to be paused: it watches it. */
  private async openKeepAlive(): Promise<void> {
    const lease = (await this.f.leader.grant(60_000)).leaseId;
    const stream = this.f.api(this.id).keepAliveStream();
    const ka: NonNullable<NodePause['ka']> = { lease, stream, answers: [] };
    this.ka = ka;
    stream.on('data', (r: LeaseKeepAliveResponse__Output) => ka.answers.push(r));
    stream.on('error', (e: grpc.ServiceError) => (ka.error = e));
    stream.write({ leaseId: lease });
    const r = await waitFor(
      `a KeepAlive of lease ${lease} on ${this.id}`,
      () => (ka.error ? 'error' : ka.answers.some((a) => Number(a.ttlMs) > 0) ? 'renewed' : undefined),
      SETTLE_MS,
      10,
    );
    if (r === 'error') throw new Error(`the stream ended ${ka.error!.code}: ${ka.error!.details}`);
  }

  private installs(): number {
    return this.f.cluster.log(this.id).match(/"event":"snapshot installed"/g)?.length ?? 0;
  }
}
