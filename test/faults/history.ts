// The history of a fault run: every client operation as an invoke record and (if the client lived to
// see it) a completion record, one JSON object per line. Records are appended synchronously so a
// client killed with SIGKILL loses nothing it had already observed; an invoke without a completion
// is an operation of unknown outcome.
//
// Times are milliseconds since the run's origin on CLOCK_MONOTONIC (process.hrtime), which every
// process on the machine shares and which keeps running while a process is stopped — so the
// invoke/complete times of different client processes are comparable.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/** Operation kinds a client records. */
export type OpKind =
  | 'grant'
  | 'keepalive'
  | 'revoke'
  | 'acquire'
  | 'release'
  | 'read'
  | 'write'
  | 'inspect'
  | 'cancelwait'
  // Recipes (the recipes, recipe-client.ts): kept out of the lock linearizability model, judged by recipe-check.ts.
  | 'racquire'
  | 'rrelease'
  | 'setpermits'
  | 'campaign'
  | 'proclaim'
  | 'resign'
  | 'leader'
  | 'observe'
  // A stale actor's Fence.Write or Fence.Delete with lock = the name of a grant that has ended (stale-check.ts).
  | 'lockwrite';

/** ok: it happened, with this output; fail: it definitely did not happen (output says why); unknown: either. */
export type OpStatus = 'ok' | 'fail' | 'unknown';

/** Which store a read/write went to: lockd's fenced store or the runner's plain (unfenced) control store. */
export type StoreKind = 'fence' | 'plain';

export interface GrantInput {
  ttlMs: number;
}
export interface GrantOutput {
  leaseId: number;
}
export interface KeepAliveInput {
  leaseId: number;
  ttlMs: number;
}
export interface KeepAliveOutput {
  ttlMs: number;
}
export interface RevokeInput {
  leaseId: number;
}
/**
 * retryOf: an attempt of that (retried) Acquire whose own outcome was unknown, recorded as an
 * unknown operation of its own from the attempt's start: the server may have granted the lock to
 * that attempt and given the grant back (abandoned-wait cleanup) before the retry was answered.
 */
export interface AcquireInput {
  name: string;
  leaseId: number;
  wait: boolean;
  retryOf?: string;
  requestId?: string;
}
/**
 * answeredFrom: when the attempt that got this answer started (set when earlier attempts were made).
 * Every attempt reuses the request id, so the grant happens at most once (or, for a wait whose
 * earlier grant the server took back, again) but the answer describes the state while that last
 * attempt was in flight: a retry must not report a grant that had already ended.
 */
export interface AcquireOutput {
  acquired: boolean;
  token: number;
  holder: number;
  answeredFrom?: number;
}
/**
 * adversary: a third party's Release (leaseId 0): it names a token it learned from Inspect or
 * guessed. Without authentication the token is the capability, so releasing the holder's exact token
 * is legitimate: it ends that grant (the holder loses the lock and must not be trusted after).
 */
export interface ReleaseInput {
  name: string;
  leaseId: number;
  token: number;
  adversary?: boolean;
  requestId?: string;
}
export interface ReleaseOutput {
  released: boolean;
}
export interface ReadInput {
  store: StoreKind;
  key: string;
}
/** A read value is summarised: the guarded list's length and last element ('' when empty). */
export interface ReadOutput {
  n: number;
  last: string;
  token: number;
  ordered: boolean;
}
export interface WriteInput {
  store: StoreKind;
  key: string;
  /** The element this write appends, and the last element of the value it was computed from. */
  elem: string;
  pred: string;
  n: number;
  token: number;
  /** The lock whose grant `token` is (the key guards it); absent in older histories: the key names it. */
  lock?: string;
  /** Every attempt of this write carries it (a retry of a write applies once); absent before lockd had it. */
  requestId?: string;
  /** The lease holding the lock, and when the writer's lease trust ran out (sendTime + TTL) at invoke. */
  leaseId: number;
  trustedUntil: number;
}
export interface WriteOutput {
  highestToken: number;
}
/** An adversary's look at a lock (the source of the tokens and lease ids it then tries). */
export interface InspectInput {
  name: string;
}
export interface InspectOutput {
  held: boolean;
  token: number;
  holder: number;
  waiting: number[];
}
/**
 * An adversary's CancelWait naming someone else's lease. abandonedAtIndex is always far beyond any
 * log index of the run (>= ADVERSARY_INDEX) or 0: so it can never name a real abandoned Acquire
 * entry, must never release a lock (released = true is a violation) and, with abandonedAtIndex > 0,
 * must change nothing at all (removed = true is a violation too). With 0 it may take a waiter out of
 * the queue — the lease id is the capability today — which the waiting call survives by re-queueing.
 */
