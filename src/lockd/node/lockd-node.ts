// One lockd process: LevelDB storage, the Raft driver, the peer transport on the peer listener,
// plus whatever public services the composition root (main.ts) registers (listeners.ts).
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { EventBus } from '../observe/bus.js';
import { NodeSource } from '../observe/node-source.js';
import { loopActivity } from '../observe/loop-activity.js';
import { StallWatch } from '../observe/stall-watch.js';
import { loggerLimiter, type RefusalLog } from '../observe/log-limiter.js';
import { clusterHas } from './cluster-version.js';
import { LockStateMachine, type ApplyOutput } from '../state-machine/index.js';
import { NodeSecurity } from '../security/node-security.js';
import { AccessControl } from '../security/access-control.js';
import type { LevelStorage } from '../storage/index.js';
import { PEER_SERVER_OPTIONS, PeerTransport } from '../transport/index.js';
import type { NodeConfig } from './config.js';
import { realClock, type Clock } from './clock.js';
import { Listeners } from './listeners.js';
import { LeaseClock, leaseClockTiming } from './lease-clock.js';
import { Membership } from './peer-membership.js';
import type { NodeContext, ServiceRegistrar } from './node-context.js';
import { PeerDirectory } from './peer-directory.js';
import { RaftDriver } from './raft-driver.js';
import { TestFaults } from './test-faults.js';
import { transferBoundMs, type TransferOutcome } from './leader-transfer.js';
import { openStorage } from './open-storage.js';
import { buildLine } from './versions.js';

/** Why a node stopped itself: its id was removed from the cluster (main.ts exits EXIT_REMOVED). */
export class RemovedError extends Error {}

/** The longest a stopping leader waits for its hand-off: a shutdown must not hang on a dead target. */
export const HANDOFF_MAX_MS = 2000;

export class LockdNode {
  private removedListener: ((e: RemovedError) => void) | undefined;
  private removedError: RemovedError | undefined;

  private constructor(
    readonly ctx: NodeContext,
    private readonly storage: LevelStorage,
    private readonly transport: PeerTransport,
    private readonly listeners: Listeners,
    private readonly closers: Array<{ close(): void }>,
    /** The bound client port. */
    readonly port: number,
    readonly peerPort: number,
  ) {}

