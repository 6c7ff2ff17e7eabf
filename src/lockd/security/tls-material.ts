// A node's TLS files, read and checked together: a node must never start (or switch on SIGHUP) to a
// key that does not fit its certificate, a certificate its own CA did not sign, or one that does not
// name this member — each would only show up later as peers refusing it.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TlsFiles } from './settings.js';
import { peerCertProblem, peerDnsName } from './peer-identity.js';

export interface TlsMaterial {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
  /** For logs: the node certificate's subject, SANs and expiry. */
  readonly summary: { subject: string; subjectAltName: string; validTo: string; fingerprint256: string };
}

export class TlsMaterialError extends Error {}

/** PEM files larger than this are refused (a certificate chain is a few KiB). */
const MAX_PEM_BYTES = 1024 * 1024;

function readPem(what: string, path: string): Buffer {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    throw new TlsMaterialError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
  if (buf.length > MAX_PEM_BYTES) throw new TlsMaterialError(`${what} ${path} is ${buf.length} bytes; a PEM file over ${MAX_PEM_BYTES} is not a certificate`);
  if (!buf.includes('-----BEGIN ')) throw new TlsMaterialError(`${what} ${path} is not PEM (no -----BEGIN line)`);
  return buf;
}

/** At most this many certificates in one PEM file (a CA bundle or a chain holds a handful). */
const MAX_PEM_CERTS = 64;
/** Longest chain from the node certificate up to a CA of --tls-ca (intermediates included). */
const MAX_CHAIN = 8;

/** Every certificate in a PEM file, in order (a CA bundle; a node certificate followed by its intermediates). */
function parseCerts(what: string, path: string, pem: Buffer): X509Certificate[] {
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new TlsMaterialError(`${what} ${path} holds no PEM certificate`);
  if (blocks.length > MAX_PEM_CERTS) throw new TlsMaterialError(`${what} ${path} holds ${blocks.length} certificates; at most ${MAX_PEM_CERTS} are read`);
  return blocks.map((b, k) => {
    try {
      return new X509Certificate(b);
    } catch (e) {
      throw new TlsMaterialError(`${what} ${path}: certificate ${k + 1} is not an X.509 certificate: ${(e as Error).message}`);
    }
  });
}

/**
 * Whether `leaf` chains up to one of `cas`, through `intermediates` (the rest of --tls-cert) if need
 * be — what a peer's TLS stack will check. Example: --tls-ca holds [old CA, new CA] during a CA
 * rotation and the node certificate was issued by the new one: it is accepted, as peers accept it.
 */
function chainsTo(leaf: X509Certificate, intermediates: readonly X509Certificate[], cas: readonly X509Certificate[]): boolean {
  const signs = (issuer: X509Certificate, cert: X509Certificate) => cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  let cert = leaf;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    if (cas.some((ca) => signs(ca, cert))) return true;
    const next = intermediates.find((i) => i !== cert && i.ca && signs(i, cert));
    if (!next) return false;
    cert = next;
  }
  return false;
}

/** Read and check the files for member `id` (whose certificate must name it as a peer). */
export function loadTlsMaterial(files: TlsFiles, id: string, now = new Date()): TlsMaterial {
  const ca = readPem('--tls-ca', files.ca);
  const cert = readPem('--tls-cert', files.cert);
  const key = readPem('--tls-key', files.key);
  const cas = parseCerts('--tls-ca', files.ca, ca);
  const [own, ...intermediates] = parseCerts('--tls-cert', files.cert, cert);
  try {
    if (!own.checkPrivateKey(createPrivateKey(key))) throw new TlsMaterialError(`--tls-key ${files.key} is not the key of --tls-cert ${files.cert}`);
  } catch (e) {
    if (e instanceof TlsMaterialError) throw e;
    throw new TlsMaterialError(`--tls-key ${files.key} is not a usable private key: ${(e as Error).message}`);
  }
  if (!chainsTo(own, intermediates, cas))
    throw new TlsMaterialError(
      `--tls-cert ${files.cert} (issuer ${own.issuer.replace(/\n/g, ', ')}) is not signed by --tls-ca ${files.ca} (nor through an intermediate CA certificate following it in --tls-cert)`,
    );
  // Peers check both ends of the validity period; a certificate dated ahead (a clock off, a
  // rotation done early) would be refused by every new connection.
  if (new Date(own.validFrom) > now) throw new TlsMaterialError(`--tls-cert ${files.cert} is not valid before ${own.validFrom}`);
  if (new Date(own.validTo) <= now) throw new TlsMaterialError(`--tls-cert ${files.cert} expired on ${own.validTo}`);
  const problem = peerCertProblem({ subjectaltname: own.subjectAltName ?? '' }, id);
  if (problem) throw new TlsMaterialError(`--tls-cert ${files.cert} cannot serve member ${id}: ${problem}; issue it with DNS:${peerDnsName(id)}`);
  return {
    ca,
    cert,
    key,
    summary: { subject: own.subject.replace(/\n/g, ', '), subjectAltName: own.subjectAltName ?? '', validTo: own.validTo, fingerprint256: own.fingerprint256 },
  };
}
