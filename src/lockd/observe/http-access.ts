// Who may read the HTTP endpoint. Without TLS: everyone who can reach it (bind it to a private
// address). With TLS the endpoint is HTTPS and asks for a client certificate without requiring one
// at the handshake, so that probes work without: /livez and /readyz are open to all; every other
// path needs a certificate signed by the cluster's CA (principal = its subject CN) that
// authorizeRead() lets read.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** Paths served without a client certificate: Kubernetes and load-balancer probes carry none. */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/livez', '/readyz']);

/**
 * THE read-permission hook for /metrics, /events, /state, /cluster and the dashboard: whether
 * `principal` (a verified client certificate's CN) may read what the node observes. Allow-all
 * until the ACLs land; the lead wires it to "principal may read".
 */
export function authorizeRead(principal: string): boolean {
  void principal;
  return true;
}

export interface Refusal {
  readonly status: 403;
  readonly message: string;
}

/** Why `req` may not read `path` (undefined: it may). `tls`: the endpoint is HTTPS. */
export function readRefusal(req: IncomingMessage, path: string, tls: boolean): Refusal | undefined {
  if (!tls || OPEN_PATHS.has(path)) return undefined;
  const socket = req.socket as TLSSocket;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return { status: 403, message: `${path} needs a client certificate signed by the cluster's CA (only /livez and /readyz are open)` };
  if (!socket.authorized) return { status: 403, message: `the client certificate was not accepted: ${String(socket.authorizationError)}` };
  const cn = cert.subject?.CN;
  if (typeof cn !== 'string' || cn === '') return { status: 403, message: 'the client certificate names no principal (one subject CN)' };
  if (!authorizeRead(cn)) return { status: 403, message: `principal ${cn} may not read this node's observations` };
  return undefined;
}
