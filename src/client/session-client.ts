// SessionClient: lock and lease operations over one lockd.v1 Session stream to the leader, each
// answered by its correlation id (out of order: a waiting acquire does not hold up later calls).
// The leader is found like LockClient finds it (Router). When the stream ends — the leader changed,
// stopped, or the network failed — every operation in flight fails UNAVAILABLE (its outcome is
// unknown: retry it with the same request id) and the next operation opens a new stream,
// to the leader the old one named if it did. No automatic retries, no keepalives: a thin layer for
// callers that do many small operations (see LockClient for leases kept alive and lock handles).
// Operations started in one event-loop turn go out in one message, and the server answers those
// finished in one turn in one message (SessionRequest/SessionResponse.batch), once each side has
// said it understands batches (the lockd-session-batch header): an old server gets one message per
// operation, as before.
import { randomUUID } from 'node:crypto';
import { Metadata, status as Status, type ClientDuplexStream, type ServiceError } from '@grpc/grpc-js';
import type { SessionRequest } from '../proto/gen/lockd/v1/SessionRequest.js';
import type { SessionResponse__Output } from '../proto/gen/lockd/v1/SessionResponse.js';
import * as election from './election.js';
import type { LeaderKey, Leadership } from './election.js';
import { resolveEndpoints } from './endpoints.js';
import { clientError, codeName, leaderHint, LockdError } from './errors.js';
import { recipeFields } from './recipe.js';
import { Router } from './router.js';
import { abortError, deadlineAfter, longTimeout } from './deadlines.js';
import { loadClientTls, type ClientTlsOptions } from './tls.js';
import type { LockRecipe } from './result-types.js';

export interface SessionClientOptions extends ClientTlsOptions {
  /** host:port of any nodes (default: $LOCKD_ENDPOINTS, else 127.0.0.1:7001..7005). */
  readonly endpoints?: readonly string[];
  /** Timeout of an operation that does not wait (ms), sent as its timeout_ms. Default 10 000. */
  readonly timeoutMs?: number;
  /** Leader discovery's limit (ms). Default 500. */
  readonly discoverTimeoutMs?: number;
}

export interface SessionCallOptions {
  /** The operation's timeout (ms): sent to the server as timeout_ms, and enforced here too (plus a short grace). */
  readonly timeoutMs?: number;
  /** Stop waiting for the answer here. The server is not told: the operation may still be applied. */
  readonly signal?: AbortSignal;
}

/** A mutating operation's options: reuse requestId when retrying an operation whose outcome is unknown. */
export interface SessionWriteOptions extends SessionCallOptions {
  readonly requestId?: string;
}

type OpName = NonNullable<SessionRequest['op']>;
type ResponseOf<K extends OpName> = NonNullable<SessionResponse__Output[K]>;
type Stream = ClientDuplexStream<SessionRequest, SessionResponse__Output>;

interface Pending {
  resolve(res: unknown): void;
  reject(e: Error): void;
}

interface Conn {
  readonly call: Stream;
  readonly address: string;
  readonly pending: Map<number, Pending>;
  /** The server announced BATCH_HEADER: requests are sent in batches. */
  batches: boolean;
  /** Requests waiting for the end of this turn (only while `batches`). */
  outbox: SessionRequest[];
  /** approxSize of the outbox's requests. */
  outboxBytes: number;
  /** The stream is over: nothing more is written to it. */
  ended: boolean;
}

/** Header (both ways) for "I understand SessionRequest/SessionResponse.batch" (proto/lockd.proto). */
const BATCH_HEADER = 'lockd-session-batch';
/** Most requests in one batch message (the server refuses more). */
const MAX_BATCH = 256;
/**
 * Estimated bytes of one batch message at most (approxSize): a turn's requests are bounded by size
 * as well as count, so 70 fence writes of 64 KiB go as five messages, not one of 4.6 MB that the
 * server refuses (its limit is 4 MiB per message) by ending the stream with everything in flight.
 */
const MAX_BATCH_BYTES = 1024 * 1024;

