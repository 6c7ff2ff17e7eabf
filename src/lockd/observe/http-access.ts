// Who may read the HTTP endpoint. Without TLS: everyone who can reach it (bind it to a private
// address), and any web page open in a browser that can: no Host check, so DNS rebinding makes a
// page same-origin with the node (README, the dashboard). With TLS the endpoint is HTTPS and asks
// for a client certificate without requiring one at the handshake, so that probes work without:
// /livez and /readyz are open to all; every other path needs a certificate signed by the cluster's
// CA whose principal (its subject CN, the rule of security/principal.ts) may read the whole
// cluster's state (AccessControl.mayRead: ACLs off, an admin, or `read` on the empty prefix). What
// /state and /events then show is that principal's view, name by name, decided as the gRPC reads
// decide (AccessControl.viewFilter): a lock or fenced key it may not Inspect or Read is not shown,
// and an /events stream whose principal loses `read` on '' is closed.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { certificatePrincipal } from '../security/principal.js';

/** Paths served without a client certificate: Kubernetes and load-balancer probes carry none. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/livez', '/readyz']);

export interface Refusal {
  readonly status: 403;
  readonly message: string;
}

/** Why `req` may not read `path` (undefined: it may). `tls`: the endpoint is HTTPS; `mayRead`: whether a principal may read. */
export function readRefusal(req: IncomingMessage, path: string, tls: boolean, mayRead: (principal: string) => boolean): Refusal | undefined {
  if (!tls || OPEN_PATHS.has(path)) return undefined;
  const socket = req.socket as TLSSocket;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0)
    return { status: 403, message: `${path} needs a client certificate signed by the cluster's CA (only /livez and /readyz are open)` };
  if (!socket.authorized) return { status: 403, message: `the client certificate was not accepted: ${String(socket.authorizationError)}` };
  const who = certificatePrincipal(cert);
  if ('problem' in who) return { status: 403, message: who.problem };
  if (!mayRead(who.principal))
    return { status: 403, message: `principal ${who.principal} may not read this node's observations: it needs \`read\` on the empty prefix '' (or admin)` };
  return undefined;
}

/** The principal of a request readRefusal() let through: its certificate's; undefined without TLS (everyone sees everything). */
export function requestPrincipal(req: IncomingMessage, tls: boolean): string | undefined {
  if (!tls) return undefined;
  const who = certificatePrincipal((req.socket as TLSSocket).getPeerCertificate());
  return 'problem' in who ? undefined : who.principal;
}
