// Admission control of the public (client) port, composed: connection limits (total, per
// address), call limits (streams and unary calls per principal; streams per connection, which
// HTTP/2 enforces), and the outbound byte budget of the lock API's streams. main.ts makes one per
// node from --max-* (node/admission-settings.ts) and hands it out: `registrar` installs it on the
// public listener (node/public-admission.ts), `outbound` goes to the lock API's streams, `limits`
// to /metrics. Every refusal is RESOURCE_EXHAUSTED naming the limit and its value (or, for a
// connection, the connection closed), counted per limit and logged as counts (refusal-log.ts).
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { AdmissionSettings } from '../../node/admission-settings.js';
import type { ServiceRegistrar } from '../../node/node-context.js';
import type { CallInfo, PublicAdmission } from '../../node/public-admission.js';
import { CallLimits, type CallVerdict } from './call-limits.js';
import { ConnectionLimits } from './connection-limits.js';
import type { LimitUse } from './limit-use.js';
import { OutboundBudget } from './outbound-budget.js';
import { RefusalLog } from './refusal-log.js';

export class Admission implements PublicAdmission {
  readonly connections: ConnectionLimits;
  readonly calls: CallLimits;
  readonly outbound: OutboundBudget;

  constructor(readonly settings: AdmissionSettings, logger?: Logger) {
    const log = new RefusalLog(logger).refused;
    this.connections = new ConnectionLimits(settings, log);
    this.calls = new CallLimits(settings, log);
    this.outbound = new OutboundBudget(settings, log);
  }

  /** Every limit, for /metrics (observe/admission-metrics.ts). */
  get limits(): readonly LimitUse[] {
    const c = this.connections;
    const k = this.calls;
    return [c.total, c.byAddress, k.streamsPerConnection, k.streamsPerPrincipal, k.unaryPerPrincipal, this.outbound.totalUse, this.outbound.streamUse];
  }

  admitConnection(socket: Socket): boolean {
    return this.connections.admit(socket);
  }

  admitCall(call: CallInfo): CallVerdict {
    return this.calls.admit(call);
  }

  /** Installs this on the node's public listener (register it before the services). */
  readonly registrar: ServiceRegistrar = (registry) => {
    const control = registry.setAdmission(this);
    this.outbound.closeConnection = (peer) => control.closeConnection(peer);
  };
}
