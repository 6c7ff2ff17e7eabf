// The principal of a public-port call: with --client-cert-auth, the verified client
// certificate's subject CN (exactly one CN, a valid principal: state-machine validatePrincipal);
// otherwise 'anonymous'. SANs are not read. The public port's guard derives it and puts it in the
// lockd-principal header, replacing whatever a client sent there; a follower forwarding a call sets
// the header for the leader, which trusts it only on its peer port from an authenticated member.
import type { PeerCertificate } from 'node:tls';
import { ANONYMOUS, validatePrincipal } from '../state-machine/index.js';

export const PRINCIPAL_HEADER = 'lockd-principal';

/**
 * The header's value: percent-encoded, because a CN may hold any Unicode and a gRPC text header
 * only printable ASCII ("José" → "Jos%C3%A9").
 */
export function principalHeaderValue(principal: string): string {
  return encodeURIComponent(principal);
}

/** A header value back to a principal; undefined if it is not one principalHeaderValue made (or not a valid principal). */
export function principalFromHeader(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  let p: string;
  try {
    p = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  return validatePrincipal(p) ? undefined : p;
}

/** The principal a verified client certificate names, or why it names none. */
export function certificatePrincipal(cert: PeerCertificate | undefined): { principal: string } | { problem: string } {
  if (!cert || Object.keys(cert).length === 0) return { problem: 'no client certificate was presented' };
  const cn: unknown = cert.subject?.CN;
  if (Array.isArray(cn)) return { problem: 'the client certificate has several subject CNs; a principal is exactly one' };
  if (typeof cn !== 'string') return { problem: 'the client certificate has no subject CN (the principal)' };
  const bad = validatePrincipal(cn);
  if (bad) return { problem: `the client certificate's CN is not a usable principal: ${bad.message}` };
  return { principal: cn };
}

/** The principal a guard recorded on a call's metadata ('anonymous' if none: a call that no guard saw). */
export function principalOf(metadata: { get(key: string): unknown[] }): string {
  return principalFromHeader(metadata.get(PRINCIPAL_HEADER)[0]) ?? ANONYMOUS;
}
