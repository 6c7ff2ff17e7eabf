// The node's membership bookkeeping on its own: the member context a config entry carries (a
// network input on followers), the peer directory's address and removal rules, and the state
// machine passing over config entries.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { decodeMemberContext, encodeMemberContext } from '../../../src/lockd/node/member-context.js';
import { PeerDirectory } from '../../../src/lockd/node/peer-directory.js';
import { CLIENT_ADDRESS_HEADER, HTTP_ADDRESS_HEADER, statedIn, type StatedAddresses } from '../../../src/lockd/transport/metadata.js';
import { LockStateMachine } from '../../../src/lockd/state-machine/index.js';
import { encodeConfigEntry } from '../../../src/raft/membership.js';

describe('membership on the node', () => {
  it('decodes the member context it encodes, and refuses anything malformed or unbounded (undefined: no addresses)', () => {
    const good = { addresses: { n1: { peer: '127.0.0.1:7101' }, n4: { peer: 'host-4.example:7101', client: '10.0.0.4:7001' } }, requestId: 'r-1' };
    expect(decodeMemberContext(encodeMemberContext(good))).to.deep.equal(good);
    expect(decodeMemberContext(encodeMemberContext({ addresses: {}, requestId: '' }))).to.deep.equal({ addresses: {}, requestId: '' });
    const bad = [
      'not json',
      '[]',
      'null',
      JSON.stringify({ addresses: [] }),
      JSON.stringify({ addresses: { 'n 1': { peer: '127.0.0.1:1' } } }),
      JSON.stringify({ addresses: { n1: { peer: '127.0.0.1' } } }),
      JSON.stringify({ addresses: { n1: { peer: '127.0.0.1:70000' } } }),
      JSON.stringify({ addresses: { n1: { peer: '127.0.0.1:1', client: 5 } } }),
      JSON.stringify({ addresses: { n1: 'x' } }),
      JSON.stringify({ addresses: Object.fromEntries(Array.from({ length: 33 }, (_, k) => [`n${k}`, { peer: '127.0.0.1:1' }])) }),
      JSON.stringify({ addresses: {}, requestId: 'x'.repeat(129) }),
      JSON.stringify({ addresses: {}, requestId: 7 }),
    ];
    for (const raw of bad) expect(decodeMemberContext(raw), raw.slice(0, 60)).to.equal(undefined);
    expect(decodeMemberContext(undefined)).to.equal(undefined);
  });

  it('the peer directory: --peers wins over addresses from changes, removed ids are refused for good and never re-added', () => {
    const d = new PeerDirectory(
      'n1',
      new Map([
        ['n1', '127.0.0.1:7101'],
        ['n2', '127.0.0.1:7102'],
      ]),
      '127.0.0.1:7001',
    );
    const added: string[] = [];
    d.onAdded((id, a) => added.push(`${id}@${a}`));
    expect(d.addAddresses({ n2: { peer: '10.9.9.9:1' }, n3: { peer: '127.0.0.1:7103', client: '127.0.0.1:7003' }, n4: { peer: 'bad' } })).to.equal(true);
    expect(added).to.deep.equal(['n3@127.0.0.1:7103']);
    expect(d.peerAddress('n2')).to.equal('127.0.0.1:7102'); // kept: this start's --peers
    expect(d.clientAddress('n3')).to.equal('127.0.0.1:7003'); // the operator's, until n3 states its own
    expect(d.learn('n3', { client: '127.0.0.1:9003' })).to.equal(true);
    expect(d.clientAddress('n3')).to.equal('127.0.0.1:9003');
    expect(d.ownerOf('127.0.0.1:7103')).to.equal('n3');

    expect(d.setConfiguration({ voters: ['n1', 'n3'], learners: [] }, ['n2'])).to.deep.equal(['n2']);
    expect(d.members()).to.deep.equal(['n1', 'n3']);
    expect(d.isMember('n2')).to.equal(false);
    expect(d.isRemoved('n2')).to.equal(true);
    expect(d.learn('n2', { client: '127.0.0.1:9002' })).to.equal(false);
    expect(d.ownerOf('127.0.0.1:7102')).to.equal(undefined);
    expect(Object.keys(d.book())).to.deep.equal(['n1', 'n3']);
    expect(d.setConfiguration({ voters: ['n1', 'n3'] }, ['n2'])).to.deep.equal([]); // reported once
    d.addAddresses({ n2: { peer: '127.0.0.1:7102' } });
    expect(d.isMember('n2')).to.equal(false);
  });

  it('the peer directory: a stream whose metadata states no HTTP address clears the one recorded (the member restarted without --http-listen)', () => {
    const d = new PeerDirectory(
      'n1',
      new Map([
        ['n1', '127.0.0.1:7101'],
        ['n2', '127.0.0.1:7102'],
      ]),
      '127.0.0.1:7001',
      '127.0.0.1:7201',
    );
    const stream = (headers: Record<string, string>): StatedAddresses => {
      const md = new grpc.Metadata();
      for (const [k, v] of Object.entries(headers)) md.set(k, v);
      return statedIn(md);
    };
    expect(d.learn('n2', stream({ [CLIENT_ADDRESS_HEADER]: '127.0.0.1:7002', [HTTP_ADDRESS_HEADER]: '127.0.0.1:7202' }))).to.equal(true);
    expect(d.httpAddress('n2')).to.equal('127.0.0.1:7202');
    expect(d.learn('n2', stream({ [CLIENT_ADDRESS_HEADER]: '127.0.0.1:7002' }))).to.equal(true);
    expect(d.httpAddress('n2')).to.equal(''); // not the old one: /cluster and CORS no longer name it
    expect(d.clientAddress('n2')).to.equal('127.0.0.1:7002');
    // A refused statement changes nothing.
    d.learn('n2', stream({ [HTTP_ADDRESS_HEADER]: '127.0.0.1:7202' }));
    expect(d.learn('n2', stream({ [CLIENT_ADDRESS_HEADER]: 'not an address' }))).to.equal(false);
    expect(d.httpAddress('n2')).to.equal('127.0.0.1:7202');
    expect(d.httpAddress('n1')).to.equal('127.0.0.1:7201'); // its own, from its flags
  });

  it('the lock state machine passes over a config entry: no command, the applied index advances', () => {
    const sm = new LockStateMachine({ checkEveryApply: true });
    const data = encodeConfigEntry({ change: { op: 'addLearner', node: 'n4' }, config: { voters: ['n1', 'n2', 'n3'], learners: ['n4'], removed: [] } });
    const out = sm.apply({ index: 1, term: 1, data, type: 'config' });
    expect(out.result).to.equal(undefined);
    expect(out.events).to.deep.equal([]);
    expect(sm.appliedIndex).to.equal(1);
  });
});
