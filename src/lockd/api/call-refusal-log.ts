// Client calls refused for who asked or what they asked (PERMISSION_DENIED, RESOURCE_EXHAUSTED,
// UNAUTHENTICATED, INVALID_ARGUMENT) reach the log through the node's limiter
// (observe/log-limiter.ts): the first of each (code, method) in an interval with its details, the
// rest as one count. The caller gets its status either way; this is the operator's view of it.
import * as grpc from '@grpc/grpc-js';
import type { LimitedLevel, RefusalLog } from '../observe/log-limiter.js';
import type { ApiError } from './api-error.js';

const LOGGED: ReadonlyMap<grpc.status, LimitedLevel> = new Map([
  [grpc.status.PERMISSION_DENIED, 'info'],
  [grpc.status.UNAUTHENTICATED, 'info'],
  [grpc.status.RESOURCE_EXHAUSTED, 'info'],
  [grpc.status.INVALID_ARGUMENT, 'debug'],
]);

/** Note `err` if it is a refusal of the caller's request; `method` is the RPC (or session operation) name, from a fixed set. */
export function noteRefusal(log: RefusalLog | undefined, method: string, principal: string, err: ApiError): void {
  const level = LOGGED.get(err.code);
  if (!log || !level) return;
  const code = grpc.status[err.code];
  log.note(
    `${code} refusals of ${method}`,
    level,
    { event: 'call refused', method, code, principal: principal.slice(0, 128) },
    `${method} by ${principal.slice(0, 128)} refused (${code}): ${err.message.slice(0, 300)}`,
  );
}