/** An over-estimate of `v`'s encoded size: its strings' and bytes' lengths plus 16 bytes per field (tag, length, a varint). */
function approxSize(v: unknown): number {
  if (typeof v === 'string') return 16 + Buffer.byteLength(v);
  if (v instanceof Uint8Array) return 16 + v.length;
  if (typeof v !== 'object' || v === null) return 16;
  let n = 16;
  for (const x of Object.values(v)) n += approxSize(x);
  return n;
}

/** The server answers a timed-out operation itself; the local timer only covers a server that went silent. */
const LOCAL_TIMEOUT_GRACE_MS = 1000;

export class SessionClient {
  private readonly router: Router;
  private readonly timeoutMs: number;
  private conn: Conn | undefined;
  private connecting: Promise<Conn> | undefined;
  private nextId = 1;
  private closed = false;

  constructor(opts: SessionClientOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.router = new Router({
      endpoints: opts.endpoints ?? resolveEndpoints(undefined),
      attemptTimeoutMs: this.timeoutMs,
      discoverTimeoutMs: opts.discoverTimeoutMs ?? 500,
      backoffInitialMs: 50,
      backoffMaxMs: 1000,
      tls: loadClientTls(opts),
    });
  }

  /** The endpoint the current stream is open to (undefined when none is). */
  address(): string | undefined {
    return this.conn?.address;
  }

  /** Operations sent and not yet answered. */
  get inFlight(): number {
    return this.conn?.pending.size ?? 0;
  }

  // ---- operations (the unary RPCs' semantics; errors are LockdErrors) ---------------------------

  /** Lease.Grant; retries should pass the first attempt's requestId. */
  grant(ttlMs: number, opts: SessionCallOptions & { requestId?: string } = {}): Promise<ResponseOf<'grant'>> {
    return this.call('grant', { ttlMs, requestId: opts.requestId ?? randomUUID() }, opts);
  }

  /** Lock.Acquire. wait: true queues until granted, the timeout (none by default) or the lease's end. */
  acquire(name: string, leaseId: number, opts: SessionCallOptions & LockRecipe & { wait?: boolean; requestId?: string } = {}): Promise<ResponseOf<'acquire'>> {
    const wait = opts.wait ?? false;
    const req = { name, leaseId, wait, requestId: opts.requestId ?? randomUUID(), ...recipeFields(opts) };
    return this.call('acquire', req, { ...opts, timeoutMs: opts.timeoutMs ?? (wait ? Infinity : undefined) });
  }

  /** Lock.SetPermits: the previous permits and how many waiters it granted. */
  setPermits(name: string, permits: number, opts: SessionWriteOptions = {}): Promise<ResponseOf<'setPermits'>> {
    return this.call('setPermits', { name, permits, requestId: opts.requestId ?? randomUUID() }, opts);
  }

  /** Lock.Release: true if released; false when the token is stale. Retries should pass the first attempt's requestId. */
  async release(name: string, fencingToken: number, opts: SessionWriteOptions & { leaseId?: number } = {}): Promise<boolean> {
    return (await this.call('release', { name, fencingToken, leaseId: opts.leaseId ?? 0, requestId: opts.requestId ?? randomUUID() }, opts)).released;
  }

  /** Lease.Revoke. Retries should pass the first attempt's requestId. */
  async revoke(leaseId: number, opts: SessionWriteOptions = {}): Promise<void> {
    await this.call('revoke', { leaseId, requestId: opts.requestId ?? randomUUID() }, opts);
  }

  /** Lock.Inspect (linearizable). */
  inspect(name: string, opts?: SessionCallOptions): Promise<ResponseOf<'inspect'>> {
    return this.call('inspect', { name }, opts);
  }

  /** Lease.TimeToLive (linearizable). */
  timeToLive(leaseId: number, opts?: SessionCallOptions): Promise<ResponseOf<'timeToLive'>> {
    return this.call('timeToLive', { leaseId }, opts);
  }

