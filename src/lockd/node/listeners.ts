// A node's two gRPC servers. The PUBLIC listener (--listen) serves the client API, lockd.v1. The
// PEER listener (--peer-listen) serves raft.v1.Raft and follower→leader forwarding, and nothing
// else: a forwarded call is the same lockd.v1 method under the package lockd.forwarded.v1
// (/lockd.v1.Lock/Acquire → /lockd.forwarded.v1.Lock/Acquire), so neither port answers the
// other's services (UNIMPLEMENTED).
//
// Who may call what:
// - a forwarded call must come from a member: the lockd-forwarded header names it, the
//   lockd-cluster-id header names this cluster, and with TLS the caller's certificate must name
//   that member (security/peer-identity.ts) — checked on the call's metadata, before any of its
//   request is read (forwardedGate);
// - the public port refuses a call carrying lockd-forwarded (only members set it, on the peer port),
//   so a client can never pass for a forwarding node;
// - the caller's principal (security/principal.ts) is put in the lockd-principal header by the
//   guard: on the public port derived from the client certificate, replacing whatever the client
//   sent; on the peer port taken from the forwarding member (which derived it on its public port),
//   and only once the member is authenticated.
import * as grpc from '@grpc/grpc-js';
import type { RefusalLog } from '../observe/log-limiter.js';
import type { AuthenticatedCall, NodeSecurity } from '../security/node-security.js';
import { CLUSTER_ID_HEADER } from '../transport/metadata.js';
import { PRINCIPAL_HEADER, principalFromHeader, principalHeaderValue } from '../security/principal.js';
import { ANONYMOUS } from '../state-machine/index.js';
import type { NodeConfig } from './config.js';
import type { PeerDirectory } from './peer-directory.js';
import type { CallAdmission, ConnectionControl, PublicAdmission } from './public-admission.js';
import { PublicPort } from './public-port.js';

/** Request header a forwarding node sets (value: its member id). A call carrying it is served locally or fails. */
export const FORWARDED_HEADER = 'lockd-forwarded';
export const PUBLIC_PREFIX = '/lockd.v1.';
const FORWARDED_PREFIX = '/lockd.forwarded.v1.';

/** The peer-port path of a forwardable public method. */
export function forwardedPath(path: string): string {
  if (!path.startsWith(PUBLIC_PREFIX)) throw new Error(`forwardedPath: ${path} is not a lockd.v1 method`);
  return FORWARDED_PREFIX + path.slice(PUBLIC_PREFIX.length);
}

/** Metadata a member sets on a call it forwards to the leader's peer port, on behalf of `principal`. */
export function forwardingMetadata(config: Pick<NodeConfig, 'id' | 'clusterId'>, principal: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(FORWARDED_HEADER, config.id);
  md.set(CLUSTER_ID_HEADER, config.clusterId);
  md.set(PRINCIPAL_HEADER, principalHeaderValue(principal));
  return md;
}

/** Where a registrar puts its services. */
export interface ServiceRegistry {
  /** Served on the public port only (e.g. Cluster.Status, answered by whichever node is asked). */
  addPublic(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void;
  /** Served on the public port, and to members on the peer port for forwarding. */
  addForwardable(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): void;
  /** The public port's admission control (connections and calls); at most one, before the node binds. */
  setAdmission(admission: PublicAdmission): ConnectionControl;
}

/** How long a stopping node lets open calls finish before it cuts them. */
export const SHUTDOWN_GRACE_MS = 1000;

type Guard = (call: { metadata: grpc.Metadata } & AuthenticatedCall) => grpc.StatusObject | undefined;

function status(code: grpc.status, details: string): grpc.StatusObject {
  return { code, details, metadata: new grpc.Metadata() };
}

/** The same service with every handler behind `guard`: a refused call gets the guard's status, the handler never runs. */
function guarded(service: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation, guard: Guard): grpc.UntypedServiceImplementation {
  type Call = Parameters<Guard>[0] & { emit(e: 'error', s: grpc.StatusObject): boolean };
  const out: grpc.UntypedServiceImplementation = {};
  for (const [name, method] of Object.entries(service)) {
    const handler = (impl[name] ?? impl[method.originalName ?? '']) as ((...args: unknown[]) => void) | undefined;
    if (!handler) continue;
    // Unary and client-streaming handlers answer through a callback; server-streaming and bidi
    // handlers have none, and a status is sent by emitting it as an error.
    out[name] = (
      method.responseStream
        ? (call: Call) => {
            const refused = guard(call);
            if (refused) call.emit('error', refused);
            else handler(call);
          }
        : (call: Call, callback: grpc.sendUnaryData<unknown>) => {
            const refused = guard(call);
            if (refused) callback(refused);
            else handler(call, callback);
          }
    ) as grpc.UntypedHandleCall;
  }
  return out;
}

export class Listeners {
  readonly publicServer: grpc.Server;
  readonly peerServer: grpc.Server;
  private admission: PublicAdmission | undefined;
  private readonly publicPort: PublicPort;