  /**
   * `serverOptions` are the registered services' needs of the servers (limits, interceptors). The
   * public listener gets them as they are (its message limit is the public API's); the peer
   * listener gets them with the peer transport's options winning (whole Raft messages, 64 MiB):
   * a forwarded public call there is still bounded by its service's own limit (api/public-limits.ts).
   */
  static async start(config: NodeConfig, logger: Logger, registrars: ServiceRegistrar[] = [], serverOptions: grpc.ServerOptions = {}): Promise<LockdNode> {
    // TLS files first: unusable ones must stop the node before it touches its data dir.
    const security = NodeSecurity.fromConfig(config);
    const storage = await openStorage(config, logger);
    const testFaults = config.unsafeTestFaults === undefined ? undefined : new TestFaults(config.unsafeTestFaults, logger);
    const stateMachine = new LockStateMachine();
    // The observation stream exists before the driver, so its first decisions are published too.
    const { bus, source, stalls, refusals } = observation(config, logger, storage, stateMachine);
    // Every timer and deadline of the node runs on its clock (the simulator gives its own: test/sim/node).
    const clock = realClock;
    const driver = newDriver(config, logger, clock, storage, stateMachine, source);
    stalls.onSecond = everySecond(bus, source, driver);
    // --peers first (this start's word wins), then the addresses saved by earlier runs.
    const directory = new PeerDirectory(config.id, config.peers, config.advertiseClient, config.advertiseHttp);
    directory.addAddresses(storage.peerBook);
    const removal = new Removal();
    const transport = newTransport(config, logger, { security, directory, driver, source, refusals, removal, ...(testFaults ? { testFaults } : {}) });
    const membership = followMembership(config, logger, storage, driver, directory, transport);
    driver.onRoleChange(source.roleChanged);
    driver.onApplied(source.applied);
    driver.setOutbox({
      send: (messages) => {
        if (testFaults?.isolated) return;
        for (const m of messages) source.message(m);
        loopActivity.run('peer send', () => transport.send(messages));
      },
    });

    const listeners = new Listeners(config, security, directory, refusals.log, serverOptions, { ...serverOptions, ...PEER_SERVER_OPTIONS });
    transport.addToServer(listeners.peerServer);
    const access = new AccessControl(config, stateMachine, () => clusterHas('quotas', directory.clusterVersion()));
    // Replicated time is the node's: its leader proposes Ticks whatever services are registered.
    const leaseClock = new LeaseClock(
      {
        driver,
        stateMachine,
        logger,
        clock,
        clusterVersion: () => directory.clusterVersion(),
        onTickProposed: source.tickProposed,
        ...(testFaults ? { testFaults } : {}),
      },
      leaseClockTiming(config),
    );
    const ctx: NodeContext = {
      config,
      driver,
      stateMachine,
      logger,
      clock,
      peers: directory,
      membership,
      security,
      access,
      leaseClock,
      refusals: refusals.log,
      observe: { bus, source, stalls },
      ...(testFaults ? { testFaults } : {}),
    };
    const closers: Array<{ close(): void }> = [stalls, leaseClock, refusals];
    stalls.addQueue('raftInputs', () => driver.queued().inputs);
    stalls.addQueue('proposals', () => driver.queued().proposals);
    stalls.addQueue('reads', () => driver.queued().reads);
    stalls.addQueue('busSubscribers', () => bus.subscribers);
    for (const register of registrars) {
      const closer = register(listeners.registry, ctx);
      if (closer) closers.push(closer);
    }
    // The clock follows the driver after the services do, so an applied Tick reaches their listeners
    // first (a lease's end reaches its keepalive streams before the Tick's renewals are answered), as
    // it did when the lock API built the clock.
    leaseClock.run();
    let ports;
    try {
      ports = await listeners.bind();
    } catch (e) {
      transport.close();
      await storage.close();
      throw e;
    }
    driver.start();
    const node = new LockdNode(ctx, storage, transport, listeners, closers, ports.clientPort, ports.peerPort);
    // The node's own log says it was removed, or (if not) a member refused its stream before now.
    const byOwnLog = `this node's log holds, committed, the change that removed ${config.id}`;
    driver.onRemoved(() => node.removed(byOwnLog));
    if (driver.selfRemoved()) node.removed(byOwnLog);
    removal.tell((why) => node.removed(why));
    logger.info(
      {
        event: 'listening',
        address: config.listen,
        peerAddress: config.peerListen,
        advertiseClient: config.advertiseClient,
        peers: Object.fromEntries(config.peers),
        tls: security.summary ?? false,
        clientCertAuth: config.clientCertAuth,
        acl: config.acl,
        admins: config.admins,
      },
      `listening on ${config.listen} (clients) and ${config.peerListen} (peers)${security.enabled ? ' with TLS' : ''}`,
    );
    return node;
  }

  /**
   * Called once when this node learns it was removed from the cluster; `cb` should stop it (main.ts
   * exits EXIT_REMOVED). If that already happened (a removed node restarted), `cb` runs at once.
   */
  onRemoved(cb: (e: RemovedError) => void): void {
    this.removedListener = cb;
    if (this.removedError) cb(this.removedError);
  }

  private removed(why: string): void {
    if (this.removedError) return;
    this.removedError = new RemovedError(
      `node ${this.ctx.config.id} was removed from the cluster (${why}); it stops, and may not come back under this id: ` +
        'wipe its data dir and add it as a new member with a new id (lockctl member add)',
    );
    this.ctx.logger.fatal({ event: 'removed from cluster', why }, this.removedError.message);
    this.removedListener?.(this.removedError);
  }

