// The API's access checks (the rules: security/access-control.ts). A refusal is PERMISSION_DENIED
// naming the verb and the name; it is checked before a write is proposed (a caller without rights
// costs no log entry) and, for writes, again at apply from the command's authority.
import * as grpc from '@grpc/grpc-js';
import type { AccessControl } from '../security/access-control.js';
import type { AclVerb } from '../state-machine/index.js';
import { ApiError } from './api-error.js';

export function denied(message: string): ApiError {
  return new ApiError(grpc.status.PERMISSION_DENIED, message);
}

/** Throws PERMISSION_DENIED unless `principal` holds one of `anyOf` on `name`. */
export function requireOn(access: AccessControl, principal: string, anyOf: readonly AclVerb[], name: string, what: string): void {
  const why = access.denial(principal, anyOf, name, what);
  if (why) throw denied(why);
}

/** Throws PERMISSION_DENIED unless `principal` owns the lease (owner undefined: no such lease, let the operation say so) or is an admin. */
export function requireOwner(access: AccessControl, principal: string, leaseId: number, owner: string | undefined, what: string): void {
  if (owner === undefined || owner === principal || access.isAdmin(principal)) return;
  throw denied(`${principal} may not ${what} lease ${leaseId}: it was granted by another principal`);
}
