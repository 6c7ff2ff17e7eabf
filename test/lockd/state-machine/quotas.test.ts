// Per-principal quotas in the state machine (src/lockd/state-machine/quotas.ts): a command over a
// quota is refused RESOURCE_EXHAUSTED naming the quota, its value and the principal, and changes
// nothing; other principals are unaffected; an admin's QuotaSet changes them; they survive a
// snapshot; entries without the leader's `quota` mark are applied as before quotas.
import { expect } from 'chai';
import {
  DEDUP_CAPACITY,
  DEFAULT_QUOTA_LEASES,
  LockStateMachine,
  MAX_QUOTA_VALUE,
  SHARED_PRINCIPAL,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS,
  decodeCommand,
  encodeCommand,
  statesEqual,
  type Command,
} from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

const alice = { principal: 'alice', acl: true, quota: true } as const;
const bob = { principal: 'bob', acl: true, quota: true } as const;
const root = { principal: 'root', admin: true, acl: true, quota: true } as const;
/** No --acl: everyone is the shared principal. */
const open = { principal: 'carol', quota: true } as const;

/** `sweep` false: no invariant sweep after every entry (it is O(state): the long runs sweep once at their end). */
function setup(sweep = true): Harness {
  const h = new Harness(new LockStateMachine({ checkEveryApply: sweep }));
  for (const subject of ['alice', 'bob']) h.ok({ type: 'AclGrant', subject, prefix: '', verb: 'lock', ...root });
  return h;
}

const grant = (h: Harness, who: object, requestId?: string) =>
  h.apply({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...(requestId ? { requestId } : {}), ...who } as Command).result!;

