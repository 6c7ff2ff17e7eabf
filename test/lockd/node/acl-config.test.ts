// --acl / LOCKD_ACL and --admin / LOCKD_ADMIN: rules need proven principals, so --acl
// without TLS and --client-cert-auth is refused; admins are checked as principals.
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../../src/lockd/node/config.js';

const BASE = [
  '--id',
  'n1',
  '--listen',
  '127.0.0.1:7001',
  '--peer-listen',
  '127.0.0.1:7101',
  '--peers',
  'n1=127.0.0.1:7101',
  '--data-dir',
  '/tmp/x',
  '--cluster-id',
  'c',
];
const TLS = ['--tls-cert', 'c.pem', '--tls-key', 'k.pem', '--tls-ca', 'ca.pem'];

describe('config: --acl and --admin', () => {
  it('are off / empty by default, and taken from the flags or LOCKD_ACL / LOCKD_ADMIN (the flags win)', () => {
    expect(parseConfig(BASE, {})).to.include({ acl: false }).and.to.have.property('admins').that.deep.equals([]);
    const c = parseConfig([...BASE, ...TLS, '--client-cert-auth', '--acl', '--admin', 'root', '--admin', 'ops', '--admin', 'root'], { LOCKD_ADMIN: 'x' });
    expect(c.acl).to.equal(true);
    expect(c.admins).to.deep.equal(['root', 'ops']);
    const e = parseConfig([...BASE, ...TLS], { LOCKD_CLIENT_CERT_AUTH: '1', LOCKD_ACL: 'true', LOCKD_ADMIN: 'root, ops' });
    expect(e.acl).to.equal(true);
    expect(e.admins).to.deep.equal(['root', 'ops']);
  });

  it('refuses --acl without TLS and client certificates, a bad LOCKD_ACL and an admin that is no principal', () => {
    expect(() => parseConfig([...BASE, '--acl'], {})).to.throw(ConfigError, '--acl needs TLS and --client-cert-auth');
    expect(() => parseConfig([...BASE, ...TLS, '--acl'], {})).to.throw(ConfigError, '--acl needs TLS and --client-cert-auth');
    expect(() => parseConfig(BASE, { LOCKD_ACL: 'yes' })).to.throw(ConfigError, 'LOCKD_ACL must be 1, true, 0 or false');
    expect(() => parseConfig([...BASE, '--admin', 'a\u0001b'], {})).to.throw(ConfigError, 'control character');
  });
});
