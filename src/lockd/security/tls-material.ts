// A node's TLS files, read and checked together: a node must never start (or switch on SIGHUP) to a
// key that does not fit its certificate, a certificate its own CA did not sign, or one that does not
// name this member — each would only show up later as peers refusing it.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TlsFiles } from '../node/config.js';
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

function parseCert(what: string, path: string, pem: Buffer): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (e) {
    throw new TlsMaterialError(`${what} ${path} is not an X.509 certificate: ${(e as Error).message}`);
  }
}

/** Read and check the files for member `id` (whose certificate must name it as a peer). */
export function loadTlsMaterial(files: TlsFiles, id: string, now = new Date()): TlsMaterial {
  const ca = readPem('--tls-ca', files.ca);
  const cert = readPem('--tls-cert', files.cert);
  const key = readPem('--tls-key', files.key);
  const caCert = parseCert('--tls-ca', files.ca, ca);
  const own = parseCert('--tls-cert', files.cert, cert);
  try {
    if (!own.checkPrivateKey(createPrivateKey(key))) throw new TlsMaterialError(`--tls-key ${files.key} is not the key of --tls-cert ${files.cert}`);
  } catch (e) {
    if (e instanceof TlsMaterialError) throw e;
    throw new TlsMaterialError(`--tls-key ${files.key} is not a usable private key: ${(e as Error).message}`);
  }
  if (!own.checkIssued(caCert) || !own.verify(caCert.publicKey))
    throw new TlsMaterialError(`--tls-cert ${files.cert} (issuer ${own.issuer.replace(/\n/g, ', ')}) is not signed by --tls-ca ${files.ca}`);
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
