import { expect } from 'chai';
import type { ApplyOutput } from '../../../src/lockd/state-machine/index.js';
import {
  LockStateMachine,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS,
  MAX_FENCE_TOMBSTONES,
  SnapshotDecodeError,
  InvariantError,
  encodeCommand,
  grantToken,
  statesEqual,
} from '../../../src/lockd/state-machine/index.js';
import { scriptedHistory } from './workload.js';

const script = scriptedHistory();

function run(sm: LockStateMachine, from: number, to: number): ApplyOutput[] {
  const outs: ApplyOutput[] = [];
  for (let i = from; i < to; i++) {
    const c = script[i];
    outs.push(sm.apply({ index: i + 1, data: c === 'noop' ? new Uint8Array(0) : encodeCommand(c) }));
  }
  return outs;
}

// The hand-written documents have no quota fields: format 8, which this build still reads (and writes while no quota is used).
const snapJson = (doc: unknown) => new Uint8Array([SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS, ...new TextEncoder().encode(JSON.stringify(doc))]);

describe('state machine: snapshots', () => {
  const reference = new LockStateMachine({ checkEveryApply: true });
  const refOutputs = run(reference, 0, script.length);

  it('the scripted history does what its comments say (sanity of the fixture)', () => {
    const r = (i: number) => refOutputs[i - 1].result as unknown as Record<string, unknown>;
    expect(r(13)).to.include({ duplicate: true, leaseId: 2 });
    expect(refOutputs[14].events.map((e) => e.type)).to.deep.equal(['WAITER_REMOVED', 'LEASE_EXPIRED']);
    expect(refOutputs[16].events.map((e) => [e.type, e.name, e.leaseId, e.token])).to.deep.equal([
      ['EXPIRED', 'alpha', 2, grantToken(7, 0)],
      ['ACQUIRED', 'alpha', 3, grantToken(17, 0)],
      ['EXPIRED', 'zeta', 2, grantToken(6, 0)],
      ['LEASE_EXPIRED', '', 2, 0],
    ]);
    expect(r(20)).to.include({ error: 'FAILED_PRECONDITION', highestToken: grantToken(17, 0) });
    expect(r(21)).to.include({ status: 'acquired', token: grantToken(17, 0), duplicate: true });
    expect(r(22)).to.include({ released: false });
    expect(r(24)).to.include({ removed: false, heldToken: grantToken(23, 0) });
    expect(r(29)).to.deep.include({ releasedLocks: ['beta'] });
    expect(r(30)).to.include({ error: 'INVALID_ARGUMENT' });
    expect(r(33)).to.include({ error: 'NOT_FOUND' });
    expect(r(40)).to.include({ previous: 2, permits: 3, granted: 1 });
    expect(refOutputs[44].events.map((e) => [e.type, e.leaseId, e.token])).to.deep.equal([
      ['DOWNGRADED', 34, grantToken(42, 0)],
      ['ACQUIRED', 35, grantToken(45, 0)],
      ['ACQUIRED', 36, grantToken(45, 1)],
    ]);
    expect(r(49)).to.deep.include({ releasedLocks: ['ld', 'rw'] });
    expect(r(52)).to.include({ status: 'acquired', token: grantToken(52, 0) });
    expect(reference.hasLiveLeases()).to.equal(false);
  });

  it('round-trips: restore(snapshot()) gives the same bytes, queries and digest, at every index', () => {
    const sm = new LockStateMachine();
    for (let i = 0; i < script.length; i++) {
      run(sm, i, i + 1);
      const bytes = sm.snapshot();
      const copy = LockStateMachine.fromSnapshot(bytes);
      expect(copy.snapshot()).to.deep.equal(bytes);
      expect(copy.stateDigest()).to.equal(sm.stateDigest());
      expect(statesEqual(copy, sm)).to.equal(true);
      expect(copy.appliedIndex).to.equal(sm.appliedIndex);
      expect(copy.now).to.equal(sm.now);
      expect(copy.listLeases()).to.deep.equal(sm.listLeases());
      for (const name of ['alpha', 'beta', 'zeta']) expect(copy.inspectLock(name)).to.deep.equal(sm.inspectLock(name));
      expect(copy.fenceRead('out')).to.deep.equal(sm.fenceRead('out'));
    }
  });

  it('restore at any point, then continue: identical results, events and final state as never snapshotting', () => {
    for (let k = 0; k <= script.length; k++) {
      const before = new LockStateMachine();
      run(before, 0, k);
      const restored = LockStateMachine.fromSnapshot(before.snapshot(), { checkEveryApply: true });
      const outs = run(restored, k, script.length);
      expect(outs, `snapshot after entry ${k}`).to.deep.equal(refOutputs.slice(k));
      expect(restored.snapshot()).to.deep.equal(reference.snapshot());
    }
  });

  it('is deterministic: the same state reached by different histories has the same bytes', () => {
    const write = (key: string, token: number) => encodeCommand({ type: 'FenceWrite', key, value: new Uint8Array([token]), token });
    const a = new LockStateMachine();
    const b = new LockStateMachine();
    for (let i = 1; i <= 5; i++) [a, b].forEach((sm) => sm.apply({ index: i, data: new Uint8Array(0) }));
    a.apply({ index: 6, data: write('x', 1) });
    a.apply({ index: 7, data: write('y', 2) });
    b.apply({ index: 6, data: write('y', 2) });
    b.apply({ index: 7, data: write('x', 1) });
    expect(a.snapshot()).to.deep.equal(b.snapshot());
    expect(a.stateDigest()).to.equal(b.stateDigest());
  });

  it('different states have different digests', () => {
    const a = new LockStateMachine();
    const b = new LockStateMachine();
    a.apply({ index: 1, data: new Uint8Array(0) });
    b.apply({ index: 1, data: encodeCommand({ type: 'Grant', ttlMs: 1000, marginMs: 0 }) });
    expect(a.stateDigest())
      .to.match(/^[0-9a-f]{16}$/)
      .and.not.equal(b.stateDigest());
    expect(statesEqual(a, b)).to.equal(false);
  });

  // Holder token 5 is one minted before tokens were per grant (token = index): old data dirs restore.
  const good = {
    appliedIndex: 10,
    now: 50,
    leases: [[2, 1000, 900, 'anonymous']],
    locks: [['l', 1, 0, [[2, 5, false, 0, '', 5, true, null, null]], [], false]],
    fence: [],
    fenceTombstones: [],
    fenceFloor: 0,
    acl: [['alice', 'alice/', 'lock']],
    dedup: [],
  };
  const corrupt: [string, Uint8Array, RegExp, new (...args: never[]) => Error][] = [
    ['empty bytes', new Uint8Array(0), /empty/, SnapshotDecodeError],
    ['a future version', new Uint8Array([SNAPSHOT_FORMAT_VERSION + 1, 123, 125]), /version/, SnapshotDecodeError],
    // Version 5 was main's (owners, acl) and also recipes' (holders): 6 carries both; 5 is refused.
    ['an older version (5)', new Uint8Array([5, ...snapJson(good).subarray(1)]), /format version 5 is not supported/, SnapshotDecodeError],
    ['truncated JSON', snapJson(good).subarray(0, 20), /malformed JSON/, SnapshotDecodeError],
    ['a missing table', snapJson({ ...good, dedup: undefined }), /dedup must be a list/, SnapshotDecodeError],
    ['a negative clock', snapJson({ ...good, now: -1 }), /now/, SnapshotDecodeError],
    [
      'a lock held by a lease not in it',
      snapJson({ ...good, locks: [['l', 1, 0, [[3, 5, false, 0, '', 5, true, null, null]], [], false]] }),
      /lease 3/,
      SnapshotDecodeError,
    ],
    [
      'a lease twice',
      snapJson({
        ...good,
        leases: [
          [2, 1000, 900, 'anonymous'],
          [2, 1000, 900, 'anonymous'],
        ],
      }),
      /twice/,
      SnapshotDecodeError,
    ],
    [
      'a holder that also waits',
      snapJson({ ...good, locks: [['l', 1, 0, [[2, 5, false, 0, '', 5, true, null, null]], [[2, 5, false, 0, '', null, null]], false]] }),
      /holder-not-waiting/,
      InvariantError,
    ],
    [
      'a token from the future',
      snapJson({ ...good, locks: [['l', 1, 0, [[2, grantToken(11, 0), false, 0, '', 5, true, null, null]], [], false]] }),
      /token-range/,
      InvariantError,
    ],
    [
      'a holder Acquire from the future',
      snapJson({ ...good, locks: [['l', 1, 0, [[2, 5, false, 0, '', 11, true, null, null]], [], false]] }),
      /acquire-index-range/,
      InvariantError,
    ],
    [
      'a waiter Acquire before its lease',
      snapJson({
        ...good,
        leases: [
          [2, 1000, 900, 'anonymous'],
          [3, 1000, 900, 'anonymous'],
        ],
        locks: [['l', 1, 0, [[2, 5, false, 0, '', 5, true, null, null]], [[3, 3, false, 0, '', null, null]], false]],
      }),
      /acquire-index-range/,
      InvariantError,
    ],
    [
      'a waiter without its Acquire index',
      snapJson({
        ...good,
        leases: [
          [2, 1000, 900, 'anonymous'],
          [3, 1000, 900, 'anonymous'],
        ],
        locks: [['l', 1, 0, [[2, 5, false, 0, '', 5, true, null, null]], [[3, 3]], false]],
      }),
      /waiter must have 7 fields/,
      SnapshotDecodeError,
    ],
    [
      'a lock without its lastAcquireWait',
      snapJson({ ...good, locks: [['l', 1, 0, [[2, 5, false, 0, '', 5, 1, null, null]], [], false]] }),
      /lastAcquireWait must be a boolean/,
      SnapshotDecodeError,
    ],
    [
      'an open-wait request id whose lease does not wait',
      snapJson({ ...good, dedup: [['r', 'A', 'l', 2, true, 'queued', 0, 2, 5, 1, false, 0, '']] }),
      /dedup-open-waits/,
      InvariantError,
    ],
    ['an unknown dedup kind', snapJson({ ...good, dedup: [['r', 'X']] }), /dedup record kind/, SnapshotDecodeError],
    ['a fence entry without its owner', snapJson({ ...good, fence: [['k', 5, '']] }), /fence entry must have 4 fields/, SnapshotDecodeError],
    ['a key both live and deleted', snapJson({ ...good, fence: [['k', 5, '', 2]], fenceTombstones: [['k', 6]] }), /both live and deleted/, SnapshotDecodeError],
    ['a fence token from the future', snapJson({ ...good, fenceTombstones: [['k', grantToken(10, 0)]] }), /fence-token-range/, InvariantError],
    [
      'too many tombstones',
      snapJson({ ...good, fenceTombstones: Array.from({ length: MAX_FENCE_TOMBSTONES + 1 }, (_, i) => [`t${i}`, 5]) }),
      /tombstones; at most/,
      SnapshotDecodeError,
    ],
    ['a missing fence floor', snapJson({ ...good, fenceFloor: undefined }), /fence floor/, SnapshotDecodeError],
    [
      'two exclusive holders of a mutex',
      snapJson({
        ...good,
        leases: [
          [2, 1000, 900, 'anonymous'],
          [3, 1000, 900, 'anonymous'],
        ],
        locks: [
          [
            'l',
            1,
            0,
            [
              [2, 5, false, 0, '', 5, true, null, null],
              [3, 6, false, 0, '', 6, true, null, null],
            ],
            [],
            false,
          ],
        ],
      }),
      /holders-fit/,
      InvariantError,
    ],
    [
      'an exclusive holder beside a shared one',
      snapJson({
        ...good,
        leases: [
          [2, 1000, 900, 'anonymous'],
          [3, 1000, 900, 'anonymous'],
        ],
        locks: [
          [
            'l',
            1,
            0,
            [
              [2, 5, true, 0, '', 5, true, null, null],
              [3, 6, false, 0, '', 6, true, null, null],
            ],
            [],
            false,
          ],
        ],
      }),
      /holders-fit/,
      InvariantError,
    ],
    [
      'a lock-delay already over',
      snapJson({ ...good, locks: [['l', 1, 40, [[2, 5, false, 0, '', 5, true, null, null]], [], false]] }),
      /delay-ends/,
      InvariantError,
    ],
    [
      'a head waiter that fits',
      snapJson({
        ...good,
        leases: [
          [2, 1000, 900, 'anonymous'],
          [3, 1000, 900, 'anonymous'],
        ],
        locks: [['l', 2, 0, [[2, 5, false, 0, '', 5, true, null, null]], [[3, 6, false, 0, '', null, null]], false]],
      }),
      /fifo/,
      InvariantError,
    ],
    ['a lease without its owner', snapJson({ ...good, leases: [[2, 1000, 900]] }), /lease must have 4 fields/, SnapshotDecodeError],
    [
      'a lease owned by an empty principal',
      snapJson({ ...good, leases: [[2, 1000, 900, '']] }),
      /lease owner: principal must not be empty/,
      SnapshotDecodeError,
    ],
    ['an access rule with an unknown verb', snapJson({ ...good, acl: [['alice', 'a/', 'write']] }), /access rule: verb "write"/, SnapshotDecodeError],
    ['an admin rule on a prefix', snapJson({ ...good, acl: [['alice', 'a/', 'admin']] }), /admin is cluster-wide/, SnapshotDecodeError],
    [
      'an access rule twice',
      snapJson({
        ...good,
        acl: [
          ['alice', 'a/', 'lock'],
          ['alice', 'a/', 'lock'],
        ],
      }),
      /appears twice/,
      SnapshotDecodeError,
    ],
    ['a missing acl table', snapJson({ ...good, acl: undefined }), /acl must be a list/, SnapshotDecodeError],
    [
      'a fence record with a bad error kind',
      snapJson({ ...good, dedup: [['r', 'F', 'k', 5, '', '0:x', 'OOPS', 'm', 0, false]] }),
      /not an error kind/,
      SnapshotDecodeError,
    ],
  ];
  for (const [what, bytes, msg, type] of corrupt) {
    it(`refuses a snapshot with ${what}, leaving the state unchanged`, () => {
      const sm = new LockStateMachine();
      run(sm, 0, 10);
      const before = sm.snapshot();
      expect(() => sm.restore(bytes)).to.throw(type, msg);
      expect(sm.snapshot()).to.deep.equal(before);
    });
  }

  it('restores a lease past its deadline as dead with its cleanup pending (derived from now and the deadline), ended by the next Tick', () => {
    const sm = LockStateMachine.fromSnapshot(snapJson({ ...good, leases: [[2, 1000, 50, 'anonymous']] }));
    expect(sm.hasLease(2)).to.equal(false);
    expect(sm.inspectLock('l').holderLeaseId, 'its grant stands until the entry that ends it').to.equal(2);
    expect(sm.hasLiveLeases(), 'Ticks still come to end it').to.equal(true);
    const out = sm.apply({ index: 11, data: encodeCommand({ type: 'Tick', elapsedMs: 0, marginMs: 0, renewed: [] }) });
    expect(out.result).to.deep.include({ ok: true, expired: [2] });
    expect(sm.inspectLock('l').held).to.equal(false);
    expect(sm.hasLiveLeases()).to.equal(false);
  });

  it('accepts the hand-written valid snapshot the corrupt cases are built from', () => {
    const sm = LockStateMachine.fromSnapshot(snapJson(good));
    expect(sm.inspectLock('l')).to.deep.include({ held: true, token: 5, holderLeaseId: 2, waitingLeaseIds: [] });
    expect(sm.timeToLive(2)?.remainingMs).to.equal(850);
    expect(sm.aclRules()).to.deep.equal([{ principal: 'alice', prefix: 'alice/', verb: 'lock' }]);
  });
});
