// Several Session answers in one message, and several requests in one (proto/lockd.proto,
// SessionRequest.batch / SessionResponse.batch). Why: on a busy stream one applied batch of Raft
// entries answers dozens of operations in the same event-loop turn, and each message costs its own
// serialization call, gRPC framing, HTTP/2 stream write and, on the client, its own decode and
// 'data' callback. Answers finished in one turn are sent together at the end of it (setImmediate),
// so no answer waits longer than the turn it was finished in.
//  - Negotiated, so old peers are never sent what they would misread: the server batches answers
//    only to a client that opened with BATCH_HEADER, and announces BATCH_HEADER in its response
//    headers so the client knows it may batch requests.
//  - Bounded: at most MAX_BATCH elements per message either way; answers that may be large
//    (anything but the small fixed-size kinds in SMALL) are sent alone, so a batch stays far below
//    the client's 4 MiB receive limit (64 × ~30 KiB at most).
import type { SessionResponse } from '../../proto/gen/lockd/v1/SessionResponse.js';

/** Header (either direction) saying "I understand SessionRequest/SessionResponse.batch". */
export const BATCH_HEADER = 'lockd-session-batch';

/** Most elements in one batch message, requests or answers (the proto promises 256 for requests). */
export const MAX_BATCH = 256;

/**
 * Answers sent in one message at most: 64 × the largest small answer (an Inspect at its bounds: 1,024
 * waiters and 1,024 holders, ~30 KiB) ≈ 2 MiB, under the client's 4 MiB receive limit.
 */
export const MAX_ANSWERS_PER_MESSAGE = 64;

/**
 * Answer kinds small enough to batch (bounded well under 30 KiB). Others go alone: a Fence.Read
 * carries up to 64 KiB, and a kind added later is not batched until its bound is checked here.
 */
// Election answers carry at most a name, a token and a value of MAX_ELECTION_VALUE_BYTES (1 KiB).
const SMALL: ReadonlySet<string> = new Set([
  'grant',
  'acquire',
  'release',
  'revoke',
  'fenceWrite',
  'inspect',
  'timeToLive',
  'fenceDelete',
  'setPermits',
  'error',
  'campaign',
  'proclaim',
  'leader',
  'resign',
]);

function batchable(res: SessionResponse): boolean {
  for (const k in res) if (k !== 'id' && res[k as keyof SessionResponse] !== undefined && !SMALL.has(k)) return false;
  return true;
}

/**
 * Collects one stream's answers during an event-loop turn and sends them at its end: one answer
 * as itself, several as batches. Each answer's `sent` runs once it has been handed to the
 * stream (the session settles the operation then, so a half-closed stream never finishes with
 * answers still queued here).
 */
export class AnswerBatcher {
  private queue: SessionResponse[] = [];
  private sent: Array<() => void> = [];
  private scheduled = false;

  constructor(private readonly send: (res: SessionResponse) => void) {}

  add(res: SessionResponse, sent: () => void): void {
    if (!batchable(res)) {
      // Keep completion order: what is queued goes first.
      this.flush();
      this.send(res);
      sent();
      return;
    }
    this.queue.push(res);
    this.sent.push(sent);
    // A full message goes at once: what one turn may queue stays bounded and backpressure
    // (ServerStream.send) is seen as early as without batching.
    if (this.queue.length >= MAX_ANSWERS_PER_MESSAGE) return this.flush();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  flush(): void {
    const q = this.queue;
    if (q.length === 0) return;
    const sent = this.sent;
    this.queue = [];
    this.sent = [];
    this.send(q.length === 1 ? q[0] : { id: 0, batch: q });
    for (const done of sent) done();
  }
}