  /** Fence.Write: the highest accepted token; a stale token (or, with lock, not that lock's grant) is FAILED_PRECONDITION. */
  async fenceWrite(key: string, value: string | Uint8Array, fencingToken: number, opts: SessionWriteOptions & { lock?: string } = {}): Promise<number> {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
    return (await this.call('fenceWrite', { key, value: bytes, fencingToken, lock: opts.lock ?? '', requestId: opts.requestId ?? randomUUID() }, opts))
      .highestToken;
  }

  /** Fence.Delete, fenced like a write. */
  fenceDelete(key: string, fencingToken: number, opts: SessionWriteOptions & { lock?: string } = {}): Promise<ResponseOf<'fenceDelete'>> {
    return this.call('fenceDelete', { key, fencingToken, lock: opts.lock ?? '', requestId: opts.requestId ?? randomUUID() }, opts);
  }

  /** Fence.Read (linearizable): empty value and token 0 for a key never written. */
  fenceRead(key: string, opts?: SessionCallOptions): Promise<ResponseOf<'fenceRead'>> {
    return this.call('fenceRead', { key }, opts);
  }

  // ---- elections (the recipe of election.ts, as LockClient runs it, on this stream) ------------

  /** Election.Campaign: wait until `leaseId` leads `name` (no timeout unless opts.timeoutMs); NOT_FOUND if the lease ends meanwhile. */
  campaign(name: string, leaseId: number, value: string, opts: SessionWriteOptions = {}): Promise<LeaderKey> {
    return election.campaign(this.elections({ ...opts, timeoutMs: opts.timeoutMs ?? Infinity }), name, leaseId, value, opts.requestId);
  }

  /** Election.Proclaim: FAILED_PRECONDITION unless `key` is the current leadership. */
  proclaim(key: LeaderKey, value: string, opts?: SessionCallOptions): Promise<void> {
    return election.proclaim(this.elections(opts), key, value);
  }

  /** Election.Leader (linearizable): `leader` undefined when nobody leads. */
  leader(name: string, opts?: SessionCallOptions): Promise<Leadership> {
    return election.leader(this.elections(opts), name);
  }

  /** Election.Resign: true if this call ended the leadership. */
  resign(key: LeaderKey, opts: SessionWriteOptions = {}): Promise<boolean> {
    return election.resign(this.elections(opts), key, opts.requestId);
  }

  private elections(opts: SessionCallOptions = {}): election.ElectionCalls {
    return {
      campaign: (req) => this.call('campaign', req, opts),
      proclaim: (req) => this.call('proclaim', req, opts),
      leader: (req) => this.call('leader', req, opts),
      resign: (req) => this.call('resign', req, opts),
    };
  }

  /** Send one operation and wait for its answer. timeoutMs Infinity: none (a waiting acquire). */
  async call<K extends OpName>(op: K, body: NonNullable<SessionRequest[K]>, opts: SessionCallOptions = {}): Promise<ResponseOf<K>> {
    if (this.closed) throw new Error('SessionClient is closed');
    if (opts.signal?.aborted) throw abortError(opts.signal);
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const conn = await this.connect(deadlineAfter(Math.min(timeoutMs, this.timeoutMs)));
    const id = this.nextId++;
    return new Promise<ResponseOf<K>>((resolve, reject) => {
      let stopTimer = (): void => {};
      const onAbort = (): void => settle(() => reject(abortError(opts.signal!)));
      const settle = (f: () => void): void => {
        if (!conn.pending.delete(id)) return;
        stopTimer();
        opts.signal?.removeEventListener('abort', onAbort);
        f();
      };
      conn.pending.set(id, { resolve: (r) => settle(() => resolve(r as ResponseOf<K>)), reject: (e) => settle(() => reject(e)) });
      // timeoutMs may be longer than one setTimeout can wait (a 30-day wait): longTimeout steps.
      stopTimer = longTimeout(
        () => settle(() => reject(clientError(Status.DEADLINE_EXCEEDED, `session ${op}: no answer within ${timeoutMs} ms (outcome unknown)`))),
        timeoutMs + LOCAL_TIMEOUT_GRACE_MS,
      );
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.send(conn, { id, [op]: body, timeoutMs: Number.isFinite(timeoutMs) ? Math.ceil(timeoutMs) : 0 });
    });
  }

