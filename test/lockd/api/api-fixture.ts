// A 3-node process cluster with a LockApi per node, and lease keepers stopped after each test.
// Its LockApis retry UNAVAILABLE with the same request id (as the real client does), so a leader
// change on a slow machine does not fail a test about something else; a test about what the wire
// says during a leader change starts it with `rawCalls: true` (one attempt per call).
import { waitFor, ProcessCluster, type ClusterOptions } from '../../support/process-cluster.js';
import { LockApi } from '../../support/lock-api-client.js';
import { LeaseKeeper } from '../../support/lease-keeper.js';

/** Room for a first build of dist/ and an election on a loaded machine. */
export const START_TIMEOUT_MS = 120_000;

export interface FixtureOptions {
  /** One attempt per call: UNAVAILABLE reaches the test (failover tests check it). */
  readonly rawCalls?: boolean;
}

export class ApiFixture {
  private readonly apis = new Map<string, LockApi>();
  private readonly keepers = new Set<LeaseKeeper>();
  leaderId = '';

  private constructor(
    readonly cluster: ProcessCluster,
    private readonly rawCalls: boolean,
  ) {}

  /** A 3-node cluster by default; on a failed start-up its nodes are stopped (data kept) before the error is thrown. */
  static async start(opts: Partial<ClusterOptions> & FixtureOptions = {}): Promise<ApiFixture> {
    const { rawCalls = false, ...clusterOpts } = opts;
    const f = new ApiFixture(await ProcessCluster.start({ size: 3, ...clusterOpts }), rawCalls);
    try {
      f.leaderId = await f.cluster.waitForLeader(undefined, 60_000); // a loaded machine starts nodes slowly
      await f.cluster.waitForApplied(1); // the leader's no-op: the log is quiet from here until a test writes
    } catch (e) {
      await f.cluster.stop(true);
      throw e;
    }
    return f;
  }

  api(id: string): LockApi {
    let a = this.apis.get(id);
    if (!a) this.apis.set(id, (a = new LockApi(this.cluster.node(id).address, { retryUnavailable: !this.rawCalls })));
    return a;
  }

  get leader(): LockApi {
    return this.api(this.leaderId);
  }

  /** A node that is not the leader (the first one). */
  get follower(): LockApi {
    return this.api(this.cluster.nodes.find((n) => n.id !== this.leaderId && this.cluster.isRunning(n.id))!.id);
  }

  /** Every running node's API. */
  running(): LockApi[] {
    return this.cluster.nodes.filter((n) => this.cluster.isRunning(n.id)).map((n) => this.api(n.id));
  }

  /** Grant a lease and keep it alive (every ttl/3, through any running node) until the test ends. */
  async keptLease(ttlMs: number, via: LockApi = this.leader): Promise<LeaseKeeper> {
    const { leaseId } = await via.grant(ttlMs);
    const k = new LeaseKeeper(this.running(), leaseId, Math.floor(ttlMs / 3)).start();
    this.keepers.add(k);
    return k;
  }

  stopKeepers(): void {
    for (const k of this.keepers) k.stop();
    this.keepers.clear();
  }

  /** Re-learn the leader after a failover. */
  async refreshLeader(): Promise<string> {
    this.leaderId = await this.cluster.waitForLeader();
    return this.leaderId;
  }

  async stop(): Promise<void> {
    this.stopKeepers();
    for (const a of this.apis.values()) a.close();
    this.apis.clear();
    await this.cluster.stop();
  }
}

/**
 * The usual mocha wiring for a describe block that shares one fixture: start it before the block,
 * stop its keepers after each test, stop it after the block. `use` receives it once started.
 */
export function useApiFixture(use: (f: ApiFixture) => void, opts: Partial<ClusterOptions> & FixtureOptions = {}): void {
  let f: ApiFixture | undefined;
  before(async function () {
    // Start-up is bounded by its own parts (the build, the election wait), not by a test's timeout.
    this.timeout(Math.max(this.timeout(), START_TIMEOUT_MS));
    f = await ApiFixture.start(opts);
    use(f);
  });
  afterEach(() => f?.stopKeepers());
  after(async () => {
    await f?.stop();
  });
}

export { waitFor };
