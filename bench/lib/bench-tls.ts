// `npm run bench -- --tls`: the lockd cluster runs with mutual TLS, client-certificate auth and
// access rules (--acl), and every bench client presents a certificate for principal `bench`, an
// admin (--admin bench), so the TLS handshake, record encryption and the principal/ownership checks
// are on the measured path. Certificates are made with openssl (test/support/test-pki.ts).
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { TestPki, type CertFiles } from '../../test/support/test-pki.js';

export const BENCH_PRINCIPAL = 'bench';

export class BenchTls {
  private readonly pki = TestPki.create();
  readonly client: CertFiles = this.pki.client(BENCH_PRINCIPAL);

  get caCert(): string {
    return this.pki.caCert;
  }

  /** Flags for node `id`. */
  nodeFlags(id: string): string[] {
    const f = this.pki.nodeFiles(id);
    return ['--tls-cert', f.cert, '--tls-key', f.key, '--tls-ca', this.pki.caCert, '--client-cert-auth', '--acl', '--admin', BENCH_PRINCIPAL];
  }

  /** Channel credentials of the bench principal. */
  credentials(): grpc.ChannelCredentials {
    return grpc.credentials.createSsl(readFileSync(this.pki.caCert), readFileSync(this.client.key), readFileSync(this.client.cert));
  }

  /** The TS client's TLS options for the bench principal. */
  clientOptions(): { cacert: string; cert: string; key: string } {
    return { cacert: this.pki.caCert, cert: this.client.cert, key: this.client.key };
  }

  /** The bench principal's files for an HTTPS /metrics scrape (bench/lib/counters.ts). */
  scrapeTls(): { ca: Buffer; cert: Buffer; key: Buffer } {
    return { ca: readFileSync(this.pki.caCert), cert: readFileSync(this.client.cert), key: readFileSync(this.client.key) };
  }

  remove(): void {
    this.pki.remove();
  }
}