  constructor(
    private readonly config: NodeConfig,
    private readonly security: NodeSecurity,
    private readonly directory: PeerDirectory,
    /** Refused forwarded calls, rate-limited (observe/log-limiter.ts). */
    private readonly refusals: RefusalLog,
    publicOptions: grpc.ServerOptions,
    peerOptions: grpc.ServerOptions,
  ) {
    // The admission gate is the outermost interceptor of the public server: a call over a limit is
    // refused on its headers, before any of its request is read.
    this.publicServer = new grpc.Server({ ...publicOptions, interceptors: [...(publicOptions.interceptors ?? []), this.admissionGate] });
    this.publicPort = new PublicPort(this.publicServer, () => this.admission);
    // The gate is the outermost interceptor (the last one listed wraps the others), so it sees the
    // call's metadata first.
    this.peerServer = new grpc.Server({ ...peerOptions, interceptors: [...(peerOptions.interceptors ?? []), this.forwardedGate] });
  }

  /**
   * The peer guard, run on a forwarded call's metadata before any of its request is read: a handler
   * (and so the guard in `guarded`) runs only once a unary request has arrived whole, and the peer
   * port takes 64 MiB messages, so a caller with any certificate of the CA (a client's) could
   * otherwise make a node buffer 64 MiB per stream before being refused. The guard in the handler
   * stays as a second check.
   */
  private readonly forwardedGate: grpc.ServerInterceptor = (method, call) => {
    if (!method.path.startsWith(FORWARDED_PREFIX)) return new grpc.ServerInterceptingCall(call); // raft.v1: the receiver checks its stream's metadata first
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            const refused = this.peerGuard({ metadata, getAuthContext: () => call.getAuthContext() });
            if (refused) call.sendStatus(refused);
            else pass(metadata);
          },
        }),
    });
  };

  /**
   * Asks admission about every public call when its headers arrive (and about each request message
   * it decodes), and tells it when the call ends (its status sent, or cancelled: whichever comes
   * first, once). The principal is the one the
   * public guard derives (a call without one is admitted here and refused by the guard).
   */
  private readonly admissionGate: grpc.ServerInterceptor = (method, call) => {
    const admission = this.admission;
    if (!admission) return call as grpc.ServerInterceptingCall;
    let admitted: Exclude<CallAdmission, { refused: unknown }> | undefined;
    const ended = () => {
      const a = admitted;
      admitted = undefined;
      a?.release();
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, pass) => {
            const who = this.security.clientPrincipal({ getAuthContext: () => call.getAuthContext() });
            const { remoteAddress, remotePort } = call.getConnectionInfo();
            const verdict = admission.admitCall({
              path: method.path,
              streaming: method.requestStream || method.responseStream,
              principal: 'principal' in who ? who.principal : undefined,
              connection: `${remoteAddress ?? ''}:${remotePort ?? ''}`,
            });
            if ('refused' in verdict) return call.sendStatus(verdict.refused);
            admitted = verdict;
            pass(metadata);
          },
          onReceiveMessage: (message, pass) => {
            const refused = admitted?.received?.(message);
            if (!refused) return pass(message);
            // Sent past this interceptor's own sendStatus below, so the call is released here.
            ended();
            call.sendStatus(refused);
          },
          onCancel: ended,
        }),
      sendStatus: (status, next) => {
        ended();
        next(status);
      },
    });
  };

  get registry(): ServiceRegistry {
    return {
      setAdmission: (admission) => {
        if (this.admission) throw new Error('the public port already has its admission control');
        this.admission = admission;
        return { closeConnection: (peer) => this.publicPort.closeConnection(peer) };
      },
      addPublic: (service, impl) => this.publicServer.addService(service, guarded(service, impl, this.publicGuard)),
      addForwardable: (service, impl) => {
        this.publicServer.addService(service, guarded(service, impl, this.publicGuard));
        const renamed = Object.fromEntries(Object.entries(service).map(([k, m]) => [k, { ...m, path: forwardedPath(m.path) }]));
        this.peerServer.addService(renamed, guarded(service, impl, this.peerGuard));
      },
    };
  }

  private readonly publicGuard: Guard = (call) => {
    if (call.metadata.get(FORWARDED_HEADER).length > 0)
      return status(grpc.status.INVALID_ARGUMENT, `the ${FORWARDED_HEADER} header is set only by lockd members, on the peer port; a client must not send it`);
    const who = this.security.clientPrincipal(call);
    if ('problem' in who) return status(grpc.status.UNAUTHENTICATED, who.problem);
    // Replaces any lockd-principal the client sent: a client cannot name itself.
    call.metadata.set(PRINCIPAL_HEADER, principalHeaderValue(who.principal));
    return undefined;
  };

  private readonly peerGuard: Guard = (call) => {
    const by = String(call.metadata.get(FORWARDED_HEADER)[0] ?? '');
    const cluster = String(call.metadata.get(CLUSTER_ID_HEADER)[0] ?? '');
    let refused: grpc.StatusObject | undefined;
    // With TLS the certificate first, as on the Raft stream (transport/receiver.ts): one answer for
    // a caller that cannot prove it is the member it names, whether that id is a member or not and
    // whether its cluster id is right. Never echo our cluster id; the log has the details.
    const problem = this.security.peerCallerProblem(call, by);
    if (problem) refused = status(grpc.status.UNAUTHENTICATED, `the caller cannot act as ${by.slice(0, 80)}: ${problem}`);
    else if (cluster !== this.config.clusterId) refused = status(grpc.status.FAILED_PRECONDITION, 'wrong cluster id');
    else if (by === this.config.id || !this.directory.isMember(by))
      refused = status(grpc.status.PERMISSION_DENIED, `${FORWARDED_HEADER} "${by.slice(0, 80)}" is not another member of this cluster`);
    else refused = this.forwardedPrincipal(call.metadata);
    if (refused)
      this.refusals.note(
        `refused forwarded calls: ${refused.details.slice(0, 100)}`,
        'warn',
        { event: 'refused forwarded call', by: by.slice(0, 80), remoteClusterId: cluster.slice(0, 80), reason: refused.details },
        `refused a forwarded call: ${refused.details}`,
      );
    return refused;
  };

  /** The principal an authenticated member forwards a call for: absent = anonymous (a member that sets none); malformed = refused. */
  private forwardedPrincipal(metadata: grpc.Metadata): grpc.StatusObject | undefined {
    const values = metadata.get(PRINCIPAL_HEADER);
    if (values.length === 0) {
      metadata.set(PRINCIPAL_HEADER, principalHeaderValue(ANONYMOUS));
      return undefined;
    }
    const ok = values.length === 1 && principalFromHeader(values[0]) !== undefined;
    return ok ? undefined : status(grpc.status.INVALID_ARGUMENT, `the forwarded ${PRINCIPAL_HEADER} header is not one principal`);
  }

  /** Bind both ports (the public one first); on failure nothing stays bound. Returns the bound ports. */
  async bind(): Promise<{ clientPort: number; peerPort: number }> {
    const bindOne = (server: grpc.Server, address: string, creds: grpc.ServerCredentials) =>
      new Promise<number>((resolve, reject) => server.bindAsync(address, creds, (err, p) => (err ? reject(err) : resolve(p))));
    const clientPort = await this.publicPort.listen(this.config.listen, this.security.serverCredentials('client')).catch((e: Error) => {
      throw new Error(`cannot listen on --listen ${this.config.listen}: ${e.message}`);
    });
    try {
      const peerPort = await bindOne(this.peerServer, this.config.peerListen, this.security.serverCredentials('peer'));
      return { clientPort, peerPort };
    } catch (e) {
      this.publicPort.destroy();
      this.publicServer.forceShutdown();
      throw new Error(`cannot listen on --peer-listen ${this.config.peerListen}: ${(e as Error).message}`);
    }
  }

  /**
   * Stop both servers: open calls may finish for `graceMs`, then whatever is still open is cut. The
   * bound matters: a paused or cut-off peer never ends its inbound Raft stream, and tryShutdown alone
   * would wait for it forever (a SIGTERM then never stopped the node).
   */
  async shutdown(graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
    this.publicPort.close();
    await Promise.all(
      [this.publicServer, this.peerServer].map(
        (s) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              if (s === this.publicServer) this.publicPort.destroy();
              s.forceShutdown();
              resolve();
            }, graceMs);
            s.tryShutdown(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
  }
}