  /** Write a request: at once to a server that does not batch, else at the end of this turn with the others of it. */
  private send(conn: Conn, req: SessionRequest): void {
    if (!conn.batches) {
      conn.call.write(req);
      return;
    }
    const bytes = approxSize(req);
    // Would pass the size budget: what is queued goes first (one request over it goes alone).
    if (conn.outboxBytes + bytes > MAX_BATCH_BYTES) this.flush(conn);
    conn.outbox.push(req);
    conn.outboxBytes += bytes;
    if (conn.outbox.length >= MAX_BATCH) return this.flush(conn);
    if (conn.outbox.length === 1) setImmediate(() => this.flush(conn));
  }

  private flush(conn: Conn): void {
    const out = conn.outbox;
    if (out.length === 0) return;
    conn.outbox = [];
    conn.outboxBytes = 0;
    if (conn.ended) return; // their operations already failed UNAVAILABLE (lost)
    conn.call.write(out.length === 1 ? out[0] : { batch: out });
  }

  // ---- the stream ---------------------------------------------------------------------------

  private connect(deadline: number): Promise<Conn> {
    if (this.conn) return Promise.resolve(this.conn);
    this.connecting ??= (async () => {
      const ep = await this.router.pick(deadline);
      if (this.closed) throw new Error('SessionClient is closed');
      const md = new Metadata();
      md.set(BATCH_HEADER, '1');
      const conn: Conn = { call: ep.session.Open(md), address: ep.address, pending: new Map(), batches: false, outbox: [], outboxBytes: 0, ended: false };
      conn.call.on('metadata', (h: Metadata) => {
        conn.batches = h.get(BATCH_HEADER)[0] === '1';
      });
      conn.call.on('data', (res: SessionResponse__Output) => {
        if (res.batch.length === 0) return this.answer(conn, res);
        for (const r of res.batch) this.answer(conn, r);
      });
      conn.call.on('error', (err: ServiceError) => this.lost(conn, err));
      conn.call.on('status', (st) => {
        if (st.code === Status.OK) this.lost(conn, { code: Status.UNAVAILABLE, details: 'the server ended the session', metadata: st.metadata });
      });
      this.conn = conn;
      return conn;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private answer(conn: Conn, res: SessionResponse__Output): void {
    const p = conn.pending.get(res.id);
    if (!p) return; // timed out or aborted here already
    const kind = res.result;
    if (kind === 'error') {
      const e = res.error!;
      p.reject(new LockdError(codeName(e.code), e.code, e.message, e.leader || undefined));
    } else if (kind) p.resolve(res[kind]);
    else p.reject(clientError(Status.INTERNAL, `session answered id ${res.id} without a result`));
  }

  /** The stream ended: everything in flight fails UNAVAILABLE (outcome unknown); the next call reconnects. */
  private lost(conn: Conn, err: Pick<ServiceError, 'code' | 'details' | 'metadata'>): void {
    conn.ended = true;
    if (this.conn === conn) this.conn = undefined;
    if (!this.closed) this.router.onFailure(conn.address, err, false);
    const leader = leaderHint(err);
    const why = this.closed ? 'the client closed' : `${codeName(err.code)}: ${err.details}`;
    const e = new LockdError(
      'UNAVAILABLE',
      Status.UNAVAILABLE,
      `session to ${conn.address} ended (${why}); the outcome is unknown, retry (with the same request id)`,
      leader,
    );
    for (const p of [...conn.pending.values()]) p.reject(e);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const conn = this.conn;
    if (conn) {
      conn.call.cancel();
      this.lost(conn, { code: Status.CANCELLED, details: 'closed', metadata: new Metadata() });
    }
    this.router.close();
  }
}
