// A node's TLS files as loadTlsMaterial reads them at start and on SIGHUP, with real certificates
// (openssl, test/support/test-pki.ts). What a node accepts must be what its peers' TLS stacks accept:
// a CA file that is a bundle (the middle step of a CA rotation: old and new CA trusted at once) and a
// certificate signed by an intermediate CA (the chain in --tls-cert) are normal deployments, and a
// certificate that is not valid yet would only show up later as every new peer connection failing.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TlsMaterialError, loadTlsMaterial } from '../../src/lockd/security/tls-material.js';
import { TestPki } from '../support/test-pki.js';

describe("loadTlsMaterial (the checks of a node's TLS files)", function () {
  this.timeout(30_000);
  let oldCa: TestPki;
  let newCa: TestPki;

  before(() => {
    oldCa = TestPki.create();
    newCa = TestPki.create(oldCa.dir, 'ca-new');
  });
  after(() => oldCa?.remove());

  const bundle = (name: string, ...files: string[]): string => {
    const path = join(oldCa.dir, name);
    writeFileSync(path, files.map((f) => readFileSync(f, 'utf8')).join(''));
    return path;
  };

  it('accepts a CA bundle whichever of its CAs signed the node certificate (a CA rotation in progress)', () => {
    const both = bundle('both.pem', oldCa.caCert, newCa.caCert);
    const byOld = oldCa.node('n1', 'n1', 'n1-old');
    const byNew = newCa.node('n1', 'n1', 'n1-new');
    expect(() => loadTlsMaterial({ ca: both, ...byOld }, 'n1')).not.to.throw();
    expect(() => loadTlsMaterial({ ca: both, ...byNew }, 'n1')).not.to.throw();
    // Still refused: a certificate no CA of the bundle signed.
    const foreign = TestPki.create(oldCa.dir, 'ca-foreign').node('n1', 'n1', 'n1-foreign');
    expect(() => loadTlsMaterial({ ca: both, ...foreign }, 'n1')).to.throw(TlsMaterialError, /not signed by --tls-ca/);
  });

  it('accepts a node certificate signed by an intermediate CA whose certificate follows it in --tls-cert', () => {
    // An intermediate CA signed by oldCa, and n1's certificate signed by the intermediate.
    const d = oldCa.dir;
    const ossl = (args: string[]) => execFileSync('openssl', args, { cwd: d, stdio: ['ignore', 'ignore', 'pipe'] });
    writeFileSync(join(d, 'int.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n');
    ossl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'int.key',
      '-out',
      'int.csr',
      '-subj',
      '/CN=lockd test intermediate',
    ]);
    ossl([
      'x509',
      '-req',
      '-in',
      'int.csr',
      '-CA',
      oldCa.caCert,
      '-CAkey',
      join(d, 'ca.key'),
      '-set_serial',
      '0x1234',
      '-days',
      '2',
      '-out',
      'int.crt',
      '-extfile',
      'int.ext',
    ]);
    writeFileSync(join(d, 'leaf.ext'), 'subjectAltName=DNS:n1.peer.lockd,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n');
    ossl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=n1']);
    ossl([
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'int.crt',
      '-CAkey',
      'int.key',
      '-set_serial',
      '0x1235',
      '-days',
      '2',
      '-out',
      'leaf.crt',
      '-extfile',
      'leaf.ext',
    ]);
    const chain = bundle('leaf-chain.pem', join(d, 'leaf.crt'), join(d, 'int.crt'));
    expect(() => loadTlsMaterial({ ca: oldCa.caCert, cert: chain, key: join(d, 'leaf.key') }, 'n1')).not.to.throw();
    // Without the intermediate, nothing links the certificate to the CA.
    expect(() => loadTlsMaterial({ ca: oldCa.caCert, cert: join(d, 'leaf.crt'), key: join(d, 'leaf.key') }, 'n1')).to.throw(
      TlsMaterialError,
      /not signed by --tls-ca/,
    );
  });

  it('refuses a node certificate that is not valid yet (as it refuses an expired one)', () => {
    const n1 = oldCa.node('n1', 'n1', 'n1-early');
    const validFrom = new Date(new X509Certificate(readFileSync(n1.cert)).validFrom);
    expect(() => loadTlsMaterial({ ca: oldCa.caCert, ...n1 }, 'n1', new Date(validFrom.getTime() + 1000))).not.to.throw();
    expect(() => loadTlsMaterial({ ca: oldCa.caCert, ...n1 }, 'n1', new Date(validFrom.getTime() - 3600_000))).to.throw(TlsMaterialError, /not valid before/);
    expect(() => loadTlsMaterial({ ca: oldCa.caCert, ...n1 }, 'n1', new Date(validFrom.getTime() + 3 * 86400_000))).to.throw(TlsMaterialError, /expired/);
  });
});
