// --http-listen / LOCKD_HTTP_LISTEN: off when absent, checked as HOST:PORT like --listen; --advertise-http.
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

describe('config: --http-listen', () => {
  it('is off when absent, taken from the flag or LOCKD_HTTP_LISTEN (the flag wins)', () => {
    expect(parseConfig(BASE, {}).httpListen).to.equal(undefined);
    expect(parseConfig([...BASE, '--http-listen', '127.0.0.1:7201'], {}).httpListen).to.equal('127.0.0.1:7201');
    expect(parseConfig(BASE, { LOCKD_HTTP_LISTEN: '[::1]:7202' }).httpListen).to.equal('[::1]:7202');
    expect(parseConfig([...BASE, '--http-listen', '0.0.0.0:7203'], { LOCKD_HTTP_LISTEN: '127.0.0.1:1' }).httpListen).to.equal('0.0.0.0:7203');
  });

  it('refuses what is not HOST:PORT with a message naming the flag', () => {
    for (const bad of ['7201', 'localhost', '127.0.0.1:0', '127.0.0.1:70000', 'http://127.0.0.1:7201']) {
      expect(() => parseConfig([...BASE, '--http-listen', bad], {}), bad).to.throw(ConfigError, `--http-listen "${bad}" is not HOST:PORT`);
    }
  });

  it('--advertise-http: what peers are told (default --http-listen, none for a wildcard bind); needs --http-listen; a wildcard is refused', () => {
    expect(parseConfig([...BASE, '--http-listen', '127.0.0.1:7201'], {}).advertiseHttp).to.equal('127.0.0.1:7201');
    expect(parseConfig([...BASE, '--http-listen', '0.0.0.0:7201'], {}).advertiseHttp).to.equal(undefined);
    expect(parseConfig([...BASE, '--http-listen', '0.0.0.0:7201', '--advertise-http', 'node1.example:7201'], {}).advertiseHttp).to.equal('node1.example:7201');
    expect(parseConfig([...BASE, '--http-listen', '0.0.0.0:7201'], { LOCKD_ADVERTISE_HTTP: '10.0.0.1:7201' }).advertiseHttp).to.equal('10.0.0.1:7201');
    expect(() => parseConfig([...BASE, '--advertise-http', '127.0.0.1:7201'], {})).to.throw(ConfigError, '--advertise-http needs --http-listen');
    expect(() => parseConfig([...BASE, '--http-listen', '0.0.0.0:7201', '--advertise-http', '0.0.0.0:7201'], {})).to.throw(ConfigError, 'nobody can dial');
  });
});
