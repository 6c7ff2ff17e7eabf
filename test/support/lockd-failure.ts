// The client error a call that must fail ended with; any other error (or success) fails the test.
import { LockdError } from '../../src/client/index.js';

export async function failure(p: Promise<unknown>): Promise<LockdError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LockdError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}
