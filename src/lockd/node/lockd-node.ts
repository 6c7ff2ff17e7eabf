// One lockd process: LevelDB storage, the Raft driver and the peer transport on one gRPC server,
// plus whatever public services the composition root (main.ts) registers on it.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { EventBus } from '../observe/bus.js';
import { NodeSource } from '../observe/node-source.js';
import { LockStateMachine, type ApplyOutput } from '../state-machine/index.js';
import { LevelStorage } from '../storage/index.js';
import { PEER_SERVER_OPTIONS, PeerTransport } from '../transport/index.js';
import type { NodeConfig } from './config.js';
import type { NodeContext, ServiceRegistrar } from './node-context.js';
import { RaftDriver } from './raft-driver.js';

export class LockdNode {
  private constructor(
    readonly ctx: NodeContext,
    private readonly storage: LevelStorage,
    private readonly transport: PeerTransport,
    private readonly server: grpc.Server,
    private readonly closers: Array<{ close(): void }>,
    readonly port: number,
  ) {}

  /**
   * `serverOptions` are the registered services' needs of the shared grpc.Server (limits,
   * interceptors); the peer transport's options win where both set one (its message limit).
   */
  static async start(config: NodeConfig, logger: Logger, registrars: ServiceRegistrar[] = [], serverOptions: grpc.ServerOptions = {}): Promise<LockdNode> {
    const storage = await LevelStorage.open({
      dir: config.dataDir,
      clusterId: config.clusterId,
      nodeId: config.id,
      voters: [...config.peers.keys()],
    });
    logger.info({ event: 'data dir opened', dir: config.dataDir, created: storage.created, lastIndex: storage.memory.lastIndex() }, 'data dir opened');
    const stateMachine = new LockStateMachine();
    // The observation stream exists before the driver, so its first decisions are published too.
    const bus = new EventBus(config.id, () => storage.memory.hardState().term); // the term as on disk
    const source = new NodeSource(bus, config.id, storage.memory.hardState());
    const driver = new RaftDriver<ApplyOutput>({
      id: config.id,
      voters: storage.voters, // the stored configuration (the same ids as --peers: storage checked)
      storage,
      applier: {
        apply: (e) => stateMachine.apply(e),
        snapshot: () => stateMachine.snapshot(),
        restore: (data) => stateMachine.restore(data),
      },
      logger,
      electionTicks: config.electionTicks,
      heartbeatTicks: config.heartbeatTicks,
      tickMs: config.tickMs,
      snapshotEvery: config.snapshotEvery,
      observer: source.driverEvent,
    });
    driver.onRoleChange(source.roleChanged);
    driver.onApplied(source.applied);
    const peers = new Map([...config.peers].filter(([id]) => id !== config.id));
    const transport = new PeerTransport({
      clusterId: config.clusterId,
      selfId: config.id,
      peers,
      logger,
      onMessage: (m) => {
        source.message(m);
        driver.step(m);
      },
      onUnreachable: (id) => driver.reportUnreachable(id),
      onSnapshotStatus: (id, ok) => driver.reportSnapshot(id, ok),
    });
    driver.setOutbox({
      send: (messages) => {
        for (const m of messages) source.message(m);
        transport.send(messages);
      },
    });

    const server = new grpc.Server({ ...serverOptions, ...PEER_SERVER_OPTIONS });
    transport.addToServer(server);
    const ctx: NodeContext = { config, driver, stateMachine, logger, observe: { bus, source } };
    const closers: Array<{ close(): void }> = [];
    for (const register of registrars) {
      const closer = register(server, ctx);
      if (closer) closers.push(closer);
    }
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(config.listen, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    driver.start();
    logger.info({ event: 'listening', address: config.listen, peers: Object.fromEntries(config.peers) }, `listening on ${config.listen}`);
    return new LockdNode(ctx, storage, transport, server, closers, port);
  }

  async stop(): Promise<void> {
    for (const c of this.closers) c.close();
    await this.ctx.driver.stop();
    this.transport.close();
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
    await this.storage.close();
    this.ctx.logger.info({ event: 'stopped' }, 'node stopped');
  }
}
