// Save a backup (lockd.v1 Maintenance.Snapshot) to a file: the leader streams the backup file's
// bytes; they go to FILE.part as they come, and become FILE (rename) only once the whole stream is
// in, of the announced size, and its last 32 bytes are the SHA-256 of the rest (proto/lockd.proto).
// A follower's UNAVAILABLE naming the leader, or no leader yet, is retried at the leader until the
// deadline; a stream that breaks after data arrived is not resumed: the call fails and FILE is
// left as it was. The client reads no further than the size the first message announced.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { Metadata, status as Status, type StatusObject } from '@grpc/grpc-js';
import type { SnapshotChunk__Output } from '../proto/gen/lockd/v1/SnapshotChunk.js';
import type { SnapshotInfo__Output } from '../proto/gen/lockd/v1/SnapshotInfo.js';
import { codeName, LockdError, clientError } from './errors.js';
import type { Router } from './router.js';
import { abortError, Backoff, grpcDeadline, monoNow, sleep } from './deadlines.js';

/** The largest backup a client accepts (a server announcing more is refused before anything is written). */
export const MAX_BACKUP_BYTES = 1024 * 1024 * 1024;
const MAX_CHUNK_BYTES = 64 * 1024;
const DIGEST_BYTES = 32;

export interface SavedSnapshot {
  readonly info: SnapshotInfo__Output;
  readonly file: string;
  readonly bytes: number;
  /** SHA-256 of the file's body (the file's last 32 bytes), hex. */
  readonly sha256: string;
}

export interface SaveControl {
  /** Monotonic deadline of the whole save, retries included. */
  readonly deadline: number;
  readonly signal?: AbortSignal;
}

export async function saveSnapshot(router: Router, file: string, ctl: SaveControl): Promise<SavedSnapshot> {
  const backoff = new Backoff(50, 1000);
  for (;;) {
    if (ctl.signal?.aborted) throw abortError(ctl.signal);
    if (monoNow() >= ctl.deadline) throw clientError(Status.DEADLINE_EXCEEDED, 'snapshot save: deadline exceeded before the leader streamed a backup');
    const ep = await router.pick(ctl.deadline);
    const out = await attempt(ep.maintenance.Snapshot({}, { deadline: grpcDeadline(ctl.deadline) }), file, ctl.signal);
    if ('saved' in out) return out.saved;
    const { st, gotData } = out;
    const failure = new LockdError(codeName(st.code), st.code, st.details, undefined);
    if (gotData || ctl.signal?.aborted) throw failure;
    const { retry, redirected } = router.onFailure(ep.address, st, false);
    if (!retry) throw failure;
    if (!redirected) {
      const pause = backoff.next();
      if (monoNow() + pause >= ctl.deadline) throw failure;
      await sleep(pause, ctl.signal);
    }
  }
}

type Outcome = { saved: SavedSnapshot } | { st: Pick<StatusObject, 'code' | 'details' | 'metadata'>; gotData: boolean };

interface Stream {
  on(event: 'data', l: (m: SnapshotChunk__Output) => void): unknown;
  on(event: 'error', l: (e: Error) => void): unknown;
  on(event: 'status', l: (s: StatusObject) => void): unknown;
  cancel(): void;
}

function attempt(stream: Stream, file: string, signal?: AbortSignal): Promise<Outcome> {
  const part = `${file}.part`;
  return new Promise<Outcome>((resolve) => {
    let fd: number | undefined;
    let info: SnapshotInfo__Output | undefined;
    let written = 0;
    let tail = Buffer.alloc(0);
    const hash = createHash('sha256');
    let settled = false;
    const fail = (code: number, details: string, gotData = true, metadata?: StatusObject['metadata']): void => {
      if (settled) return;
      settled = true;
      stream.cancel();
      if (fd !== undefined) closeSync(fd);
      rmSync(part, { force: true });
      // The metadata carries the lockd-leader trailer of a follower's UNAVAILABLE (router.onFailure follows it).
      resolve({ st: { code, details, metadata: metadata ?? new Metadata() }, gotData });
    };
    const onAbort = (): void => fail(Status.CANCELLED, 'snapshot save interrupted', true);
    signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', (m) => {
      if (settled) return;
      try {
        if (!info) {
          if (!m.info) return fail(Status.INTERNAL, 'the server sent backup data before the backup info (a lockd too old or too new for this client?)');
          const size = m.info.sizeBytes;
          if (size > MAX_BACKUP_BYTES || size < DIGEST_BYTES)
            return fail(Status.RESOURCE_EXHAUSTED, `the server announced a backup of ${size} bytes (at most ${MAX_BACKUP_BYTES} accepted)`);
          info = m.info;
          // Unlink whatever is there (an older save's leftover, or a symlink someone planted:
          // 'w' would follow it and keep an existing file's mode), then create afresh, 0600 —
          // a backup holds every fenced value, principal and access rule.
          rmSync(part, { force: true });
          fd = openSync(part, 'wx', 0o600);
          return;
        }
        const data = Buffer.from(m.data);
        if (data.length === 0 || data.length > MAX_CHUNK_BYTES)
          return fail(Status.INTERNAL, `a backup chunk of ${data.length} bytes (1 to ${MAX_CHUNK_BYTES} expected)`);
        if (written + data.length > info.sizeBytes) return fail(Status.INTERNAL, `the server sent more than the ${info.sizeBytes} bytes it announced`);
        writeSync(fd!, data);
        written += data.length;
        // Hash everything but the last 32 bytes seen so far: at the end they are the checksum.
        const both = Buffer.concat([tail, data]);
        hash.update(both.subarray(0, Math.max(0, both.length - DIGEST_BYTES)));
        tail = both.subarray(Math.max(0, both.length - DIGEST_BYTES));
      } catch (e) {
        fail(Status.INTERNAL, `writing ${part}: ${(e as Error).message}`);
      }
    });
    stream.on('error', () => {}); // reported once, on 'status'
    stream.on('status', (st) => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      if (st.code !== Status.OK) return fail(st.code, st.details, info !== undefined, st.metadata);
      if (!info) return fail(Status.INTERNAL, 'the stream ended without a backup');
      if (written !== info.sizeBytes) return fail(Status.DATA_LOSS, `the stream ended after ${written} of ${info.sizeBytes} bytes`);
      const digest = hash.digest();
      if (!digest.equals(tail)) return fail(Status.DATA_LOSS, 'the backup received does not match its checksum (damaged in transit)');
      try {
        fsyncSync(fd!);
        closeSync(fd!);
        fd = undefined;
        renameSync(part, file);
      } catch (e) {
        return fail(Status.INTERNAL, `saving ${file}: ${(e as Error).message}`);
      }
      settled = true;
      resolve({ saved: { info, file, bytes: written, sha256: digest.toString('hex') } });
    });
  });
}
