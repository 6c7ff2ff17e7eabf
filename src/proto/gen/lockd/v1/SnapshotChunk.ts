// Original file: proto/lockd.proto

import type { SnapshotInfo as _lockd_v1_SnapshotInfo, SnapshotInfo__Output as _lockd_v1_SnapshotInfo__Output } from '../../lockd/v1/SnapshotInfo.js';

export interface SnapshotChunk {
  /**
   * First message only: what the backup reflects.
   */
  'info'?: (_lockd_v1_SnapshotInfo | null);
  /**
   * Every message after the first: the next bytes of the backup (1 to 65,536 of them).
   */
  'data'?: (Buffer | Uint8Array | string);
}

export interface SnapshotChunk__Output {
  /**
   * First message only: what the backup reflects.
   */
  'info': (_lockd_v1_SnapshotInfo__Output | null);
  /**
   * Every message after the first: the next bytes of the backup (1 to 65,536 of them).
   */
  'data': (Buffer);
}
