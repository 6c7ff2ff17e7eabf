// Throwaway certificates for tests, made with the system's openssl (no hand-written X.509): a CA,
// node certificates (peer SAN <id>.peer.lockd plus localhost/127.0.0.1 for the client port) and
// client certificates (subject CN = the principal). Everything lives in one temp dir; remove() deletes it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';

export interface CertFiles {
  readonly cert: string;
  readonly key: string;
}

export interface IssueOptions {
  readonly cn: string;
  readonly dns?: readonly string[];
  readonly ips?: readonly string[];
  /** Key usage: a node certificate serves and dials; a client certificate only dials. */
  readonly usage: 'node' | 'client';
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export class TestPki {
  private constructor(
    readonly dir: string,
    readonly caCert: string,
    private readonly caKey: string,
    private readonly owned: boolean,
  ) {}

  private readonly nodesIssued = new Map<string, CertFiles>();

  /** A new CA in a new temp dir (or under `dir`, with `name` as the file prefix). */
  static create(dir?: string, name = 'ca'): TestPki {
    const d = dir ?? mkdtempSync(join(tmpdir(), 'lockd-pki-'));
    const cert = join(d, `${name}.crt`);
    const key = join(d, `${name}.key`);
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        `/CN=lockd test ${name}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      d,
    );
    return new TestPki(d, cert, key, dir === undefined);
  }

  /** Issue `file`.crt / `file`.key signed by this CA (an existing pair is overwritten: a rotation). */
  issue(file: string, o: IssueOptions): CertFiles {
    const cert = join(this.dir, `${file}.crt`);
    const key = join(this.dir, `${file}.key`);
    const csr = join(this.dir, `${file}.csr`);
    const ext = join(this.dir, `${file}.ext`);
    const sans = [...(o.dns ?? []).map((d) => `DNS:${d}`), ...(o.ips ?? []).map((ip) => `IP:${ip}`)];
    writeFileSync(
      ext,
      [
        ...(sans.length ? [`subjectAltName=${sans.join(',')}`] : []),
        `extendedKeyUsage=${o.usage === 'node' ? 'serverAuth,clientAuth' : 'clientAuth'}`,
        'basicConstraints=CA:FALSE',
      ].join('\n') + '\n',
    );
    openssl(
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${o.cn}`],
      this.dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        this.caCert,
        '-CAkey',
        this.caKey,
        '-set_serial',
        `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`,
        '-days',
        '2',
        '-out',
        cert,
        '-extfile',
        ext,
      ],
      this.dir,
    );
    rmSync(csr);
    rmSync(ext);
    return { cert, key };
  }

  /** Member `id`'s certificate: names it as a peer (or as `claims`), and localhost/127.0.0.1 for clients. */
  node(id: string, claims = id, file = id): CertFiles {
    return this.issue(file, { cn: id, dns: [`${claims}.peer.lockd`, 'localhost'], ips: ['127.0.0.1'], usage: 'node' });
  }

  /** A client certificate for principal `cn`. */
  client(cn: string, file = cn): CertFiles {
    return this.issue(file, { cn, usage: 'client' });
  }

  /** Member `id`'s certificate files, made on first use (node() again rotates them in place). */
  nodeFiles(id: string): CertFiles {
    let files = this.nodesIssued.get(id);
    if (!files) this.nodesIssued.set(id, (files = this.node(id)));
    return files;
  }

  /** The flags that start member `id` with TLS. */
  nodeFlags(id: string): Record<string, string> {
    const files = this.nodeFiles(id);
    return { '--tls-cert': files.cert, '--tls-key': files.key, '--tls-ca': this.caCert };
  }

  /** Channel credentials trusting this CA, presenting `files` if given. */
  channelCredentials(files?: CertFiles): grpc.ChannelCredentials {
    return grpc.credentials.createSsl(readFileSync(this.caCert), files ? readFileSync(files.key) : null, files ? readFileSync(files.cert) : null);
  }

  remove(): void {
    if (this.owned) rmSync(this.dir, { recursive: true, force: true });
  }
}
