// One simulated lockd node: the real RaftDriver (driver-loop.ts inside) on the simulated disk
// (../disk.ts through ../sim-storage.ts), the real LockStateMachine, the real LeaseClock, and the
// real lock API (lock-api.ts: Lease, Lock, Fence, Election, Session handlers with their waits,
// streams and router), every part on this node's simulated Clock. What LockdNode adds on a real
// process — LevelDB, the gRPC servers, the peer transport, TLS, the observation layer — is replaced:
// the handlers are captured from a fake ServiceRegistry and called by calls.ts over the world's
// network; forwarding to the leader goes over that network too (sim-forwarder.ts).
import pino from 'pino';
import { parseConfig, type NodeConfig } from '../../../src/lockd/node/config.js';
import type { NodeContext, ServiceRegistrar } from '../../../src/lockd/node/node-context.js';
import { RaftDriver, type DriverStorage } from '../../../src/lockd/node/raft-driver.js';
import { LeaseClock, leaseClockTiming } from '../../../src/lockd/node/lease-clock.js';
import { Membership } from '../../../src/lockd/node/peer-membership.js';
import { PeerDirectory } from '../../../src/lockd/node/peer-directory.js';
import { forwardedPath, type ServiceRegistry } from '../../../src/lockd/node/listeners.js';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import { NodeSource } from '../../../src/lockd/observe/node-source.js';
import { AccessControl } from '../../../src/lockd/security/access-control.js';
import { NodeSecurity } from '../../../src/lockd/security/node-security.js';
import { LockStateMachine, type ApplyOutput } from '../../../src/lockd/state-machine/index.js';
import type { Entry, Message } from '../../../src/raft/types.js';
import type * as grpc from '@grpc/grpc-js';
import { Disk } from '../disk.js';
import type { Prng } from '../prng.js';
import { SimStorage } from '../sim-storage.js';
import type { MethodDef, Served, SimServer } from './calls.js';
import type { NodeAdapters } from './bugs.js';
import type { NodeClock, World } from './world.js';

const SILENT = pino({ level: 'silent' });

export interface HostSettings {
  readonly tickMs: number;
  readonly electionTicks: number;
  readonly heartbeatTicks: number;
  readonly snapshotEvery: number;
  /** Entries kept behind a snapshot (small: lagging followers need snapshots). */
  readonly compactKeep: number;
  readonly diskMaxMs: number;
}

/** What a host needs of the world around it. */
export interface HostWorld {
  readonly world: World;
  readonly prng: Prng;
  send(from: string, m: Message): void;
  /** Every entry applied on any node, in each node's apply order (the oracle keeps the first). */
  applied(node: string, entry: Entry, out: ApplyOutput): void;
  /** A snapshot replaced this node's state at `index`. */
  replaced(node: string, index: number): void;
  fatal(node: string, e: Error): void;
}

export function simConfig(id: string, ids: readonly string[], s: HostSettings): NodeConfig {
  const peers = ids.map((n) => `${n}=${n}.sim:7101`).join(',');
  return parseConfig(
    [
      '--id',
      id,
      '--listen',
      `${id}.sim:7001`,
      '--peer-listen',
      `${id}.sim:7101`,
      '--peers',
      peers,
      '--data-dir',
      `/nonexistent/${id}`,
      '--cluster-id',
      'sim',
      '--tick-ms',
      String(s.tickMs),
      '--election-ticks',
      String(s.electionTicks),
      '--heartbeat-ticks',
      String(s.heartbeatTicks),
      '--snapshot-every',
      String(s.snapshotEvery),
    ],
    {},
  );
}

/** The handlers a registrar registered, by public path (a forwarded path finds the same one). */
class CapturingRegistry implements ServiceRegistry, SimServer {
  private readonly byPath = new Map<string, Served>();

  constructor(
    readonly id: string,
    private readonly rewrite?: (path: string, res: Record<string, unknown>) => Record<string, unknown>,
  ) {}