describe('state machine: per-principal quotas', () => {
  it('a QuotaSet with a value out of range, none given, or by a non-admin is refused and changes nothing', () => {
    const h = setup();
    for (const bad of [-1, 1.5, MAX_QUOTA_VALUE + 1, Number.MAX_SAFE_INTEGER + 2]) {
      const r = h.fail({ type: 'QuotaSet', subject: 'alice', leases: bad, ...root } as Command);
      expect(r.error, String(bad)).to.equal('INVALID_ARGUMENT');
      expect(r.message).to.match(/quota leases must be an integer/);
    }
    expect(h.fail({ type: 'QuotaSet', subject: 'alice', ...root } as Command).error).to.equal('INVALID_ARGUMENT');
    expect(h.fail({ type: 'QuotaSet', subject: 'alice', leases: 5, ...alice } as Command).error).to.equal('PERMISSION_DENIED');
    grant(h, alice);
    grant(h, alice);
    expect(grant(h, alice)).to.include({ ok: true }); // the default applies: no refused value (1.5 would floor to 1) took effect
  });

  it('a Grant over the leases quota is refused, naming the quota, its value and the principal, and changes nothing; bob is unaffected', () => {
    const h = setup();
    h.ok({ type: 'QuotaSet', subject: 'alice', leases: 2, ...root });
    grant(h, alice);
    grant(h, alice);
    const before = h.sm.snapshot();
    const r = h.fail({ type: 'Grant', ttlMs: 10_000, marginMs: 0, requestId: 'a3', ...alice });
    expect(r.error).to.equal('RESOURCE_EXHAUSTED');
    expect(r.message).to.contain('quota leases=2').and.contain('alice');
    // Nothing changed but the applied index: not even the request id is remembered (a retry tries again).
    const after = LockStateMachine.fromSnapshot(h.sm.snapshot());
    expect(after.requestKind('a3')).to.equal(undefined);
    const was = LockStateMachine.fromSnapshot(before);
    expect(after.listLeases()).to.deep.equal(was.listLeases());
    expect(h.sm.quotaUsage('alice').leases).to.equal(2);
    expect(grant(h, bob).ok).to.equal(true);
    // Revoking one makes room again.
    h.ok({ type: 'Revoke', leaseId: h.sm.listLeases().find((l) => l.owner === 'alice')!.leaseId, ...alice });
    expect(grant(h, alice).ok).to.equal(true);
  });

  it('locks held and waited for count against the lease owner’s quota, over all its leases', () => {
    const h = setup();
    h.ok({ type: 'QuotaSet', subject: 'alice', locks: 2, ...root });
    const a1 = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...alice }).leaseId;
    const a2 = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...alice }).leaseId;
    const b1 = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...bob }).leaseId;
    h.ok({ type: 'Acquire', name: 'x', leaseId: a1, wait: false, ...alice });
    h.ok({ type: 'Acquire', name: 'busy', leaseId: b1, wait: false, ...bob });
    expect(h.ok({ type: 'Acquire', name: 'busy', leaseId: a2, wait: true, ...alice }).status).to.equal('queued'); // a wait counts
    const r = h.fail({ type: 'Acquire', name: 'y', leaseId: a2, wait: false, ...alice });
    expect(r).to.include({ error: 'RESOURCE_EXHAUSTED' });
    expect(r.message).to.contain('quota locks=2 of alice');
    expect(h.sm.inspectLock('y').held).to.equal(false);
    // A try-lock that gets nothing takes no room and is answered as before.
    expect(h.ok({ type: 'Acquire', name: 'busy', leaseId: a1, wait: false, ...alice }).status).to.equal('held');
    // An admin acting on alice's lease is charged to alice, the lease's owner.
    expect(h.fail({ type: 'Acquire', name: 'z', leaseId: a1, wait: false, ...root }).message).to.contain('of alice');
    // Bob is not charged for alice's locks.
    expect(h.ok({ type: 'Acquire', name: 'b/1', leaseId: b1, wait: false, ...bob }).status).to.equal('acquired');
    // Alice's wait ends (bob releases busy: alice is granted it, still 2), then she releases x: room for one.
    const busy = h.sm.inspectLock('busy');
    h.ok({ type: 'Release', name: 'busy', token: busy.token, ...bob });
    expect(h.sm.inspectLock('busy').holderLeaseId).to.equal(a2);
    expect(h.sm.quotaUsage('alice').locks).to.equal(2);
    h.ok({ type: 'Release', name: 'x', token: h.sm.inspectLock('x').token, ...alice });
    expect(h.ok({ type: 'Acquire', name: 'y', leaseId: a2, wait: false, ...alice }).status).to.equal('acquired');
    // A lease's end gives its locks back.
    h.ok({ type: 'Revoke', leaseId: a2, ...alice });
    expect(h.sm.quotaUsage('alice')).to.deep.include({ leases: 1, locks: 0 });
  });

  it('election values count against election_bytes: a Campaign or a Proclaim over it is refused; the grant’s end gives them back', () => {
    const h = setup();
    h.ok({ type: 'QuotaSet', subject: 'alice', electionBytes: 10, ...root });
    const a = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...alice }).leaseId;
    const b = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...bob }).leaseId;
    const t = h.ok({ type: 'Acquire', name: 'e1', leaseId: a, wait: true, election: true, value: 'host:1', ...alice }).token;
    expect(h.sm.quotaUsage('alice').electionBytes).to.equal(6);
    const r = h.fail({ type: 'Acquire', name: 'e2', leaseId: a, wait: true, election: true, value: 'host:22', ...alice });
    expect(r.message).to.contain('quota election_bytes=10 of alice');
    expect(h.fail({ type: 'Proclaim', name: 'e1', token: t, value: 'a-longer-value', leaseId: a, ...alice }).message).to.contain('election_bytes=10');
    expect(h.sm.inspectLock('e1').holders[0].value).to.equal('host:1'); // unchanged
    h.ok({ type: 'Proclaim', name: 'e1', token: t, value: 'h:2', leaseId: a, ...alice }); // shrinking is always allowed
    expect(h.sm.quotaUsage('alice').electionBytes).to.equal(3);
    // Bob's waits carry his own bytes, and a hand-off moves them with the grant.
    h.ok({ type: 'Acquire', name: 'e1', leaseId: b, wait: true, election: true, value: 'bob-host', ...bob });
    expect(h.sm.quotaUsage('bob').electionBytes).to.equal(8);
    h.ok({ type: 'Release', name: 'e1', token: t, leaseId: a, ...alice });
    expect(h.sm.quotaUsage('alice').electionBytes).to.equal(0);
    expect(h.sm.quotaUsage('bob').electionBytes).to.equal(8);
    h.ok({ type: 'Revoke', leaseId: b, ...bob });
    expect(h.sm.quotaUsage('bob').electionBytes).to.equal(0);
  });

  it('fenced keys a principal creates count against fence_keys; overwriting costs nothing, a delete gives one back', () => {
    const h = setup();
    for (const subject of ['alice', 'bob']) h.ok({ type: 'AclGrant', subject, prefix: '', verb: 'fence', ...root });
    h.ok({ type: 'QuotaSet', subject: 'alice', fenceKeys: 2, ...root });
    const a = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...alice }).leaseId;
    const t = h.ok({ type: 'Acquire', name: 'x', leaseId: a, wait: false, ...alice }).token;
    const write = (key: string, who: object, token = t) => h.apply({ type: 'FenceWrite', key, value: new Uint8Array([7]), token, ...who } as Command).result!;
    expect(write('k1', alice).ok).to.equal(true);
    expect(write('k2', alice).ok).to.equal(true);
    expect(write('k1', alice).ok).to.equal(true); // an overwrite creates nothing
    const r = h.fail({ type: 'FenceWrite', key: 'k3', value: new Uint8Array([7]), token: t, ...alice });
    expect(r.message).to.contain('quota fence_keys=2 of alice');
    expect(h.sm.fenceRead('k3').found).to.equal(false);
    const b = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, ...bob }).leaseId;
    const tb = h.ok({ type: 'Acquire', name: 'y', leaseId: b, wait: false, ...bob }).token;
    expect(write('k3', bob, tb).ok).to.equal(true); // bob has his own
    h.ok({ type: 'FenceDelete', key: 'k2', token: t, ...alice });
    expect(h.sm.quotaUsage('alice').fenceKeys).to.equal(1);
    expect(write('k4', alice).ok).to.equal(true);
  });

  it('each principal has its own request-id window: 12,000 of bob’s Grants do not evict alice’s id', () => {
    const h = setup(false);
    const first = grant(h, alice, 'alice-1');
    expect(first.ok).to.equal(true);
    h.ok({ type: 'QuotaSet', subject: 'bob', leases: 20_000, ...root });
    for (let i = 0; i < 12_000; i++)
      h.sm.apply({ index: h.next, data: encodeCommand({ type: 'Grant', ttlMs: 10_000, marginMs: 0, requestId: `bob-${i}`, ...bob }) });
    // Alice's retry is answered with her first lease, not a new one.
    const retry = grant(h, alice, 'alice-1');
    expect(retry).to.deep.include({ ok: true, duplicate: true, leaseId: first.ok && first.type === 'Grant' ? first.leaseId : -1 });
    // Bob's own window (10,000 by default) dropped his oldest ids: an old retry is a new Grant.
    expect(h.sm.quotaUsage('bob').dedupIds).to.equal(10_000);
    expect(h.sm.requestKind('bob-0')).to.equal(undefined);
    expect(h.sm.requestKind('bob-11999')).to.equal('Grant');
    h.sm.checkInvariants();
  });

  it('before quotas (entries without the mark) the window is shared, as it always was', () => {
    const h = setup(false);
    h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, requestId: 'first', principal: 'alice' });
    for (let i = 0; i < DEDUP_CAPACITY; i++)
      h.sm.apply({ index: h.next, data: encodeCommand({ type: 'Grant', ttlMs: 10_000, marginMs: 0, requestId: `b${i}`, principal: 'bob' }) });
    expect(h.sm.requestKind('first')).to.equal(undefined);
    h.sm.checkInvariants();
    // And no per-principal quota applies to them: 0 leases for alice changes nothing unmarked.
    h.ok({ type: 'QuotaSet', subject: 'alice', leases: 0, principal: 'root', admin: true });
    expect(h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'alice' }).ok).to.equal(true);
    expect(h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'alice', acl: true, quota: true }).message).to.contain('quota leases=0 of alice');
  });

  it('without --acl every caller is the shared principal *, whose defaults are the cluster caps', () => {
    const h = new Harness();
    expect(h.sm.quotaOf(SHARED_PRINCIPAL).leases).to.equal(100_000);
    expect(h.sm.quotaOf('alice').leases).to.equal(DEFAULT_QUOTA_LEASES);
    h.ok({ type: 'QuotaSet', subject: SHARED_PRINCIPAL, leases: 1, principal: 'root', admin: true });
    expect(grant(h, open).ok).to.equal(true);
    const r = h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'dave', quota: true });
    expect(r.message).to.contain('quota leases=1 of the shared principal *');
  });

  it('QuotaSet: admins only; fields given replace, others kept; reset goes back to the defaults; a retry is answered once', () => {
    const h = setup();
    expect(h.fail({ type: 'QuotaSet', subject: 'alice', leases: 5, ...alice })).to.include({ error: 'PERMISSION_DENIED' });
    expect(h.ok({ type: 'QuotaSet', subject: 'alice', leases: 5, requestId: 'q1', ...root }).quotas).to.deep.equal({
      leases: 5,
      locks: 10_000,
      dedupIds: 10_000,
      electionBytes: 1_048_576,
      fenceKeys: 256,
    });
    expect(h.ok({ type: 'QuotaSet', subject: 'alice', locks: 7, ...root }).quotas).to.deep.equal({
      leases: 5,
      locks: 7,
      dedupIds: 10_000,
      electionBytes: 1_048_576,
      fenceKeys: 256,
    });
    // A late duplicate of q1 does not undo a later change: it answers what is in force.
    h.ok({ type: 'QuotaSet', subject: 'alice', leases: 9, ...root });
    expect(h.ok({ type: 'QuotaSet', subject: 'alice', leases: 5, requestId: 'q1', ...root }).quotas.leases).to.equal(9);
    expect(h.fail({ type: 'QuotaSet', subject: 'alice', leases: 6, requestId: 'q1', ...root })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.sm.quotaOverrides()).to.deep.equal([['alice', { leases: 9, locks: 7 }]]);
    expect(h.ok({ type: 'QuotaSet', subject: 'alice', reset: true, ...root }).quotas).to.deep.equal({
      leases: 10_000,
      locks: 10_000,
      dedupIds: 10_000,
      electionBytes: 1_048_576,
      fenceKeys: 256,
    });
    expect(h.sm.quotaOverrides()).to.deep.equal([]);
    expect(h.fail({ type: 'QuotaSet', subject: 'alice', ...root })).to.include({ error: 'INVALID_ARGUMENT' });
    expect(h.fail({ type: 'QuotaSet', subject: 'alice', leases: -1, ...root }).message).to.contain('quota leases');
    // A lowered quota takes nothing away.
    grant(h, alice);
    grant(h, alice);
    h.ok({ type: 'QuotaSet', subject: 'alice', leases: 1, ...root });
    expect(h.sm.quotaUsage('alice').leases).to.equal(2);
    expect(h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, ...alice }).error).to.equal('RESOURCE_EXHAUSTED');
  });

  it('the command codec carries QuotaSet and the quota mark exactly', () => {
    const cmds: Command[] = [
      { type: 'QuotaSet', subject: 'alice', leases: 0, dedupIds: 3, requestId: 'r', principal: 'root', admin: true, acl: true, quota: true },
      { type: 'QuotaSet', subject: '*', reset: true, principal: 'root' },
      { type: 'Acquire', name: 'x', leaseId: 4, wait: true, election: true, principal: 'alice', quota: true },
      { type: 'CancelWait', name: 'x', leaseId: 4, abandonedAtIndex: 3, acquireRequestId: 'a', quota: true },
    ];
    for (const c of cmds) expect(decodeCommand(encodeCommand(c))).to.deep.equal(c);
  });

  it('quotas, usage and each id’s principal survive a snapshot (format 9); a state without them is still written as format 8', () => {
    const h = setup();
    expect(h.sm.snapshot()[0]).to.equal(SNAPSHOT_FORMAT_VERSION_BEFORE_QUOTAS); // rules, no quota yet
    h.ok({ type: 'QuotaSet', subject: 'alice', leases: 3, locks: 1, ...root });
    const a = h.ok({ type: 'Grant', ttlMs: 10_000, marginMs: 0, requestId: 'g1', ...alice }).leaseId;
    const t = h.ok({ type: 'Acquire', name: 'x', leaseId: a, wait: false, requestId: 'q1', ...alice }).token;
    h.ok({ type: 'AclGrant', subject: 'alice', prefix: 'k/', verb: 'fence', ...root });
    h.ok({ type: 'FenceWrite', key: 'k/1', value: new Uint8Array([1]), token: t, ...alice });
    grant(h, bob, 'g2');
    const bytes = h.sm.snapshot();
    expect(bytes[0]).to.equal(SNAPSHOT_FORMAT_VERSION);
    const copy = LockStateMachine.fromSnapshot(bytes, { checkEveryApply: true });
    expect(statesEqual(copy, h.sm)).to.equal(true);
    expect(copy.quotaOf('alice')).to.deep.equal({ leases: 3, locks: 1, dedupIds: 10_000, electionBytes: 1_048_576, fenceKeys: 256 });
    expect(copy.quotaUsage('alice')).to.deep.equal({ leases: 1, locks: 1, dedupIds: 2, electionBytes: 0, fenceKeys: 1 });
    expect(copy.quotaUsage('bob')).to.deep.equal({ leases: 1, locks: 0, dedupIds: 1, electionBytes: 0, fenceKeys: 0 });
    // The copy goes on deciding as the original does.
    const next = new Harness(copy);
    expect(next.fail({ type: 'Acquire', name: 'y', leaseId: a, wait: false, ...alice }).message).to.contain('quota locks=1 of alice');
    next.ok({ type: 'FenceDelete', key: 'k/1', token: t, ...alice });
    expect(copy.quotaUsage('alice').fenceKeys).to.equal(0);
    // Back to no overrides and ids of marked entries: still format 9 (the ids are charged to principals now).
    h.ok({ type: 'QuotaSet', subject: 'alice', reset: true, ...root });
    expect(h.sm.snapshot()[0]).to.equal(SNAPSHOT_FORMAT_VERSION);
  });
});
