// The installed TypeScript package (lockd-client, npm-installed into a scratch project) as a user
// runs it: take a lock, fence-write with its token, get paused by the test (SIGSTOP) past the
// lease, and on waking see lock.signal abort (the loss signal) and the late write refused.
// JSON lines on stdout: holding, lost, write, read. Exits 0 when the story ran to its end.
//
//   node paused-holder.mjs ENDPOINTS NAME KEY TTL_MS
import { createRequire } from 'node:module';
import { LockClient, LockdError, LockLostError } from 'lockd-client';

const [endpoints, name, key, ttl] = process.argv.slice(2);
const report = (fields) => process.stdout.write(JSON.stringify(fields) + '\n');

report({ event: 'imported', file: createRequire(import.meta.url).resolve('lockd-client') });
const client = new LockClient({ endpoints: endpoints.split(',') });
const lock = await client.acquire(name, { ttlMs: Number(ttl) });
await client.fenceWrite(key, 'v1', lock.token, { lock: name });
report({ event: 'holding', token: lock.token, lease: lock.lease.id });

const reason = await new Promise((resolve) => {
  if (lock.signal.aborted) resolve(lock.signal.reason);
  else lock.signal.addEventListener('abort', () => resolve(lock.signal.reason), { once: true });
});
report({ event: 'lost', why: reason instanceof LockLostError ? reason.why : String(reason), token: lock.token });
try {
  await client.fenceWrite(key, 'late', lock.token, { lock: name });
  report({ event: 'write', refused: false });
} catch (e) {
  if (!(e instanceof LockdError)) throw e;
  report({ event: 'write', refused: true, code: e.codeName, error: e.message });
}
const read = await client.fenceRead(key);
report({ event: 'read', value: read.value.toString('utf8'), token: read.fencingToken });
client.close();
