// lockd.v1.Auth: the access rules (state-machine/acl-table.ts) as log entries. Admins only (checked
// here before proposing, and at apply from the command's authority); Grant and Revoke go to the
// leader like every write, List is a linearizable read there.
import { lockdProto } from '../../proto/lockd-package.js';
import type { AuthHandlers } from '../../proto/gen/lockd/v1/Auth.js';
import type { AclRule__Output } from '../../proto/gen/lockd/v1/AclRule.js';
import type { AuthGrantRequest__Output } from '../../proto/gen/lockd/v1/AuthGrantRequest.js';
import type { AuthGrantResponse } from '../../proto/gen/lockd/v1/AuthGrantResponse.js';
import type { AuthRevokeRequest__Output } from '../../proto/gen/lockd/v1/AuthRevokeRequest.js';
import type { AuthRevokeResponse } from '../../proto/gen/lockd/v1/AuthRevokeResponse.js';
import type { AuthListRequest__Output } from '../../proto/gen/lockd/v1/AuthListRequest.js';
import type { AuthListResponse } from '../../proto/gen/lockd/v1/AuthListResponse.js';
import type { NodeContext } from '../node/node-context.js';
import { validateAclRule, validatePrincipal, validateRequestId, type AclVerb, type Problem } from '../state-machine/index.js';
import { denied } from './access.js';
import type { Proposer } from './proposer.js';
import { unary, type UnaryDeps, type UnarySpec } from './unary.js';
import { quotaOps } from './quota-service.js';

const AUTH = lockdProto.lockd.v1.Auth.service;

const ruleProblem = (rule: AclRule__Output | null): Problem | undefined =>
  rule ? validateAclRule(rule.principal, rule.prefix, rule.verb) : { error: 'INVALID_ARGUMENT', message: 'rule is required' };

export function authHandlers(ctx: NodeContext, deps: UnaryDeps, proposer: Proposer): AuthHandlers {
  const access = ctx.access;
  const requireAdmin = (principal: string, what: string) => {
    const why = access.adminDenial(principal, what);
    if (why) throw denied(why);
  };
  const change = (type: 'AclGrant' | 'AclRevoke', principal: string, req: AuthGrantRequest__Output | AuthRevokeRequest__Output, deadline: number) => {
    const rule = req.rule!;
    requireAdmin(principal, 'change access rules');
    const cmd = {
      type,
      subject: rule.principal,
      prefix: rule.prefix,
      verb: rule.verb as AclVerb,
      requestId: req.requestId || undefined,
      ...access.authority(principal),
    } as const;
    return proposer.write(cmd, deadline).then((r) => {
      ctx.logger.info(
        { event: 'access rule', change: type, rule: { principal: rule.principal, prefix: rule.prefix, verb: rule.verb }, by: principal },
        `${principal}: ${type} ${rule.verb} on ${JSON.stringify(rule.prefix)} for ${rule.principal}`,
      );
      return r;
    });
  };
  const Grant: UnarySpec<AuthGrantRequest__Output, AuthGrantResponse> = {
    method: AUTH.Grant,
    validate: (req) => ruleProblem(req.rule) ?? validateRequestId(req.requestId),
    onLeader: async (req, caller, deadline) => {
      const r = await change('AclGrant', caller.principal, req, deadline);
      return { created: r.type === 'AclGrant' && r.created };
    },
  };
  const Revoke: UnarySpec<AuthRevokeRequest__Output, AuthRevokeResponse> = {
    method: AUTH.Revoke,
    validate: (req) => ruleProblem(req.rule) ?? validateRequestId(req.requestId),
    onLeader: async (req, caller, deadline) => {
      const r = await change('AclRevoke', caller.principal, req, deadline);
      return { removed: r.type === 'AclRevoke' && r.removed };
    },
  };
  const List: UnarySpec<AuthListRequest__Output, AuthListResponse> = {
    method: AUTH.List,
    validate: (req) => (req.principal === '' ? undefined : validatePrincipal(req.principal)),
    onLeader: async (req, caller, deadline) => {
      requireAdmin(caller.principal, 'list access rules');
      const rules = await proposer.read(deadline, () => ctx.stateMachine.aclRules(req.principal || undefined));
      return { rules: rules.map((r) => ({ principal: r.principal, prefix: r.prefix, verb: r.verb })) };
    },
  };
  const quotas = quotaOps(ctx, proposer);
  return {
    Grant: unary(deps, Grant),
    Revoke: unary(deps, Revoke),
    List: unary(deps, List),
    SetQuota: unary(deps, quotas.SetQuota),
    GetQuota: unary(deps, quotas.GetQuota),
  };
}
