// Where lockctl and the client take their TLS files from (flags, environment, .cluster/tls/), and
// that unusable files are an error when the client is made, not at its first call.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveTls, UsageError } from '../../src/client/lockctl/args.js';
import { loadClientTls } from '../../src/client/tls.js';
import { LockClient } from '../../src/client/index.js';

describe('client TLS options', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockd-tls-opts-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lockctl: flags over LOCKD_* variables; with neither, .cluster/tls/ as root if present, else plaintext', () => {
    expect(resolveTls({}, {}, dir)).to.equal(undefined);
    mkdirSync(join(dir, '.cluster', 'tls'), { recursive: true });
    writeFileSync(join(dir, '.cluster', 'tls', 'ca.crt'), '');
    const tlsDir = join(dir, '.cluster', 'tls');
    expect(resolveTls({}, {}, dir)).to.deep.equal({ cacert: join(tlsDir, 'ca.crt'), cert: join(tlsDir, 'root.crt'), key: join(tlsDir, 'root.key') });
    const env = { LOCKD_CACERT: '/env/ca', LOCKD_CERT: '/env/c', LOCKD_KEY: '/env/k' };
    expect(resolveTls({}, env, dir)).to.deep.equal({ cacert: '/env/ca', cert: '/env/c', key: '/env/k' });
    expect(resolveTls({ cert: '/f/c', key: '/f/k' }, env, dir)).to.deep.equal({ cacert: '/env/ca', cert: '/f/c', key: '/f/k' });
    expect(resolveTls({ cacert: '/f/ca' }, {}, dir)).to.deep.equal({ cacert: '/f/ca' }); // server-auth only
    expect(() => resolveTls({ cert: '/f/c' }, {}, dir)).to.throw(UsageError, /--cert and --key go together/);
  });

  it('the client reads its files at once: a missing or non-PEM file, or a certificate without its key, is an error', () => {
    expect(loadClientTls({})).to.equal(undefined);
    expect(() => new LockClient({ endpoints: ['127.0.0.1:1'], cacert: join(dir, 'missing.crt') })).to.throw(
      /cannot read the CA certificate file .*missing\.crt/,
    );
    writeFileSync(join(dir, 'junk.crt'), 'not a certificate');
    expect(() => loadClientTls({ cacert: join(dir, 'junk.crt') })).to.throw(/is not a PEM document/);
    expect(() => loadClientTls({ cert: Buffer.from('-----BEGIN CERTIFICATE-----') })).to.throw(/needs its key/);
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(loadClientTls({ cacert: pem })?.ca?.toString()).to.equal(pem); // a PEM string is used as is
  });
});
