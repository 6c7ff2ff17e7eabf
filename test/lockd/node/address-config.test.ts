// Addresses in --peers and the advertise flags: IP addresses or DNS names (config.ts ADDRESS_PATTERN).
import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../../src/lockd/node/config.js';

describe('config: host names in addresses', () => {
  const peers = 'n1=localhost:7101,n2=lockd-1.lockd-peers.default.svc.cluster.local:7101,n3=n3.example.:7101';
  it('accepts DNS names in --peers and the advertise flags', () => {
    const c = parseConfig(
      [
        '--id',
        'n1',
        '--listen',
        '0.0.0.0:7001',
        '--peer-listen',
        '0.0.0.0:7101',
        '--peers',
        peers,
        '--advertise-peer',
        'localhost:7101',
        '--advertise-client',
        'localhost:7001',
        '--data-dir',
        '/tmp/x',
        '--cluster-id',
        'c',
      ],
      {},
    );
    expect(c.peers.get('n2')).to.equal('lockd-1.lockd-peers.default.svc.cluster.local:7101');
    expect(c.peers.get('n3')).to.equal('n3.example.:7101');
    expect(c.advertiseClient).to.equal('localhost:7001');
  });

  it('refuses a host that is no name or address', () => {
    for (const host of ['-lead', 'trail-', 'a..b', 'under_score', 'x'.repeat(64), `${'a'.repeat(60)}.`.repeat(5) + 'com', 'sp ace', '.dot']) {
      const addr = `${host}:7101`;
      expect(
        () =>
          parseConfig(
            [
              '--id',
              'n1',
              '--listen',
              '127.0.0.1:7001',
              '--peer-listen',
              '127.0.0.1:7101',
              '--peers',
              `n1=127.0.0.1:7101,n2=${addr},n3=127.0.0.1:7103`,
              '--data-dir',
              '/tmp/x',
              '--cluster-id',
              'c',
            ],
            {},
          ),
        host,
      ).to.throw(ConfigError, `--peers entry for n2 "${addr}" is not HOST:PORT`);
    }
  });
});
