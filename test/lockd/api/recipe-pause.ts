// A world op of the recipe property test: a follower paused (SIGSTOP, as a GC pause or a stopped VM
// would) while the others move on and compact their logs past it, then resumed. It catches up by
// snapshot, which carries no per-entry events: its Lock.Observe streams must still add up to each
// lock's holders (a RESYNC event, never silence; recipe-checks.ts foldDisagrees).
import type { ApiFixture } from './api-fixture.js';
import { waitFor } from './api-fixture.js';

/**
 * More single-entry writes than the leader sends a paused follower unacknowledged (its inflight
 * window, 256 messages, sits in the follower's socket and is applied entry by entry on resume):
 * what comes after them reaches it only by snapshot. The fixture compacts every few entries.
 */
const FILLERS = 300;
const CATCH_UP_MS = 20_000;
export const SNAPSHOT_EVERY = '10';

export class FollowerPause {
  /** The paused node's index in the cluster (the unary senders' order). */
  readonly index: number;
  readonly id: string;
  private readonly leaderIndex: number;
  private installsBefore = 0;
  private filler = 0;
  /** Ops left until the resume (0: not paused). */
  opsLeft = 0;

  constructor(private readonly f: ApiFixture, private readonly prefix: string) {
    this.index = f.cluster.nodes.findIndex((n) => n.id !== f.leaderId);
    this.id = f.cluster.nodes[this.index].id;
    this.leaderIndex = f.cluster.nodes.findIndex((n) => n.id === f.leaderId);
  }

  get paused(): boolean {
    return this.opsLeft > 0;
  }

  /** Where a call meant for node `via` (3: the Session, which is on the leader) goes now. */
  route(via: number): number {
    return this.paused && via === this.index ? this.leaderIndex : via;
  }

  /** Pause for the next `ops` ops; a string says why the run cannot go on (a leader change). */
  async pause(ops: number): Promise<string | undefined> {
    this.installsBefore = this.installs();
    this.f.cluster.signal(this.id, 'SIGSTOP');
    this.opsLeft = ops;
    try {
      if (!this.filler) this.filler = (await this.f.leader.grant(60_000)).leaseId;
      for (let k = 0; k < FILLERS; k++) await this.f.leader.acquire(`${this.prefix}-filler`, this.filler);
    } catch (e) {
      return `filling the log while ${this.id} is paused: ${(e as Error).message}`;
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

  /** Whatever happened: the node runs again, the filler lease is gone. */
  async end(): Promise<void> {
    if (this.paused) this.f.cluster.signal(this.id, 'SIGCONT');
    this.opsLeft = 0;
    if (this.filler) await this.f.leader.revoke(this.filler).catch(() => {});
  }

  private installs(): number {
    return this.f.cluster.log(this.id).match(/"event":"snapshot installed"/g)?.length ?? 0;
  }
}