export interface CancelWaitInput {
  name: string;
  leaseId: number;
  abandonedAtIndex: number;
}
export interface CancelWaitOutput {
  removed: boolean;
  token: number;
  released: boolean;
}
/** The least abandonedAtIndex an adversary sends when it sends one (10^12: no run has that many entries). */
export const ADVERSARY_INDEX = 1e12;

/**
 * Recipes. racquire/rrelease are Lock.Acquire/Release on a recipe name (a semaphore, a
 * read-write lock, a mutex with lock-delay): another kind than acquire/release so that the lock
 * model and the exclusion checker, which know only mutexes, never see them. A racquire with shared =
 * true by a lease holding the name exclusively is a downgrade (answered with the same token).
 */
/** cross (here and in SetPermits and Campaign): a call of another recipe on this name (recipe-client.ts crossMove). */
export interface RAcquireInput {
  name: string;
  leaseId: number;
  wait: boolean;
  permits: number;
  shared: boolean;
  lockDelayMs: number;
  requestId: string;
  cross?: boolean;
}
export interface RAcquireOutput {
  acquired: boolean;
  token: number;
  holder: number;
  delayRemainingMs: number;
}
/**
 * stale: a stale actor's call, made after this client learned the grant (name, leaseId, token) had
 * ended (stale-check.ts); noLease: sent with lease_id 0 (the token alone names the grant).
 */
export interface RReleaseInput {
  name: string;
  leaseId: number;
  token: number;
  requestId: string;
  stale?: boolean;
  noLease?: boolean;
}
export interface SetPermitsInput {
  name: string;
  permits: number;
  requestId: string;
  cross?: boolean;
}
export interface SetPermitsOutput {
  previous: number;
  granted: number;
}
/** Election.Campaign (waits until it leads); value: the leader's value once it leads (unique per call). */
export interface CampaignInput {
  name: string;
  leaseId: number;
  value: string;
  requestId: string;
  cross?: boolean;
}
export interface CampaignOutput {
  token: number;
}
/** Election.Proclaim / Resign of the leadership (name, lease, token). Proclaim has no request id (not deduplicated). */
export interface ProclaimInput {
  name: string;
  leaseId: number;
  token: number;
  value: string;
  stale?: boolean;
}
export interface ResignInput {
  name: string;
  leaseId: number;
  token: number;
  requestId: string;
  stale?: boolean;
}
/** Fence.Write (or delete) of key with lock = name and the ended grant's token: always a stale actor's. */
export interface LockWriteInput {
  name: string;
  leaseId: number;
  token: number;
  key: string;
  del: boolean;
  requestId: string;
}
export interface ResignOutput {
  resigned: boolean;
}
/** Election.Leader (a linearizable read; NOT_FOUND when nobody leads), and one response of an Election.Observe stream. */
export interface LeaderInput {
  name: string;
}
export interface LeaderOutput {
  leaseId: number;
  token: number;
  value: string;
}
/** An Observe response, recorded as an operation invoked and completed when it arrived; stream names the stream. */
export interface ObserveInput {
  name: string;
  stream: string;
}
export interface ObserveOutput {
  hasLeader: boolean;
  leaseId: number;
  token: number;
  value: string;
}

export interface OpInputs {
  racquire: RAcquireInput;
  rrelease: RReleaseInput;
  setpermits: SetPermitsInput;
  campaign: CampaignInput;
  proclaim: ProclaimInput;
  resign: ResignInput;
  leader: LeaderInput;
  observe: ObserveInput;
  lockwrite: LockWriteInput;
  grant: GrantInput;
  keepalive: KeepAliveInput;
  revoke: RevokeInput;
  acquire: AcquireInput;
  release: ReleaseInput;
  read: ReadInput;
  write: WriteInput;
  inspect: InspectInput;
  cancelwait: CancelWaitInput;
}
export interface OpOutputs {
  racquire: RAcquireOutput;
  rrelease: ReleaseOutput;
  setpermits: SetPermitsOutput;
  campaign: CampaignOutput;
  proclaim: Record<string, never>;
  resign: ResignOutput;
  leader: LeaderOutput;
  observe: ObserveOutput;
  lockwrite: Record<string, never>;
  grant: GrantOutput;
  keepalive: KeepAliveOutput;
  revoke: Record<string, never>;
  acquire: AcquireOutput;
  release: ReleaseOutput;
  read: ReadOutput;
  write: WriteOutput;
  inspect: InspectOutput;
  cancelwait: CancelWaitOutput;
}

/** A failed operation's reason: a gRPC code name ('NOT_FOUND', 'FAILED_PRECONDITION', ...). */
export interface FailOutput {
  code: string;
  message?: string;
}