  /** Re-read the TLS files (SIGHUP); throws TlsMaterialError and changes nothing when they are unusable. */
  reloadTls(): void {
    const r = this.ctx.security.reload();
    if (r.changed) this.ctx.logger.info({ event: 'tls reloaded', tls: r.summary }, 'TLS certificates reloaded; new connections use them');
    else this.ctx.logger.info({ event: 'tls reload skipped' }, 'SIGHUP: TLS is off (no --tls-cert), nothing to reload');
  }

  /**
   * Graceful shutdown's first step (SIGTERM): on the leader, hand leadership to the most caught-up
   * voter and wait — at most `boundMs` (default: the transfer bound, two election timeouts, but no
   * more than HANDOFF_MAX_MS) — until another leader is known, so the cluster does not sit an
   * election timeout without one. A follower returns at once. Never throws: a transfer that fails is
   * logged and the node stops anyway (a target that got TimeoutNow still campaigns).
   */
  async handOff(boundMs = Math.min(transferBoundMs(this.ctx.config), HANDOFF_MAX_MS)): Promise<TransferOutcome | undefined> {
    if (!this.ctx.driver.isLeader()) return undefined;
    const t0 = Date.now();
    const o = await this.ctx.driver.transferLeadership(undefined, boundMs);
    const ms = Date.now() - t0;
    if (o.kind === 'done')
      this.ctx.logger.info({ event: 'handed off', to: o.leader, term: o.term, ms }, `leadership handed to ${o.leader} before stopping (${ms} ms)`);
    else if (o.kind === 'no-target') this.ctx.logger.info({ event: 'hand-off skipped' }, 'the only voter: no one to hand leadership to');
    else this.ctx.logger.warn({ event: 'hand-off failed', outcome: o, ms }, `could not hand leadership over before stopping (${o.kind}); stopping anyway`);
    return o;
  }

  async stop(): Promise<void> {
    for (const c of this.closers) c.close();
    await this.ctx.driver.stop();
    this.transport.close();
    await this.listeners.shutdown();
    await this.storage.close();
    this.ctx.logger.info({ event: 'stopped' }, 'node stopped');
  }
}

/** The node's observation stream (observe/), its loop-stall watch, and the refusal log. */
function observation(config: NodeConfig, logger: Logger, storage: LevelStorage, stateMachine: LockStateMachine) {
  const bus = new EventBus(config.id, () => storage.memory.hardState().term); // the term as on disk
  const source = new NodeSource(bus, config.id, storage.memory.hardState(), stateMachine);
  const stalls = new StallWatch(logger);
  // Refusals and protocol errors: a count per interval, not a line each (observe/log-limiter.ts).
  const refusals = loggerLimiter(
    logger,
    () => realClock.monoMs(),
    (ms, fn) => realClock.every(ms, fn).unref(),
  );
  return { bus, source, stalls, refusals };
}

/** What the stall watch publishes once a second: the loop's lag and, on a leader, each member's log. */
function everySecond(bus: EventBus, source: NodeSource, driver: RaftDriver<ApplyOutput>): (maxMs: number) => void {
  return (maxMs) => {
    bus.publish({ type: 'loop-lag', maxMs: Math.round(maxMs), heartbeatGapMs: Math.round(source.heartbeats.takeMax()) });
    // The leader's view of each member's log, for the dashboard's log strip (RaftScope's match/next).
    const progress = driver.status().progress;
    if (progress.size > 0) {
      const ids = [...progress.keys()].sort();
      bus.publish({
        type: 'progress',
        followers: ids,
        match: ids.map((id) => progress.get(id)!.match),
        next: ids.map((id) => progress.get(id)!.next),
        state: ids.map((id) => progress.get(id)!.state),
        inflight: ids.map((id) => progress.get(id)!.inflight),
      });
    }
  };
}

