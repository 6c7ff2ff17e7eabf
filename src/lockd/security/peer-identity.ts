// Who a certificate says its holder is. A lockd PEER is named by a DNS subject alternative name
// `<member id>.peer.lockd` (e.g. DNS:n1.peer.lockd); a certificate without one may be a client's
// but can never act as a peer, even when the cluster's CA signed it.
import type { PeerCertificate } from 'node:tls';

export const PEER_NAME_SUFFIX = '.peer.lockd';

/** The DNS name a member's certificate must carry: n1 → n1.peer.lockd. */
export function peerDnsName(id: string): string {
  return `${id}${PEER_NAME_SUFFIX}`;
}

/**
 * The member ids a SAN list names, from Node's rendering of it ("DNS:n1.peer.lockd, DNS:localhost,
 * IP Address:127.0.0.1"). Node quotes an entry holding a comma or a quote, so splitting on ", " can
 * never turn part of one entry into a clean "DNS:x.peer.lockd" of its own.
 */
export function peerIdsIn(subjectAltName: string | undefined): string[] {
  if (!subjectAltName) return [];
  const ids: string[] = [];
  for (const entry of subjectAltName.split(', ')) {
    if (!entry.startsWith('DNS:') || !entry.endsWith(PEER_NAME_SUFFIX)) continue;
    const id = entry.slice('DNS:'.length, -PEER_NAME_SUFFIX.length);
    if (/^[A-Za-z0-9_.-]{1,64}$/.test(id)) ids.push(id);
  }
  return ids;
}

/** Why `cert` may not act as member `id` (undefined when it may). */
export function peerCertProblem(cert: Pick<PeerCertificate, 'subjectaltname'> | undefined, id: string): string | undefined {
  if (!cert || Object.keys(cert).length === 0) return 'no certificate was presented'; // tls gives {} for none
  const named = peerIdsIn(cert.subjectaltname);
  if (named.includes(id)) return undefined;
  if (named.length === 0) return `the certificate names no peer (it needs DNS:${peerDnsName(id)}): a client certificate cannot act as a peer`;
  return `the certificate names peer ${named.join(', ')}, not ${id} (it needs DNS:${peerDnsName(id)})`;
}
