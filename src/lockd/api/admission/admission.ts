// Admission control of the public (client) port, composed: connection limits (total, per
// address), call limits (streams and unary calls per principal; streams per connection, which
// HTTP/2 enforces), the outbound byte budget of the lock API's streams and the inbound byte budget
// of the requests being handled. main.ts makes one per node from --max-* (node/admission-settings.ts)
// and hands it out: `registrar` installs it on the public listener (node/public-admission.ts), which
// asks it about every call and each unary request; `outbound` and `inbound` go to the lock API's
// streams, `limits` to /metrics. Every refusal is RESOURCE_EXHAUSTED naming the limit and its value (or, for a
// connection, the connection closed), counted per limit and logged as counts (refusal-log.ts).
import type { Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { AdmissionSettings } from '../../node/admission-settings.js';
import type { ServiceRegistrar } from '../../node/node-context.js';
import type { CallAdmission, CallInfo, PublicAdmission } from '../../node/public-admission.js';
import { CallLimits } from './call-limits.js';
import { ConnectionLimits } from './connection-limits.js';
import { InboundBudget } from './inbound-budget.js';
import type { LimitUse } from './limit-use.js';
import { messageBytes } from './message-size.js';
import { OutboundBudget } from './outbound-budget.js';
import { RefusalLog } from './refusal-log.js';

export class Admission implements PublicAdmission {
  readonly connections: ConnectionLimits;
  readonly calls: CallLimits;
  readonly outbound: OutboundBudget;
  readonly inbound: InboundBudget;

  constructor(
    readonly settings: AdmissionSettings,
    logger?: Logger,
  ) {
    const log = new RefusalLog(logger).refused;
    this.connections = new ConnectionLimits(settings, log);
    this.calls = new CallLimits(settings, log);
    this.outbound = new OutboundBudget(settings, log);
    this.inbound = new InboundBudget(settings, log);
  }

  /** Every limit, for /metrics (observe/admission-metrics.ts). */
  get limits(): readonly LimitUse[] {
    const c = this.connections;
    const k = this.calls;
    return [
      c.total,
      c.byAddress,
      k.streamsPerConnection,
      k.streamsPerPrincipal,
      k.unaryPerPrincipal,
      this.outbound.totalUse,
      this.outbound.streamUse,
      this.inbound.use,
    ];
  }

  admitConnection(socket: Socket): boolean {
    return this.connections.admit(socket);
  }

  /** A unary call's request is charged to the inbound budget from its arrival until the call ends; a stream's requests as it reads them (server-stream.ts). */
  admitCall(call: CallInfo): CallAdmission {
    const verdict = this.calls.admit(call);
    if ('refused' in verdict || call.streaming) return verdict;
    const credits: Array<() => void> = [];
    let ended = false;
    return {
      received: (message) => {
        if (ended) return undefined;
        const charge = this.inbound.charge(messageBytes(message));
        if ('refused' in charge) return { code: charge.refused.code, details: charge.refused.message, metadata: new grpc.Metadata() };
        credits.push(charge.credit); // one message, but a client breaking that leaks nothing either
        return undefined;
      },
      release: () => {
        ended = true;
        verdict.release();
        for (const credit of credits.splice(0)) credit();
      },
    };
  }

  /** Installs this on the node's public listener (register it before the services). */
  readonly registrar: ServiceRegistrar = (registry) => {
    const control = registry.setAdmission(this);
    this.outbound.closeConnection = (peer) => control.closeConnection(peer);
  };
}
