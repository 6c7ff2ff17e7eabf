// A real 3-node cluster with mutual TLS and client-certificate auth, for one mocha describe block,
// and LockClients that authenticate as any principal (a test-made certificate per name). Stops the
// cluster after the block (keeping its dirs when a test failed) and closes every client.
import { LockClient } from '../../src/client/index.js';
import { ProcessCluster } from './process-cluster.js';
import { TestPki, type CertFiles } from './test-pki.js';

export interface MtlsCluster {
  readonly pki: TestPki;
  readonly cluster: ProcessCluster;
  /** Certificate files for `who` (made once). */
  certs(who: string): CertFiles;
  /** A LockClient that is `who`. */
  clientAs(who: string): LockClient;
}

/** Call at the top of a describe block; the returned object is usable from its tests on. */
export function useMtlsCluster(extraArgs: readonly string[] = []): MtlsCluster {
  const made: Record<string, CertFiles> = {};
  const clients: LockClient[] = [];
  let pki: TestPki | undefined;
  let cluster: ProcessCluster | undefined;
  const fx: MtlsCluster = {
    get pki() {
      return pki!;
    },
    get cluster() {
      return cluster!;
    },
    certs: (who) => (made[who] ??= pki!.client(who)),
    clientAs(who) {
      const files = fx.certs(who);
      const c = new LockClient({
        endpoints: cluster!.nodes.map((n) => n.address),
        cacert: pki!.caCert,
        cert: files.cert,
        key: files.key,
        timeoutMs: 10_000,
        watchLocks: false,
      });
      clients.push(c);
      return c;
    },
  };
  before(async () => {
    pki = TestPki.create();
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true, extraArgs: [...extraArgs] });
    await cluster.waitForLeader();
  });
  after(async function () {
    for (const c of clients) c.close();
    const failed = this.test?.parent?.tests.some((t) => t.state === 'failed');
    await cluster?.stop(failed);
    if (!failed) pki?.remove();
  });
  return fx;
}
