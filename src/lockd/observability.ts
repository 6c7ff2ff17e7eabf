// The observation layer on one node, composed: gRPC health on the client port and the decision
// log always; with --http-listen also metrics, probes, /events and the dashboard over HTTP (HTTPS
// with TLS on, its certificates reloaded with the gRPC listeners' on SIGHUP). The bus and its
// NodeSource are created by the node itself (node/lockd-node.ts), before its driver starts, so no event
// is missed. A composition like main.ts, and beside it for the same reason: it wires the observation
// layer (below the node) and an API service (gRPC health, above it) onto one node.
import type { Server } from 'node:http';
import type { ServiceRegistry } from './node/listeners.js';
import type { NodeContext, ServiceRegistrar } from './node/node-context.js';
import { DashboardFiles } from './observe/dashboard-files.js';
import { EventHistory } from './observe/event-history.js';
import { EventStreams } from './observe/event-stream.js';
import { logDecisions } from './observe/decision-log.js';
import { addGrpcHealth } from './api/health-service.js';
import { NodeHealth } from './observe/health.js';
import { listenHttp } from './observe/http-server.js';
import { NodeMetrics } from './observe/metrics.js';
import { clusterView, takeSnapshot, type StateSnapshot } from './observe/state-snapshot.js';
import type { ViewFilter } from './state-machine/index.js';
import type { ObservedLimit } from './observe/admission-metrics.js';

export class Observability {
  private ctx: NodeContext | undefined;
  private metrics: NodeMetrics | undefined;
  private health: NodeHealth | undefined;
  private events: EventStreams | undefined;
  private http: Server | undefined;
  private stopReload: (() => void) | undefined;
  private snapshot: ((only?: ViewFilter) => StateSnapshot) | undefined;

  /** `limits`: the client port's admission limits, for /metrics (api/admission/admission.ts). */
  constructor(private readonly limits?: () => readonly ObservedLimit[]) {}

  /** Registered with the node's services: runs before its driver starts. */
  readonly registrar: ServiceRegistrar = (registry: ServiceRegistry, ctx: NodeContext) => {
    this.ctx = ctx;
    const { bus, source } = ctx.observe;
    const health = (this.health = new NodeHealth(ctx, source));
    const grpcHealth = addGrpcHealth(registry, health, bus);
    const decisions = logDecisions(bus, ctx.logger, () => ctx.driver.isLeader(), ctx.refusals);
    if (ctx.config.httpListen) {
      const metrics = (this.metrics = new NodeMetrics(ctx, bus, this.limits));
      const snapshot = (this.snapshot = (only) => takeSnapshot(ctx, bus, only));
      this.events = new EventStreams(bus, (n) => metrics.lostBy('events', n), snapshot, new EventHistory(bus));
    }
    return {
      close: () => {
        grpcHealth.close();
        decisions.close();
        this.stopReload?.();
        this.events?.close();
        this.http?.close();
        this.http?.closeAllConnections();
        this.metrics?.close();
      },
    };
  };

  /** Bind --http-listen (after the node started); resolves with the bound port, or undefined when off. */
  async listen(): Promise<number | undefined> {
    const ctx = this.ctx;
    if (!ctx?.config.httpListen || !this.metrics || !this.health || !this.events || !this.snapshot) return undefined;
    const dashboard = DashboardFiles.load();
    if (dashboard.problem) ctx.logger.warn({ event: 'no dashboard', reason: dashboard.problem }, dashboard.problem);
    const tls = ctx.security.httpsContext();
    const endpoint = await listenHttp(ctx.config.httpListen, {
      metrics: this.metrics,
      health: this.health,
      events: this.events,
      dashboard,
      snapshot: this.snapshot,
      cluster: () => clusterView(ctx),
      logger: ctx.logger,
      mayRead: (principal) => ctx.access.mayRead(principal),
      viewFilter: (principal) => ctx.access.viewFilter(principal),
      ...(tls ? { tls } : {}),
    });
    this.http = endpoint.server;
    this.stopReload = ctx.security.onReload(() => {
      const next = ctx.security.httpsContext();
      if (next) endpoint.setSecureContext(next);
    });
    const url = `${tls ? 'https' : 'http'}://${ctx.config.httpListen}`;
    ctx.logger.info(
      { event: 'http listening', address: ctx.config.httpListen, advertiseHttp: ctx.config.advertiseHttp ?? '', tls: !!tls },
      `dashboard, metrics, health and events on ${url}/`,
    );
    return endpoint.port;
  }
}
