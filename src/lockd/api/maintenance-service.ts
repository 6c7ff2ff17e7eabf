// lockd.v1.Maintenance: Snapshot streams a backup of the replicated state (proto/lockd.proto,
// docs/operating.md §5). Served by the leader only, after a ReadIndex
// barrier: the state, its index and term and the configuration there are taken in one turn of the
// loop (between two applies), so the backup is one applied index, never a mix. Admin-only whenever
// client certificates are verified (requireAdmin, as Membership). Bounded: at most
// MAX_CONCURRENT_BACKUPS streams per node, chunks of CHUNK_BYTES, and the stream writes only as
// fast as the client reads (flow control) — and no longer than MAX_BACKUP_MS, nor past a client that
// reads nothing for STALL_MS (bounded-write.ts): a client that never reads, or whose deadline is far
// off, cannot hold a slot and its copy of the state for good.
import * as grpc from '@grpc/grpc-js';
import { lockdProto } from '../../proto/lockd-package.js';
import type { SnapshotChunk } from '../../proto/gen/lockd/v1/SnapshotChunk.js';
import type { SnapshotRequest__Output } from '../../proto/gen/lockd/v1/SnapshotRequest.js';
import type { NodeContext, ServiceRegistrar } from '../node/node-context.js';
import { InvariantError, STATE_MACHINE, summarizeState } from '../state-machine/index.js';
import { BACKUP_FILE_FORMAT, clusterFingerprint, encodeBackup } from '../storage/backup-file.js';
import { ApiError, asApiError } from './api-error.js';
import { LeaderRouter } from './leader-router.js';
import { requireAdmin } from './membership-service.js';
import { Proposer } from './proposer.js';
import { limitRequests } from './public-limits.js';
import { apiTiming, deadlineOf } from './timing.js';
import { writeBounded } from './bounded-write.js';

/** Bytes of backup per message (proto: at most 65,536). */
export const CHUNK_BYTES = 64 * 1024;
/** Backups streaming from one node at once: each holds a copy of the whole state until it is sent. */
export const MAX_CONCURRENT_BACKUPS = 2;
/** A backup stream whose client reads nothing for this long is ended (DEADLINE_EXCEEDED) and its slot freed. */
export const STALL_MS = 30_000;
/** No backup streams longer than this, whatever the call's deadline (lockctl's default is 5 minutes). */
export const MAX_BACKUP_MS = 10 * 60_000;

/** The backup as of the applied index, in one synchronous step (run as a linearizable read). */
function takeBackup(ctx: NodeContext): { bytes: Buffer; chunk0: SnapshotChunk; state: Uint8Array } {
  const sm = ctx.stateMachine;
  const index = sm.appliedIndex;
  if (index !== ctx.driver.appliedIndex())
    throw new InvariantError(STATE_MACHINE, 'backup-one-index', `state machine applied ${index}, the driver ${ctx.driver.appliedIndex()}`);
  if (index === 0) throw new ApiError(grpc.status.UNAVAILABLE, `${ctx.config.id} has applied nothing yet; retry shortly`);
  const state = sm.snapshot();
  const term = ctx.driver.termAt(index);
  const c = ctx.driver.configurationAt(index);
  const bytes = encodeBackup(
    {
      stateFormat: state[0], // the bytes' own format (snapshot-codec.ts writes 8 while no quota is in use)
      index,
      term,
      voters: [...c.voters].sort(),
      learners: [...(c.learners ?? [])].sort(),
      removed: [...(c.removed ?? [])].sort(),
      takenBy: ctx.config.id,
      takenAt: new Date().toISOString(),
      sourceCluster: clusterFingerprint(ctx.config.clusterId),
    },
    state,
  );
  const info = {
    index,
    term,
    sizeBytes: bytes.length,
    voters: [...c.voters].sort(),
    learners: [...(c.learners ?? [])].sort(),
    leaderId: ctx.config.id,
    fileFormat: BACKUP_FILE_FORMAT,
    stateFormat: state[0],
  };
  return { bytes, state, chunk0: { info } };
}

