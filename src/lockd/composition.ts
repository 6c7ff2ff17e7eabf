// One lockd node with every public service, as main.ts runs it (and tests start it in-process):
// admission control first (node/public-admission.ts: it must be in place before anything binds),
// then the services, observability and reflection; the lock API's streams and /metrics share the
// admission's byte budgets (outbound and inbound) and limits.
import type { Logger } from 'pino';
import type { NodeConfig } from './node/config.js';
import { LockdNode } from './node/lockd-node.js';
import { Admission } from './api/admission/admission.js';
import { registerClusterService } from './api/cluster-service.js';
import { lockApiRegistrar } from './api/lock-api.js';
import { registerMaintenanceService } from './api/maintenance-service.js';
import { publicServerOptions } from './api/public-limits.js';
import { registerReflection } from './api/reflection-service.js';
import { Observability } from './observability.js';

export interface ComposedNode {
  readonly node: LockdNode;
  readonly observability: Observability;
  readonly admission: Admission;
}

/** Start the node (and not yet its HTTP endpoint: `observability.listen()`). */
export async function startComposedNode(config: NodeConfig, logger: Logger): Promise<ComposedNode> {
  const admission = new Admission(config.admission, logger);
  const observability = new Observability(() => admission.limits);
  const registrars = [
    admission.registrar,
    registerClusterService,
    lockApiRegistrar({ outbound: admission.outbound, inbound: admission.inbound }),
    registerMaintenanceService,
    observability.registrar,
    registerReflection,
  ];
  const node = await LockdNode.start(config, logger, registrars, publicServerOptions(config.admission));
  return { node, observability, admission };
}
