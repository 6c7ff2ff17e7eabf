// TLS for the client: the CA to trust and the client certificate to present (mTLS), each a PEM
// Buffer, a PEM string, or a file path. lockd checks the server's certificate against the endpoint's
// host (a node certificate carries the client-port names, e.g. localhost and 127.0.0.1).
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { isIP } from 'node:net';

/** A PEM document: its bytes, its text, or the path of a file holding it. */
export type PemSource = Buffer | string;

export interface ClientTlsOptions {
  /** CA certificate(s) to trust (etcdctl's --cacert); default: the system's roots. */
  readonly cacert?: PemSource;
  /** Client certificate to present (needs key); its subject CN is the principal the cluster sees. */
  readonly cert?: PemSource;
  readonly key?: PemSource;
}

export interface TlsMaterial {
  readonly ca: Buffer | null;
  readonly cert: Buffer | null;
  readonly key: Buffer | null;
}

const MAX_PEM_BYTES = 1024 * 1024;

function pem(what: string, src: PemSource): Buffer {
  if (Buffer.isBuffer(src)) return src;
  if (src.includes('-----BEGIN ')) return Buffer.from(src);
  let buf: Buffer;
  try {
    buf = readFileSync(src);
  } catch (e) {
    throw new Error(`cannot read the ${what} file ${src}: ${(e as Error).message}`);
  }
  if (buf.length > MAX_PEM_BYTES || !buf.includes('-----BEGIN ')) throw new Error(`the ${what} file ${src} is not a PEM document`);
  return buf;
}

/** Read the options once (a missing file is an error now, not at the first call); undefined: no TLS. */
export function loadClientTls(o: ClientTlsOptions | undefined): TlsMaterial | undefined {
  if (!o || (o.cacert === undefined && o.cert === undefined && o.key === undefined)) return undefined;
  if ((o.cert === undefined) !== (o.key === undefined)) throw new Error('a client certificate needs its key: give both cert and key, or neither');
  return {
    ca: o.cacert === undefined ? null : pem('CA certificate', o.cacert),
    cert: o.cert === undefined ? null : pem('client certificate', o.cert),
    key: o.key === undefined ? null : pem('client key', o.key),
  };
}

/**
 * Channel credentials and options to reach `address` ("host:port"). For an IP literal host the TLS
 * server name (SNI) must not be an IP (RFC 6066, and Node warns), so a fixed name is sent instead
 * while the certificate is still checked against the IP itself.
 */
export function channelSecurity(address: string, tls: TlsMaterial | undefined): { credentials: grpc.ChannelCredentials; options: grpc.ChannelOptions } {
  if (!tls) return { credentials: grpc.credentials.createInsecure(), options: {} };
  const host = address.slice(0, address.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return { credentials: grpc.credentials.createSsl(tls.ca, tls.key, tls.cert), options: {} };
  const verify = { checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert) };
  return { credentials: grpc.credentials.createSsl(tls.ca, tls.key, tls.cert, verify), options: { 'grpc.ssl_target_name_override': 'lockd' } };
}
