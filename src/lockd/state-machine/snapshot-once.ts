// The snapshot form of the dedup records request-once.ts keeps (snapshot-codec.ts, format 3), apart
// from Grant's and Acquire's so each can change without the other.

import type { DedupRecord } from './dedup.js';
import type { ErrorKind } from './results.js';

type OnceRecord = Exclude<DedupRecord, { type: 'Grant' | 'Acquire' }>;

export type DedupJsonOnce =
  | [string, 'R', string, number, number, boolean]
  | [string, 'P', string, number, number, number]
  | [string, 'V', number]
  | [string, 'C', string, number, number, boolean, boolean, number]
  | [string, 'F' | 'D', string, number, string, string, string, string, number, boolean]
  | [string, 'L' | 'U', string, string, string, boolean]
  | [string, 'Q', string, string];

export function dedupJsonOnce(rid: string, r: OnceRecord): DedupJsonOnce {
  switch (r.type) {
    case 'Release':
      return [rid, 'R', r.name, r.token, r.leaseId, r.released];
    case 'SetPermits':
      return [rid, 'P', r.name, r.permits, r.previous, r.granted];
    case 'Revoke':
      return [rid, 'V', r.leaseId];
    case 'CancelWait':
      return [rid, 'C', r.name, r.leaseId, r.abandonedAtIndex, r.removed, r.released, r.heldToken];
    case 'FenceWrite':
    case 'FenceDelete':
      return [rid, r.type === 'FenceWrite' ? 'F' : 'D', r.key, r.token, r.lock, r.digest, r.error ?? '', r.message, r.highestToken, r.deleted];
    case 'AclGrant':
    case 'AclRevoke':
      return [rid, r.type === 'AclGrant' ? 'L' : 'U', r.subject, r.prefix, r.verb, r.changed];
    case 'QuotaSet':
      return [rid, 'Q', r.subject, r.spec];
  }
}

/** The decoding helpers of snapshot-codec.ts (each throws SnapshotDecodeError). */
export interface Readers {
  tuple(v: unknown, n: number, what: string): unknown[];
  int(v: unknown, what: string): number;
  str(v: unknown, what: string): string;
  bool(v: unknown, what: string): boolean;
  errorKind(v: unknown, what: string): ErrorKind | undefined;
}

export function dedupRecordOnce(a: unknown[], r: Readers): OnceRecord {
  switch (a[1]) {
    case 'R': {
      const [, , name, token, leaseId, released] = r.tuple(a, 6, 'dedup Release');
      return {
        type: 'Release',
        name: r.str(name, 'name'),
        token: r.int(token, 'token'),
        leaseId: r.int(leaseId, 'lease id'),
        released: r.bool(released, 'released'),
      };
    }
    case 'P': {
      const [, , name, permits, previous, granted] = r.tuple(a, 6, 'dedup SetPermits');
      return {
        type: 'SetPermits',
        name: r.str(name, 'name'),
        permits: r.int(permits, 'permits'),
        previous: r.int(previous, 'previous permits'),
        granted: r.int(granted, 'granted'),
      };
    }
    case 'V': {
      const [, , leaseId] = r.tuple(a, 3, 'dedup Revoke');
      return { type: 'Revoke', leaseId: r.int(leaseId, 'lease id') };
    }
    case 'C': {
      const [, , name, leaseId, at, removed, released, held] = r.tuple(a, 8, 'dedup CancelWait');
      return {
        type: 'CancelWait',
        name: r.str(name, 'name'),
        leaseId: r.int(leaseId, 'lease id'),
        abandonedAtIndex: r.int(at, 'abandoned at'),
        removed: r.bool(removed, 'removed'),
        released: r.bool(released, 'released'),
        heldToken: r.int(held, 'held token'),
      };
    }
    case 'F':
    case 'D': {
      const [, kind, key, token, lock, digest, error, message, highest, deleted] = r.tuple(a, 10, 'dedup fence');
      const e = r.errorKind(error, 'dedup fence error');
      return {
        type: kind === 'F' ? 'FenceWrite' : 'FenceDelete',
        key: r.str(key, 'key'),
        token: r.int(token, 'token'),
        lock: r.str(lock, 'lock'),
        digest: r.str(digest, 'digest'),
        ...(e === undefined ? {} : { error: e }),
        message: r.str(message, 'message'),
        highestToken: r.int(highest, 'highest token'),
        deleted: r.bool(deleted, 'deleted'),
      };
    }
    case 'L':
    case 'U': {
      const [, kind, subject, prefix, verb, changed] = r.tuple(a, 6, 'dedup access rule');
      return {
        type: kind === 'L' ? 'AclGrant' : 'AclRevoke',
        subject: r.str(subject, 'subject'),
        prefix: r.str(prefix, 'prefix'),
        verb: r.str(verb, 'verb'),
        changed: r.bool(changed, 'changed'),
      };
    }
    case 'Q': {
      const [, , subject, spec] = r.tuple(a, 4, 'dedup QuotaSet');
      return { type: 'QuotaSet', subject: r.str(subject, 'subject'), spec: r.str(spec, 'spec') };
    }
    default:
      throw new Error(`dedup record kind ${JSON.stringify(a[1])}`);
  }
}
