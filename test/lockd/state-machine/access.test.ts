// Principals, lease ownership and access rules in the state machine: decided at apply
// from the command's authority and the replicated rules, so every replica agrees.
import { expect } from 'chai';
import { LockStateMachine, decodeCommand, encodeCommand, type Command } from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

const alice = { principal: 'alice', acl: true } as const;
const bob = { principal: 'bob', acl: true } as const;
const root = { principal: 'root', admin: true, acl: true } as const;

function withRules(h: Harness, rules: [string, string, 'lock' | 'fence' | 'read' | 'admin'][]): void {
  for (const [subject, prefix, verb] of rules) h.ok({ type: 'AclGrant', subject, prefix, verb, ...root });
}

describe('state machine: principals, lease ownership and access rules', () => {
  it('longest prefix wins, and no matching rule means no access', () => {
    const h = new Harness();
    withRules(h, [
      ['alice', '', 'lock'],
      ['alice', 'secret/', 'read'],
      ['alice', 'secret/open/', 'lock'],
    ]);
    const sm = h.sm;
    expect(sm.aclAllows('alice', 'public/x', ['lock'])).to.equal(true);
    expect(sm.aclAllows('alice', 'secret/x', ['lock'])).to.equal(false); // "secret/" is longer than "" and grants read only
    expect(sm.aclAllows('alice', 'secret/x', ['read'])).to.equal(true);
    expect(sm.aclAllows('alice', 'secret/open/x', ['lock'])).to.equal(true);
    expect(sm.aclAllows('alice', 'secret/open/x', ['read'])).to.equal(false); // the longest prefix grants lock only
    expect(sm.aclAllows('carol', 'public/x', ['lock', 'read', 'fence'])).to.equal(false);
    withRules(h, [['carol', '', 'admin']]);
    expect(sm.aclAllows('carol', 'secret/x', ['fence'])).to.equal(true);
  });

  it('with rules enforced, alice with lock on alice/ acquires alice/x and is denied bob/x; an unknown principal cannot even grant', () => {
    const h = new Harness();
    withRules(h, [['alice', 'alice/', 'lock']]);
    const lease = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, ...alice }).leaseId;
    expect(h.sm.timeToLive(lease)?.owner).to.equal('alice');
    expect(h.ok({ type: 'Acquire', name: 'alice/x', leaseId: lease, wait: false, ...alice }).status).to.equal('acquired');
    const denied = h.fail({ type: 'Acquire', name: 'bob/x', leaseId: lease, wait: false, ...alice });
    expect(denied).to.include({ error: 'PERMISSION_DENIED' });
    expect(denied.message).to.contain('alice may not acquire "bob/x"').and.contain('`lock`');
    expect(h.sm.inspectLock('bob/x').held).to.equal(false);
    expect(h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'mallory', acl: true })).to.include({ error: 'PERMISSION_DENIED' });
    expect(h.fail({ type: 'FenceWrite', key: 'alice/k', value: new Uint8Array([1]), token: 2, ...alice }).message).to.contain('`fence`');
  });

  it("a lease is its granter's: another principal cannot revoke it, acquire or cancel waits with it, release its lock or write with its token — even with the right ids", () => {
    const h = new Harness();
    withRules(h, [
      ['alice', '', 'lock'],
      ['alice', '', 'fence'],
      ['bob', '', 'lock'],
      ['bob', '', 'fence'],
    ]);
    const bobLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...bob }).leaseId;
    const aliceLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...alice }).leaseId;
    const token = h.ok({ type: 'Acquire', name: 'm', leaseId: bobLease, wait: false, ...bob }).token;
    h.ok({ type: 'Acquire', name: 'n', leaseId: aliceLease, wait: false, ...alice });
    h.ok({ type: 'Acquire', name: 'n', leaseId: bobLease, wait: true, ...bob }); // bob waits for n
    const before = h.sm.snapshot();
    const attempts: Command[] = [
      { type: 'Revoke', leaseId: bobLease, ...alice },
      { type: 'Acquire', name: 'q', leaseId: bobLease, wait: false, ...alice },
      { type: 'Release', name: 'm', token, ...alice },
      { type: 'CancelWait', name: 'n', leaseId: bobLease, ...alice },
      { type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token, ...alice },
      { type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token, lock: 'm', ...alice },
      { type: 'FenceDelete', key: 'k', token, ...alice },
    ];
    for (const cmd of attempts) {
      const f = h.fail(cmd);
      expect(f.error, cmd.type).to.equal('PERMISSION_DENIED');
      expect(f.message).to.contain('another principal');
    }
    // Nothing changed but the applied index.
    const after = LockStateMachine.fromSnapshot(h.sm.snapshot());
    const was = LockStateMachine.fromSnapshot(before);
    expect(after.listLeases()).to.deep.equal(was.listLeases());
    expect(after.inspectLock('m')).to.deep.equal(was.inspectLock('m'));
    expect(after.fenceRead('k').found).to.equal(false);
    // The owner may, and so may an admin (rules or --admin): it revokes bob's lease.
    expect(h.ok({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token, ...bob }).highestToken).to.equal(token);
    expect(h.ok({ type: 'Revoke', leaseId: bobLease, ...root }).releasedLocks).to.deep.equal(['m']);
  });

  it('a stale release by another principal is just stale (it reveals nothing and changes nothing)', () => {
    const h = new Harness();
    const lease = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'bob' }).leaseId;
    const token = h.ok({ type: 'Acquire', name: 'm', leaseId: lease, wait: false, principal: 'bob' }).token;
    expect(h.ok({ type: 'Release', name: 'm', token: token - 1, principal: 'alice' }).released).to.equal(false);
    expect(h.sm.inspectLock('m').token).to.equal(token);
  });

  it('without client certificates everybody is anonymous: ownership holds trivially, and rules are not enforced', () => {
    const h = new Harness();
    const lease = h.grant();
    expect(h.sm.timeToLive(lease)?.owner).to.equal('anonymous');
    const token = h.acquire('x', lease).token;
    expect(h.ok({ type: 'Release', name: 'x', token }).released).to.equal(true);
    h.ok({ type: 'Revoke', leaseId: lease });
    // An anonymous command encodes as it did before principals existed.
    expect(encodeCommand({ type: 'Revoke', leaseId: 3, principal: 'anonymous', admin: false, acl: false })).to.deep.equal(
      encodeCommand({ type: 'Revoke', leaseId: 3 }),
    );
  });

  it('only an admin changes rules, rules are deduplicated by request id, and admin rules are cluster-wide', () => {
    const h = new Harness();
    expect(h.fail({ type: 'AclGrant', subject: 'alice', prefix: '', verb: 'admin', principal: 'alice' }).error).to.equal('PERMISSION_DENIED');
    expect(h.fail({ type: 'AclGrant', subject: 'alice', prefix: 'a/', verb: 'admin', ...root }).message).to.contain('cluster-wide');
    expect(h.ok({ type: 'AclGrant', subject: 'alice', prefix: 'a/', verb: 'lock', requestId: 'r1', ...root }).created).to.equal(true);
    expect(h.ok({ type: 'AclRevoke', subject: 'alice', prefix: 'a/', verb: 'lock', requestId: 'r2', ...root }).removed).to.equal(true);
    // A late copy of the grant (same request id) answers its first outcome and does not bring the rule back.
    expect(h.ok({ type: 'AclGrant', subject: 'alice', prefix: 'a/', verb: 'lock', requestId: 'r1', ...root }).created).to.equal(true);
    expect(h.sm.aclRules()).to.deep.equal([]);
    // An admin by rule may change rules without the --admin flag.
    h.ok({ type: 'AclGrant', subject: 'carol', prefix: '', verb: 'admin', ...root });
    expect(h.ok({ type: 'AclGrant', subject: 'dave', prefix: 'd/', verb: 'read', principal: 'carol' }).created).to.equal(true);
    expect(h.sm.aclRules().map((r) => r.principal)).to.deep.equal(['carol', 'dave']);
  });

  it('a retried Grant under another principal is not answered with the first principal’s lease', () => {
    const h = new Harness();
    const lease = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: 'g', principal: 'alice' }).leaseId;
    expect(h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: 'g', principal: 'alice' })).to.include({ leaseId: lease, duplicate: true });
    expect(h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: 'g', principal: 'bob' }).message).to.contain('already used');
  });

  it('authority fields round-trip through the codec and are validated', () => {
    const cmd: Command = { type: 'Acquire', name: 'x', leaseId: 2, wait: true, principal: 'alice', admin: true, acl: true };
    expect(decodeCommand(encodeCommand(cmd))).to.deep.equal(cmd);
    const h = new Harness();
    expect(h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'a\u0000b' }).error).to.equal('INVALID_ARGUMENT');
    expect(h.fail({ type: 'Grant', ttlMs: 1000, marginMs: 0, principal: 'x'.repeat(257) }).error).to.equal('INVALID_ARGUMENT');
  });

  it('a rule change that takes `lock` away (a revoke, or a grant on a longer prefix) takes the principal out of the queues it may no longer wait in: its queued Acquire is not granted after it', () => {
    const h = new Harness();
    withRules(h, [
      ['alice', 'shared/', 'lock'],
      ['alice', 'shared/open/', 'lock'],
      ['bob', 'shared/', 'lock'],
    ]);
    const bobLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...bob }).leaseId;
    const aliceLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...alice }).leaseId;
    const token = h.ok({ type: 'Acquire', name: 'shared/x', leaseId: bobLease, wait: false, ...bob }).token;
    h.ok({ type: 'Acquire', name: 'shared/open/y', leaseId: bobLease, wait: false, ...bob });
    // alice waits for both while she may.
    expect(h.ok({ type: 'Acquire', name: 'shared/x', leaseId: aliceLease, wait: true, requestId: 'w1', ...alice }).status).to.equal('queued');
    expect(h.ok({ type: 'Acquire', name: 'shared/open/y', leaseId: aliceLease, wait: true, ...alice }).status).to.equal('queued');
    const revoke = h.apply({ type: 'AclRevoke', subject: 'alice', prefix: 'shared/', verb: 'lock', ...root });
    expect(revoke.result).to.include({ ok: true, removed: true });
    // Her wait on shared/x ends (as a cancelled wait: her call re-queues and is refused); shared/open/ is still hers.
    expect(revoke.events.map((e) => [e.type, e.name, e.leaseId])).to.deep.equal([['WAIT_CANCELLED', 'shared/x', aliceLease]]);
    expect(h.sm.inspectLock('shared/x').waitingLeaseIds).to.deep.equal([]);
    expect(h.sm.inspectLock('shared/open/y').waitingLeaseIds).to.deep.equal([aliceLease]);
    expect(h.fail({ type: 'Acquire', name: 'shared/x', leaseId: aliceLease, wait: true, requestId: 'w1', ...alice }).error).to.equal('PERMISSION_DENIED');
    // bob's release hands shared/x to nobody.
    h.ok({ type: 'Release', name: 'shared/x', token, ...bob });
    expect(h.sm.inspectLock('shared/x').held).to.equal(false);
    expect(h.sm.timeToLive(aliceLease)?.locks).to.deep.equal([]);
    // A grant can take a verb away too (a longer prefix wins): `read` on shared/open/ ends her other wait.
    const narrowing = h.apply({ type: 'AclGrant', subject: 'alice', prefix: 'shared/open/', verb: 'read', ...root });
    expect(narrowing.events.map((e) => [e.type, e.name, e.leaseId])).to.deep.equal([]); // shared/open/ still grants lock as well
    h.ok({ type: 'AclRevoke', subject: 'alice', prefix: 'shared/open/', verb: 'lock', ...root });
    expect(h.sm.inspectLock('shared/open/y').waitingLeaseIds).to.deep.equal([]);
    h.ok({ type: 'AclGrant', subject: 'alice', prefix: 'shared/open/', verb: 'lock', ...root });
    expect(h.ok({ type: 'Acquire', name: 'shared/open/y', leaseId: aliceLease, wait: true, ...alice }).status).to.equal('queued');
    const narrower = h.apply({ type: 'AclGrant', subject: 'alice', prefix: 'shared/open/y', verb: 'read', ...root });
    expect(narrower.events.map((e) => [e.type, e.name, e.leaseId])).to.deep.equal([['WAIT_CANCELLED', 'shared/open/y', aliceLease]]);
    // Without enforcement (the leader has no --acl) a revoke only edits the rules.
    const h2 = new Harness();
    withRules(h2, [['alice', 'a/', 'lock']]);
    const l2 = h2.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, principal: 'bob' }).leaseId;
    const l3 = h2.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, principal: 'alice' }).leaseId;
    h2.ok({ type: 'Acquire', name: 'a/x', leaseId: l2, wait: false, principal: 'bob' });
    h2.ok({ type: 'Acquire', name: 'a/x', leaseId: l3, wait: true, principal: 'alice' });
    expect(h2.apply({ type: 'AclRevoke', subject: 'alice', prefix: 'a/', verb: 'lock', principal: 'root', admin: true }).events).to.deep.equal([]);
    expect(h2.sm.inspectLock('a/x').waitingLeaseIds).to.deep.equal([l3]);
  });

  it('a fenced write naming a lock needs `lock` or `read` on that lock: its refusal would otherwise tell whether and under which token a lock alice may not inspect is held', () => {
    const h = new Harness();
    withRules(h, [
      ['alice', 'shared/', 'fence'],
      ['alice', 'alice/', 'lock'],
      ['bob', 'bob/', 'lock'],
    ]);
    const bobLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...bob }).leaseId;
    const bobToken = h.ok({ type: 'Acquire', name: 'bob/secret', leaseId: bobLease, wait: false, ...bob }).token;
    const aliceLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...alice }).leaseId;
    const aliceToken = h.ok({ type: 'Acquire', name: 'alice/x', leaseId: aliceLease, wait: false, ...alice }).token;
    for (const token of [aliceToken, bobToken]) {
      for (const cmd of [
        { type: 'FenceWrite', key: 'shared/k', value: new Uint8Array([1]), token, lock: 'bob/secret', ...alice },
        { type: 'FenceDelete', key: 'shared/k', token, lock: 'bob/secret', ...alice },
      ] as const) {
        const f = h.fail(cmd);
        expect(f.error, `${cmd.type} ${token}`).to.equal('PERMISSION_DENIED');
        expect(f.message).to.contain('"bob/secret"').and.not.contain(String(bobToken));
      }
    }
    // Her own lock, she may name.
    expect(h.ok({ type: 'FenceWrite', key: 'shared/k', value: new Uint8Array([1]), token: aliceToken, lock: 'alice/x', ...alice }).highestToken).to.equal(
      aliceToken,
    );
  });

  it("replaying bob's request id gets alice nothing of bob's while his lease lives: ownership is decided before the dedup record answers", () => {
    const h = new Harness();
    withRules(h, [
      ['alice', '', 'lock'],
      ['alice', '', 'fence'],
      ['bob', '', 'lock'],
      ['bob', '', 'fence'],
    ]);
    const bobLease = h.ok({ type: 'Grant', ttlMs: 5000, marginMs: 0, ...bob }).leaseId;
    const token = h.ok({ type: 'Acquire', name: 'm', leaseId: bobLease, wait: true, requestId: 'a1', ...bob }).token;
    h.ok({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token, requestId: 'f1', ...bob });
    for (const cmd of [
      { type: 'Acquire', name: 'm', leaseId: bobLease, wait: true, requestId: 'a1', ...alice },
      { type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token, requestId: 'f1', ...alice },
      { type: 'Revoke', leaseId: bobLease, requestId: 'a1', ...alice },
    ] as const)
      expect(h.fail(cmd).error, cmd.type).to.equal('PERMISSION_DENIED');
  });

  it('rules and lease owners survive a snapshot', () => {
    const h = new Harness();
    withRules(h, [
      ['alice', 'alice/', 'lock'],
      ['alice', '', 'read'],
    ]);
    const lease = h.ok({ type: 'Grant', ttlMs: 1000, marginMs: 0, ...alice }).leaseId;
    const copy = LockStateMachine.fromSnapshot(h.sm.snapshot());
    expect(copy.aclRules()).to.deep.equal(h.sm.aclRules());
    expect(copy.leaseOwner(lease)).to.equal('alice');
    expect(copy.snapshot()).to.deep.equal(h.sm.snapshot());
  });
});
