// One lockd process: LevelDB storage, the Raft driver, the peer transport on the peer listener,
// plus whatever public services the composition root (main.ts) registers (listeners.ts).
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { EventBus } from '../observe/bus.js';
import { NodeSource } from '../observe/node-source.js';
import { loopActivity } from '../observe/loop-activity.js';
import { StallWatch } from '../observe/stall-watch.js';
import { loggerLimiter } from '../observe/log-limiter.js';
import { clusterHas } from './cluster-version.js';
import { LockStateMachine, type ApplyOutput } from '../state-machine/index.js';
import { NodeSecurity } from '../security/node-security.js';
import { AccessControl } from '../security/access-control.js';
import { LevelStorage, makeDataDirPrivate, migrateDataDir } from '../storage/index.js';
import { PEER_SERVER_OPTIONS, PeerTransport } from '../transport/index.js';
import type { NodeConfig } from './config.js';
import { realClock } from './clock.js';
import { Listeners } from './listeners.js';
import { LeaseClock, leaseClockTiming } from './lease-clock.js';
import { Membership } from './membership.js';
import type { NodeContext, ServiceRegistrar } from './node-context.js';
import { PeerDirectory } from './peer-directory.js';
import { RaftDriver } from './raft-driver.js';
import { TestFaults } from './test-faults.js';
import { transferBoundMs, type TransferOutcome } from './leader-transfer.js';
import { forceAtStart } from './force-start.js';
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
    const wasOpen = makeDataDirPrivate(config.dataDir);
    if (wasOpen !== undefined)
      logger.warn({ event: 'data dir made private', dir: config.dataDir, mode: wasOpen.toString(8) }, `data dir ${config.dataDir} was mode ${wasOpen.toString(8)} (others could read it): made it 0700`);
    // A data dir of the previous storage format is copied, then migrated (storage/migrate.ts); a
    // newer one is refused (DataDirError 'format', exit 3).
    const migrated = await migrateDataDir(config.dataDir, buildLine(), { clusterId: config.clusterId, nodeId: config.id });
    if (migrated)
      logger.warn(
        { event: 'data dir migrated', dir: config.dataDir, from: migrated.from, to: migrated.to, backup: migrated.backup },
        `data dir ${config.dataDir} migrated from storage format ${migrated.from} to ${migrated.to}; the dir as it was is kept at ${migrated.backup} (delete it once the upgrade is done)`,
      );
    // Recovery from a lost quorum: the data dir becomes a one-voter cluster before it is opened.
    if (config.forceNewCluster) await forceAtStart(config, logger);
    const storage = await LevelStorage.open({
      dir: config.dataDir,
      clusterId: config.clusterId,
      nodeId: config.id,
      // --join: a fresh data dir starts with no configuration and learns it from the cluster.
      voters: config.join ? [] : [...config.peers.keys()],
      writer: buildLine(),
      ...(config.unsafeNoFsync ? { unsafeNoSync: true } : {}),
    });
    if (config.unsafeNoFsync)
      logger.warn({ event: 'unsafe no fsync' }, 'UNSAFE: --unsafe-no-fsync: no LevelDB write is synced, a power cut loses acknowledged state; a test control build only, never run a real cluster like this');
    logger.info({ event: 'data dir opened', dir: config.dataDir, created: storage.created, lastIndex: storage.memory.lastIndex() }, 'data dir opened');
    const testFaults = config.unsafeTestFaults === undefined ? undefined : new TestFaults(config.unsafeTestFaults, logger);
    const stateMachine = new LockStateMachine();
    // The observation stream exists before the driver, so its first decisions are published too.
    const bus = new EventBus(config.id, () => storage.memory.hardState().term); // the term as on disk
    const source = new NodeSource(bus, config.id, storage.memory.hardState(), stateMachine);
    const stalls = new StallWatch(logger);
    // Refusals and protocol errors: a count per interval, not a line each (observe/log-limiter.ts).
    const refusals = loggerLimiter(logger, () => realClock.monoMs(), (ms, fn) => realClock.every(ms, fn).unref());
    const driverRef: { current?: RaftDriver<ApplyOutput> } = {}; // set just below, before any second has passed
    stalls.onSecond = (maxMs) => {
      bus.publish({ type: 'loop-lag', maxMs: Math.round(maxMs), heartbeatGapMs: Math.round(source.heartbeats.takeMax()) });
      // The leader's view of each member's log, for the dashboard's log strip (RaftScope's match/next).
      const progress = driverRef.current?.status().progress;
      if (progress && progress.size > 0) {
        const ids = [...progress.keys()].sort();
        bus.publish({ type: 'progress', followers: ids, match: ids.map((id) => progress.get(id)!.match), next: ids.map((id) => progress.get(id)!.next), state: ids.map((id) => progress.get(id)!.state), inflight: ids.map((id) => progress.get(id)!.inflight) });
      }
    };
    // Every timer and deadline of the node runs on its clock (the simulator gives its own: test/sim/node).
    const clock = realClock;
    const driver = new RaftDriver<ApplyOutput>({
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
    driverRef.current = driver;
    // --peers first (this start's word wins), then the addresses saved by earlier runs.
    const directory = new PeerDirectory(config.id, config.peers, config.advertiseClient, config.advertiseHttp);
    directory.addAddresses(storage.peerBook);
    const peers = new Map(Object.entries(directory.book()).filter(([id]) => id !== config.id).map(([id, a]) => [id, a.peer]));
    // Until the node exists, a removal it hears of waits here.
    let removedEarly: string | undefined;
    let removed = (why: string): void => void (removedEarly ??= why);
    const transport = new PeerTransport({
      clusterId: config.clusterId,
      selfId: config.id,
      peers,
      logger,
      refusals: refusals.log,
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
      onRemoved: (by) => removed(`${by} refused this node's stream: its committed configuration removed ${config.id}`),
    });
    const saveBook = () => void storage.savePeers(directory.book()).catch((e: unknown) => logger.warn({ err: e }, 'saving member addresses failed'));
    const membership = new Membership(config.id, driver, directory, logger, (id) => transport.removePeer(id), saveBook);
    directory.onAdded((id, address) => {
      logger.info({ event: 'member address', member: id, peerAddress: address }, `new member ${id} at ${address}`);
      transport.addPeer(id, address);
    });
    const memory = storage.memory;
    membership.replay(memory.lastIndex() >= memory.firstIndex() ? memory.entries(memory.firstIndex(), memory.lastIndex() + 1) : [], memory.hardState().commit);
    saveBook();
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
    const leaseClock = new LeaseClock({ driver, stateMachine, logger, clock, clusterVersion: () => directory.clusterVersion(), ...(testFaults ? { testFaults } : {}) }, leaseClockTiming(config));
    const ctx: NodeContext = { config, driver, stateMachine, logger, clock, peers: directory, membership, security, access, leaseClock, refusals: refusals.log, observe: { bus, source, stalls }, ...(testFaults ? { testFaults } : {}) };
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
    removed = (why) => node.removed(why);
    const byOwnLog = `this node's log holds, committed, the change that removed ${config.id}`;
    driver.onRemoved(() => removed(byOwnLog));
    if (driver.selfRemoved()) removed(byOwnLog);
    else if (removedEarly) removed(removedEarly);
    logger.info(
      { event: 'listening', address: config.listen, peerAddress: config.peerListen, advertiseClient: config.advertiseClient, peers: Object.fromEntries(config.peers), tls: security.summary ?? false, clientCertAuth: config.clientCertAuth, acl: config.acl, admins: config.admins },
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
    if (o.kind === 'done') this.ctx.logger.info({ event: 'handed off', to: o.leader, term: o.term, ms }, `leadership handed to ${o.leader} before stopping (${ms} ms)`);
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
