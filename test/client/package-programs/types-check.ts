// Compiled (tsc --noEmit, NodeNext) in the scratch project against the installed package: its
// `exports` must lead TypeScript to the declarations, and they must carry the client's types.
import { LockClient, LockdError, type Lock, type LockInfo } from 'lockd-client';

const client: LockClient = new LockClient({ endpoints: ['127.0.0.1:1'] });
const token = (lock: Lock): number => lock.token;
const holders = (info: LockInfo): number => info.holders.length;
const code = (e: unknown): string | undefined => (e instanceof LockdError ? e.codeName : undefined);
export { client, token, holders, code };