export const registerMaintenanceService: ServiceRegistrar = (registry, ctx) => {
  const timing = apiTiming(ctx.config);
  const router = new LeaderRouter(ctx, timing);
  const proposer = new Proposer(ctx, timing, router);
  const open = new Set<grpc.ServerWritableStream<SnapshotRequest__Output, SnapshotChunk>>();
  let closed = false;

  const snapshot = async (call: grpc.ServerWritableStream<SnapshotRequest__Output, SnapshotChunk>): Promise<void> => {
    requireAdmin(ctx.access, call, 'take a backup (Maintenance.Snapshot)');
    const start = Date.now();
    const deadline = deadlineOf(call);
    const route = await router.route(call, deadline);
    if (route.kind !== 'local') throw router.unavailable(`${ctx.config.id} is not the leader: a backup is streamed by the leader`, route.leaderId);
    if (call.cancelled) return; // nobody to send it to: take no copy of the state
    if (open.size >= MAX_CONCURRENT_BACKUPS)
      throw new ApiError(
        grpc.status.RESOURCE_EXHAUSTED,
        `${MAX_CONCURRENT_BACKUPS} backups are streaming from ${ctx.config.id} already; retry once one has finished`,
      );
    open.add(call);
    try {
      const { bytes, state, chunk0 } = await proposer.read(deadline, () => takeBackup(ctx));
      if (call.cancelled) return;
      // Check the state as a restore will (decode, full invariant sweep) before anyone keeps it,
      // and count what it holds for the first message.
      const s = summarizeState(state);
      const first: SnapshotChunk = {
        info: { ...chunk0.info, logicalNowMs: s.logicalNowMs, leases: s.leases, locks: s.locks, fencedKeys: s.fencedKeys, aclRules: s.aclRules },
      };
      ctx.logger.info(
        { event: 'backup started', index: s.appliedIndex, bytes: bytes.length },
        `streaming a backup of index ${s.appliedIndex} (${bytes.length} bytes)`,
      );
      const endBy = Math.min(deadline, start + MAX_BACKUP_MS);
      const send = async (m: SnapshotChunk): Promise<boolean> => {
        const left = endBy - Date.now();
        const o = left > 0 ? await writeBounded(call, m, Math.min(STALL_MS, left), () => closed) : 'stalled';
        if (o !== 'stalled') return o === 'sent';
        const why = Date.now() >= endBy ? `it took longer than ${Math.round((endBy - start) / 1000)} s` : `the client read nothing for ${STALL_MS / 1000} s`;
        ctx.logger.warn({ event: 'backup abandoned', index: s.appliedIndex, bytes: bytes.length }, `backup of index ${s.appliedIndex} ended: ${why}`);
        throw new ApiError(grpc.status.DEADLINE_EXCEEDED, `${ctx.config.id} ended the backup stream: ${why}; retry`);
      };
      if (!(await send(first))) return;
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
        // A copy, not a view: a message a stalled client never reads stays buffered in the stream
        // after we give up, and a view would keep the whole backup alive with it.
        if (!(await send({ data: Buffer.from(bytes.subarray(at, Math.min(bytes.length, at + CHUNK_BYTES))) }))) return;
      }
      call.end();
      ctx.logger.info({ event: 'backup sent', index: s.appliedIndex, bytes: bytes.length }, `backup of index ${s.appliedIndex} sent`);
    } finally {
      open.delete(call);
    }
  };

  const MAINT = lockdProto.lockd.v1.Maintenance.service;
  registry.addPublic(limitRequests(MAINT), {
    Snapshot: (call: grpc.ServerWritableStream<SnapshotRequest__Output, SnapshotChunk>) => {
      snapshot(call).catch((e: unknown) => {
        const err = asApiError(e);
        if (err.code === grpc.status.INTERNAL) ctx.logger.error({ event: 'backup failed', err: e }, `backup failed: ${err.message}`);
        if (!call.cancelled) call.emit('error', err.toStatus());
      });
    },
  });
  return {
    close() {
      closed = true;
      const err = new ApiError(grpc.status.UNAVAILABLE, `${ctx.config.id} is shutting down`).toStatus();
      for (const call of open) if (!call.cancelled) call.emit('error', err);
      open.clear();
      router.close();
    },
  };
};