  addPublic(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void {
    this.add(service, impl, false);
  }

  addForwardable(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void {
    this.add(service, impl, true);
  }

  /** The simulated network has no sockets or HTTP/2 calls to admit, nor connections to close. */
  setAdmission(): { closeConnection(): boolean } {
    return { closeConnection: () => false };
  }

  private add(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation, forwardable: boolean): void {
    for (const [name, def] of Object.entries(service)) {
      const own = (impl[name] ?? impl[def.originalName ?? '']) as Served['handler'] | undefined;
      if (!own) continue;
      const rewrite = this.rewrite;
      const handler: Served['handler'] =
        rewrite && !def.responseStream
          ? (call, cb) =>
              own(call, (err: unknown, res: unknown) =>
                (cb as (e: unknown, r: unknown) => void)(err, res ? rewrite(def.path, res as Record<string, unknown>) : res),
              )
          : own;
      const served = { def: def as unknown as MethodDef, handler };
      this.byPath.set(def.path, served);
      if (forwardable) this.byPath.set(forwardedPath(def.path), served);
    }
  }

  method(path: string): Served | undefined {
    return this.byPath.get(path);
  }
}

export class NodeHost {
  readonly disk = new Disk();
  readonly config: NodeConfig;
  ctx!: NodeContext;
  driver!: RaftDriver<ApplyOutput>;
  stateMachine!: LockStateMachine;
  registry!: CapturingRegistry;
  private closers: Array<{ close(): void }> = [];
  up = false;

  constructor(
    readonly id: string,
    readonly ids: readonly string[],
    readonly settings: HostSettings,
    readonly clock: NodeClock,
    private readonly w: HostWorld,
    private readonly registrars: readonly ServiceRegistrar[],
    /** Adapters a planted bug puts around the node's parts (bugs.ts); none for the correct build. */
    private readonly adapt: NodeAdapters = {},
  ) {
    this.config = simConfig(id, ids, settings);
  }

  /** Start from what the disk holds (a fresh disk: a new cluster of `ids`). */
  start(): void {
    const { config, clock, settings: s } = this;
    const prng = this.w.prng;
    const world = this.w.world;
    if (!this.disk.voters) this.disk.voters = this.ids;
    // Each write reaches the disk after its drawn latency, in order (sim-storage.ts); its completion is a world event.
    let latency = 0;
    // (no restarts in this world: it starts from the image, not through the loader as sim-node.ts does)
    const sim = new SimStorage(this.disk, this.disk.cached.toStorage(this.disk.voters), {
      now: () => world.now,
      latency: () => (latency = s.diskMaxMs > 0 ? prng.range(0, s.diskMaxMs) : 0),
      compactKeep: s.compactKeep,
      queued: () => world.at(world.now + latency, this.id, () => sim.completeDue()),
    });
    const storage: DriverStorage = {
      memory: sim.memory,
      persist: (batch, { sync }) => new Promise((res, rej) => sim.write(batch, sync, (e) => (e ? rej(e) : res()))),
      compact: (snap) => new Promise((res, rej) => sim.compact(snap, (e) => (e ? rej(e) : res()))),
    };
    const sm = (this.stateMachine = new LockStateMachine());
    const raw = new RaftDriver<ApplyOutput>({
      id: this.id,
      voters: this.disk.voters,
      storage,
      clock,
      applier: { apply: (e) => sm.apply(e), snapshot: () => sm.snapshot(), restore: (data) => sm.restore(data) },
      logger: SILENT,
      electionTicks: config.electionTicks,
      heartbeatTicks: config.heartbeatTicks,
      tickMs: config.tickMs,
      snapshotEvery: config.snapshotEvery,
      random: (n) => prng.int(n),
      onFatal: (e) => this.w.fatal(this.id, e),
    });
    raw.onApplied((e, out) => this.w.applied(this.id, e, out));
    raw.onStateReplaced((index) => this.w.replaced(this.id, index));
    const driver = (this.driver = this.adapt.driver ? this.adapt.driver(raw) : raw);
    raw.setOutbox({
      send: (ms) => {
        for (const m of ms) this.w.send(this.id, m);
      },
    });
    const directory = new PeerDirectory(this.id, config.peers, config.advertiseClient, config.advertiseHttp);
    const membership = new Membership(
      this.id,
      driver,
      directory,
      SILENT,
      () => {},
      () => {},
    );
    membership.replay([], 0);
    const bus = new EventBus(this.id, () => sim.memory.hardState().term);
    const source = new NodeSource(bus, this.id, sim.memory.hardState(), sm);
    const access = new AccessControl(config, sm);
    const leaseClock = new LeaseClock({ driver, stateMachine: sm, logger: SILENT, clock: this.adapt.leaseClock?.(clock) ?? clock }, leaseClockTiming(config));
    this.ctx = {
      config,
      driver,
      stateMachine: sm,
      logger: SILENT,
      clock,
      peers: directory,
      membership,
      security: NodeSecurity.fromConfig(config),
      access,
      leaseClock,
      refusals: { note: () => {} },
      observe: { bus, source, stalls: undefined as never },
    };
    this.registry = new CapturingRegistry(this.id, this.adapt.response);
    this.closers = [{ close: () => leaseClock.close() }];
    for (const r of this.registrars) {
      const c = r(this.registry, this.ctx);
      if (c) this.closers.push(c);
    }
    leaseClock.run();
    raw.start();
    this.up = true;
  }

  step(m: Message): void {
    if (this.up) this.driver.step(m);
  }

  /** The end of a run: every registrar's close (waits and streams ended), the clock and driver stopped. */
  close(): void {
    if (!this.up) return;
    this.up = false;
    for (const c of this.closers) c.close();
    void this.driver.stop();
  }
}
