// A request's failure as the gRPC status the caller sees (API.md "Status codes").
import * as grpc from '@grpc/grpc-js';
import type { ErrorKind, Failure, Problem } from '../state-machine/index.js';

/** Trailer carrying the leader's address (host:port) with UNAVAILABLE, when it is known. */
export const LEADER_TRAILER = 'lockd-leader';
/** Trailer carrying the highest accepted token with a stale Fence.Write (FAILED_PRECONDITION). */
export const HIGHEST_TOKEN_TRAILER = 'lockd-highest-token';

export class ApiError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
    readonly trailers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The shape grpc-js sends as a call's status (callback(err) / stream.emit('error', err)). */
  toStatus(): Partial<grpc.StatusObject> & { code: grpc.status; details: string } {
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(this.trailers)) metadata.set(k, v);
    return { code: this.code, details: this.message, metadata };
  }
}

const CODE: Record<ErrorKind, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
};

/** A validate* helper's verdict, or a command the state machine refused. */
export function fromProblem(p: Problem | Failure): ApiError {
  const trailers: Record<string, string> = {};
  if ('highestToken' in p && p.highestToken !== undefined) trailers[HIGHEST_TOKEN_TRAILER] = String(p.highestToken);
  return new ApiError(CODE[p.error], p.message, trailers);
}

/** UNAVAILABLE, naming the leader (id and address) in the message and the lockd-leader trailer when known. */
export function unavailable(reason: string, leader?: { id: string; address: string }): ApiError {
  if (!leader?.address) return new ApiError(grpc.status.UNAVAILABLE, `${reason}; retry shortly`);
  return new ApiError(grpc.status.UNAVAILABLE, `${reason}; the leader is ${leader.id} at ${leader.address}`, { [LEADER_TRAILER]: leader.address });
}

/** Anything thrown inside a handler, as an ApiError (unexpected errors become INTERNAL). */
export function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  return new ApiError(grpc.status.INTERNAL, `internal error: ${(e as Error)?.message ?? String(e)}`);
}
