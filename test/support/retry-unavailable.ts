// A raw gRPC call retried as the real client (src/client/router.ts) retries it: UNAVAILABLE (no
// leader, a leader that stepped down, an outcome unknown) is sent again — with the SAME request, so
// the same request id — after a short backoff, until the call's own deadline; any other status is
// the answer. For tests that use raw stubs for convenience, not to check what the wire says during
// a leader change (those keep one attempt).
import * as grpc from '@grpc/grpc-js';

const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 400;

/**
 * Run `attempt` (each call gets the absolute deadline, Date.now() based, grpc's own clock) until it
 * answers something other than UNAVAILABLE or `deadline` passes; then the last UNAVAILABLE is
 * thrown, its details saying how many attempts were made.
 */
export async function retryUnavailable<T>(deadline: number, attempt: (deadline: number) => Promise<T>): Promise<T> {
  let backoff = FIRST_BACKOFF_MS;
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt(deadline);
    } catch (e) {
      const err = e as grpc.ServiceError;
      if (err.code !== grpc.status.UNAVAILABLE) throw err;
      if (Date.now() + backoff >= deadline) {
        const note = ` (after ${attempts} attempts, retried on UNAVAILABLE until the call's deadline)`;
        err.details += note;
        err.message += note;
        throw err;
      }
      await new Promise((r) => setTimeout(r, backoff));
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
  }
}
