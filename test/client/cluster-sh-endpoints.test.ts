// lockctl finds the ./cluster.sh cluster that LOCKD_CLUSTER_DIR / LOCKD_BASE_PORT name, as cluster.sh
// itself does (its members, clients on BASE+I-1, its tls/), instead of dialling 7001..7005.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, resolveTls, UsageError } from '../../src/client/lockctl/args.js';
import { clusterShEndpoints } from '../../src/client/lockctl/cluster-sh.js';

describe('lockctl: the cluster.sh cluster of LOCKD_CLUSTER_DIR / LOCKD_BASE_PORT', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockd-clustersh-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('derives the members and ports cluster.sh uses; neither variable set: undefined (the defaults stand)', () => {
    expect(clusterShEndpoints({}, dir)).to.equal(undefined);
    expect(clusterShEndpoints({ LOCKD_BASE_PORT: '12001' }, dir)).to.deep.equal([
      '127.0.0.1:12001',
      '127.0.0.1:12002',
      '127.0.0.1:12003',
      '127.0.0.1:12004',
      '127.0.0.1:12005',
    ]);
    writeFileSync(join(dir, 'size'), '3\n');
    expect(clusterShEndpoints({ LOCKD_CLUSTER_DIR: dir }, '/')).to.deep.equal(['127.0.0.1:7001', '127.0.0.1:7002', '127.0.0.1:7003']);
    writeFileSync(join(dir, 'members'), '1\n3\n4\n'); // after a membership change
    expect(clusterShEndpoints({ LOCKD_CLUSTER_DIR: dir, LOCKD_BASE_PORT: '20001' }, '/')).to.deep.equal([
      '127.0.0.1:20001',
      '127.0.0.1:20003',
      '127.0.0.1:20004',
    ]);
    expect(() => clusterShEndpoints({ LOCKD_BASE_PORT: 'x' }, dir)).to.throw(/LOCKD_BASE_PORT "x" is not a port/);
  });

  it('lockctl: --endpoints, then LOCKD_ENDPOINTS, then the cluster.sh cluster; its tls/ as root', () => {
    writeFileSync(join(dir, 'size'), '3\n');
    const env = { LOCKD_CLUSTER_DIR: dir, LOCKD_BASE_PORT: '15001' };
    expect(parseCommandLine(['status'], env).endpoints).to.deep.equal(['127.0.0.1:15001', '127.0.0.1:15002', '127.0.0.1:15003']);
    expect(parseCommandLine(['status'], { ...env, LOCKD_ENDPOINTS: '10.0.0.1:1' }).endpoints).to.deep.equal(['10.0.0.1:1']);
    expect(parseCommandLine(['--endpoints', '10.0.0.2:2', 'status'], env).endpoints).to.deep.equal(['10.0.0.2:2']);
    expect(() => parseCommandLine(['status'], { LOCKD_BASE_PORT: '99999' })).to.throw(UsageError, /LOCKD_BASE_PORT/);
    expect(resolveTls({}, env, '/')).to.equal(undefined);
    mkdirSync(join(dir, 'tls'));
    writeFileSync(join(dir, 'tls', 'ca.crt'), '');
    expect(resolveTls({}, env, '/')).to.deep.equal({
      cacert: join(dir, 'tls', 'ca.crt'),
      cert: join(dir, 'tls', 'root.crt'),
      key: join(dir, 'tls', 'root.key'),
    });
  });
});