export type InvokeRecord = { [K in OpKind]: { type: 'invoke'; id: string; process: string; f: K; input: OpInputs[K]; time: number } }[OpKind];
export interface CompleteRecord {
  type: OpStatus;
  id: string;
  time: number;
  output?: unknown;
}
/** Free-form facts a client reports (entering a critical section, losing trust, ...), not operations. */
export interface NoteRecord {
  type: 'note';
  process: string;
  time: number;
  what: string;
  [k: string]: unknown;
}
export type HistoryRecord = InvokeRecord | CompleteRecord | NoteRecord;

/** One operation, invoke and completion joined. complete = Infinity when the outcome is unknown. */
export type Op = {
  [K in OpKind]: {
    /** Dense index in the history (invoke order). */
    index: number;
    id: string;
    process: string;
    f: K;
    input: OpInputs[K];
    status: OpStatus;
    output: (OpOutputs[K] & Partial<FailOutput>) | FailOutput | undefined;
    invoke: number;
    /** Completion time; Infinity when unknown (the effect may land at any time after invoke). */
    complete: number;
  };
}[OpKind];

export type OpOf<K extends OpKind> = Extract<Op, { f: K }>;

/** Milliseconds since `originNs` (a process.hrtime.bigint() value shared through the environment). */
export function clockSince(originNs: bigint): () => number {
  return () => Number(process.hrtime.bigint() - originNs) / 1e6;
}

/** Appends records to a JSONL file, synchronously (a SIGKILL must not lose an observed outcome). */
export class HistoryWriter {
  private seq = 0;
  constructor(
    readonly path: string,
    readonly process: string,
    private readonly now: () => number,
  ) {}

  invoke<K extends OpKind>(f: K, input: OpInputs[K], at?: number): { id: string; time: number } {
    const id = `${this.process}-${++this.seq}`;
    const time = at ?? this.now();
    this.append({ type: 'invoke', id, process: this.process, f, input, time } as InvokeRecord);
    return { id, time };
  }

  complete(id: string, type: OpStatus, output?: unknown): number {
    const time = this.now();
    this.append({ type, id, time, output });
    return time;
  }

  note(what: string, fields: Record<string, unknown> = {}): void {
    this.append({ ...fields, type: 'note', process: this.process, time: this.now(), what });
  }

  private append(r: HistoryRecord): void {
    appendFileSync(this.path, `${JSON.stringify(r)}\n`);
  }
}

export function readRecords(path: string): HistoryRecord[] {
  if (!existsSync(path)) return [];
  const out: HistoryRecord[] = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line) as HistoryRecord);
    } catch (e) {
      // A process killed mid-write leaves at most a torn last line.
      if (i >= lines.length - 2) continue;
      throw new Error(`${path}:${i + 1}: bad history record: ${(e as Error).message}`);
    }
  }
  return out;
}

/** Join invokes with completions (records of any number of processes, any order). */
export function assembleOps(records: readonly HistoryRecord[]): { ops: Op[]; notes: NoteRecord[] } {
  const done = new Map<string, CompleteRecord>();
  const notes: NoteRecord[] = [];
  for (const r of records) {
    if (r.type === 'note') notes.push(r);
    else if (r.type !== 'invoke') {
      if (done.has(r.id)) throw new Error(`history: operation ${r.id} completed twice`);
      done.set(r.id, r);
    }
  }
  const invokes = records.filter((r): r is InvokeRecord => r.type === 'invoke').sort((a, b) => a.time - b.time);
  const seen = new Set<string>();
  const ops: Op[] = invokes.map((inv, index) => {
    if (seen.has(inv.id)) throw new Error(`history: operation ${inv.id} invoked twice`);
    seen.add(inv.id);
    const c = done.get(inv.id);
    const status: OpStatus = c ? c.type : 'unknown';
    if (c && c.time < inv.time) throw new Error(`history: operation ${inv.id} completes (${c.time}) before its invoke (${inv.time})`);
    return {
      index,
      id: inv.id,
      process: inv.process,
      f: inv.f,
      input: inv.input,
      status,
      output: c?.output,
      invoke: inv.time,
      complete: status === 'unknown' ? Infinity : c!.time,
    } as Op;
  });
  for (const id of done.keys()) if (!seen.has(id)) throw new Error(`history: completion of ${id} without an invoke`);
  notes.sort((a, b) => a.time - b.time);
  return { ops, notes };
}

/** Hand-made histories (tests): build an Op from the fields that matter. */
export function op<K extends OpKind>(
  index: number,
  process: string,
  f: K,
  input: OpInputs[K],
  invoke: number,
  complete: number,
  status: OpStatus,
  output?: OpOutputs[K] | FailOutput,
): OpOf<K> {
  return {
    index,
    id: `${process}-${index}`,
    process,
    f,
    input,
    status,
    output,
    invoke,
    complete: status === 'unknown' ? Infinity : complete,
  } as unknown as OpOf<K>;
}
