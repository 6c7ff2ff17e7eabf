// GET over HTTPS against a node's --http-listen with TLS on (tests of the HTTPS endpoint and its access rule).
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { CertFiles, TestPki } from './test-pki.js';

export interface Answer {
  readonly status: number;
  readonly body: string;
  /** SHA-256 fingerprint of the certificate the server presented. */
  readonly served: string;
}

/** GET over HTTPS trusting `pki`'s CA, presenting `client` if given; a new connection each time. */
export function httpsGet(port: number, path: string, pki: TestPki, client?: CertFiles, extra: { ca?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        servername: 'localhost',
        agent: false,
        timeout: 3000,
        ca: readFileSync(extra.ca ?? pki.caCert),
        ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}),
      },
      (res) => {
        const served = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
          if (path === '/events' && body.includes('event: state')) req.destroy(); // a stream: the first event is enough
        });
        const done = () => resolve({ status: res.statusCode ?? 0, body, served });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}