function newDriver(
  config: NodeConfig,
  logger: Logger,
  clock: Clock,
  storage: LevelStorage,
  stateMachine: LockStateMachine,
  source: NodeSource,
): RaftDriver<ApplyOutput> {
  return new RaftDriver<ApplyOutput>({
    id: config.id,
    clock,
    voters: storage.voters, // the stored configuration (the same ids as --peers: storage checked)
    storage,
    applier: {
      apply: (e) => source.timedApply(e, () => stateMachine.apply(e)),
      snapshot: () => loopActivity.run('snapshot build', () => stateMachine.snapshot()),
      restore: (data) => loopActivity.run('snapshot install', () => stateMachine.restore(data)),
    },
    logger,
    electionTicks: config.electionTicks,
    heartbeatTicks: config.heartbeatTicks,
    tickMs: config.tickMs,
    snapshotEvery: config.snapshotEvery,
    promoteMaxLag: config.promoteMaxLag,
    observer: source.driverEvent,
  });
}

interface TransportParts {
  readonly security: NodeSecurity;
  readonly directory: PeerDirectory;
  readonly driver: RaftDriver<ApplyOutput>;
  readonly source: NodeSource;
  readonly refusals: { readonly log: RefusalLog };
  readonly removal: Removal;
  readonly testFaults?: TestFaults;
}

/** The peer transport: what it receives goes to the driver (through the observation source), what it learns to the directory. */
function newTransport(config: NodeConfig, logger: Logger, p: TransportParts): PeerTransport {
  const { security, directory, driver, source, testFaults } = p;
  const peers = new Map(
    Object.entries(directory.book())
      .filter(([id]) => id !== config.id)
      .map(([id, a]) => [id, a.peer]),
  );
  return new PeerTransport({
    clusterId: config.clusterId,
    selfId: config.id,
    peers,
    logger,
    refusals: p.refusals.log,
    onMessage: (m) => {
      if (testFaults?.isolated) return; // test fault: as if the network lost it
      source.message(m);
      driver.step(m);
    },
    onUnreachable: (id) => driver.reportUnreachable(id),
    onSnapshotStatus: (id, ok) => driver.reportSnapshot(id, ok),
    channel: (id) => security.peerChannel(id),
    authenticate: (call, sender) => security.peerCallerProblem(call, sender),
    clientAddress: config.advertiseClient,
    httpAddress: config.advertiseHttp ?? '',
    build: buildLine(),
    onAddresses: (id, stated) => directory.learn(id, stated),
    isPeer: (id) => directory.isMember(id),
    isRemoved: (id) => directory.isRemoved(id),
    onRemoved: (by) => p.removal.report(`${by} refused this node's stream: its committed configuration removed ${config.id}`),
  });
}

/** Membership as the node follows it: the stored log replayed, then every change the driver applies; the directory's addresses saved. */
function followMembership(
  config: NodeConfig,
  logger: Logger,
  storage: LevelStorage,
  driver: RaftDriver<ApplyOutput>,
  directory: PeerDirectory,
  transport: PeerTransport,
): Membership {
  const saveBook = () => void storage.savePeers(directory.book()).catch((e: unknown) => logger.warn({ err: e }, 'saving member addresses failed'));
  const membership = new Membership(config.id, driver, directory, logger, (id) => transport.removePeer(id), saveBook);
  directory.onAdded((id, address) => {
    logger.info({ event: 'member address', member: id, peerAddress: address }, `new member ${id} at ${address}`);
    transport.addPeer(id, address);
  });
  const memory = storage.memory;
  membership.replay(memory.lastIndex() >= memory.firstIndex() ? memory.entries(memory.firstIndex(), memory.lastIndex() + 1) : [], memory.hardState().commit);
  saveBook();
  return membership;
}

/** A removal heard of before the node exists (a member refused its stream) waits here until the node is told. */
class Removal {
  private early: string | undefined;
  private sink: ((why: string) => void) | undefined;

  report(why: string): void {
    if (this.sink) this.sink(why);
    else this.early ??= why;
  }

  /** From now on every report goes to `sink`; one that came earlier goes at once. */
  tell(sink: (why: string) => void): void {
    this.sink = sink;
    if (this.early !== undefined) sink(this.early);
  }
}
