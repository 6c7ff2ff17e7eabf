// Who a caller is allowed to be and do, for the node's services. Principals: the
// verified client certificate's subject CN with --client-cert-auth, else 'anonymous' (principal.ts).
// Rules live in the replicated state (state-machine/acl-table.ts); this reads them on this node and
// adds the node's own --acl switch and --admin list. Writes are decided again at apply from the
// authority() the leader puts in each command, so a rule change and a write are ordered by the log.
//
// Verbs by operation (admin: everything, including others' leases and the rules themselves):
//   Lease.Grant                          `lock` on some prefix (a lease has no name)
//   Lease.KeepAlive                      the lease's owner, with `lock` on some prefix
//   Lease.Revoke / TimeToLive            the lease's owner (List: one's own leases)
//   Lock.Acquire / Release / CancelWait  `lock` on the name (+ the lease's owner)
//   Lock.Inspect / Observe               `lock` or `read` on the name
//   Fence.Write / Delete                 `fence` on the key (+ the token's owner; naming a lock: `lock` or `read` on it)
//   Fence.Read                           `fence` or `read` on the key
//   Auth.*                               admin
//   Membership.*, Cluster.TransferLeader, Maintenance.Snapshot (a backup) admin whenever client certificates are verified (--acl or not)
//   Cluster.Status, health               any authenticated caller (clients need it to find the leader)
// Without --acl only ownership and the admin rules above apply. With client certificates verified
// and no admin named (no --admin, no admin rule), nobody is admin: the admin-only RPCs are refused.
import type { SecuritySettings } from './settings.js';
import type { AclVerb, Authority, LockStateMachine, ViewFilter } from '../state-machine/index.js';

export class AccessControl {
  private readonly admins: ReadonlySet<string>;
  /** --acl: the rules are enforced (else only ownership and the admin-only services' rule apply). */
  readonly enforced: boolean;
  /**
   * --client-cert-auth: principals are proven, so the cluster's own controls (Membership,
   * TransferLeader) are admin-only, with or without --acl. Without it every caller is 'anonymous'
   * and they stay open (bind the client port privately).
   */
  readonly principalsProven: boolean;

  constructor(
    config: Pick<SecuritySettings, 'acl' | 'admins' | 'clientCertAuth'>,
    private readonly sm: Pick<LockStateMachine, 'aclIsAdmin' | 'aclAllows' | 'aclHoldsAnywhere'>,
    /**
     * Whether quotas apply: every member runs a build with them (the node asks its cluster version,
     * node/cluster-version.ts FEATURES.quotas). Read at each command: the leader marks it `quota`.
     */
    readonly quotasOn: () => boolean = () => false,
  ) {
    this.admins = new Set(config.admins);
    this.enforced = config.acl;
    this.principalsProven = config.clientCertAuth;
  }

  /** Why `principal` may not `what`, an admin's task (undefined: it may); the message says how to get an admin when there is none. */
  adminDenial(principal: string, what: string): string | undefined {
    if (this.isAdmin(principal)) return undefined;
    const none =
      this.admins.size === 0 ? ` (this node names no admin: start the nodes with --admin PRINCIPAL, then grant others \`admin\` with Auth.Grant)` : '';
    return `${principal} may not ${what}: that needs \`admin\`${none}`;
  }

  /** An admin: named by --admin on this node, or by an admin rule. For other services' admin checks (membership, ...). */
  isAdmin(principal: string): boolean {
    return this.admins.has(principal) || this.sm.aclIsAdmin(principal);
  }

  /**
   * Whether `principal` may read the whole cluster's state (the HTTP dashboard, /events): ACLs off,
   * an admin, or `read` on the empty prefix.
   */
  mayRead(principal: string): boolean {
    return !this.enforced || this.isAdmin(principal) || this.sm.aclAllows(principal, '', ['read']);
  }

  /**
   * What `principal` may see of the state on the HTTP endpoint, name by name, decided as the gRPC
   * reads decide (Lock.Inspect: `lock` or `read` on the name; Fence.Read: `fence` or `read` on the
   * key), so the longest-prefix rule holds there too. undefined: everything (ACLs off, or an admin).
   * Read at each use: a rule changed later applies to what is shown from then on.
   */
  viewFilter(principal: string): ViewFilter | undefined {
    if (!this.enforced || this.isAdmin(principal)) return undefined;
    return {
      lock: (name) => this.sm.aclAllows(principal, name, ['lock', 'read']),
      fence: (key) => this.sm.aclAllows(principal, key, ['fence', 'read']),
    };
  }

  /** Why `principal` may not `what` `name` with one of `anyOf` (undefined: it may). The message names what is missing. */
  denial(principal: string, anyOf: readonly AclVerb[], name: string, what: string): string | undefined {
    if (!this.enforced || this.isAdmin(principal) || this.sm.aclAllows(principal, name, anyOf)) return undefined;
    return `${principal} may not ${what} ${JSON.stringify(name)}: it needs ${anyOf.map((v) => `\`${v}\``).join(' or ')} on a prefix of that name, and the rules of its longest matching prefix grant no such verb`;
  }

  /**
   * Why `principal` may not grant leases, or keep its own alive (`what`; undefined: it may). Both need
   * `lock` on some prefix (a lease has no name): a principal whose last rule is revoked can no longer
   * keep its leases, and their locks, alive for ever.
   */
  leaseDenial(principal: string, what: 'grant leases' | 'keep leases alive'): string | undefined {
    if (!this.enforced || this.isAdmin(principal) || this.sm.aclHoldsAnywhere(principal, 'lock')) return undefined;
    return `${principal} may not ${what}: it has \`lock\` on no prefix`;
  }

  /** What the leader writes into a command for `principal` (state-machine/authorize.ts decides with it at apply). */
  authority(principal: string): Authority {
    return {
      principal,
      ...(this.admins.has(principal) ? { admin: true } : {}),
      ...(this.enforced ? { acl: true } : {}),
      ...(this.quotasOn() ? { quota: true } : {}),
    };
  }
}
