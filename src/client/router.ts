// Which endpoint to call, and unary calls retried across endpoints. Any node accepts any request
// (followers forward), but the leader answers fastest and is where a follower's UNAVAILABLE
// points, so calls go to the known leader; when none is known, to the leader named by any node's
// Cluster.Status, else to the endpoints in rotation. UNAVAILABLE (and an attempt that hung past
// its own timeout) is retried — at once on a fresh leader hint, else after a jittered backoff —
// until the caller's deadline; every other status is the answer.
import { status as Status, type CallOptions, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { Connections, type Endpoint } from './connections.js';
import type { TlsMaterial } from './tls.js';
import { clientError, leaderHint, toLockdError } from './errors.js';
import { abortError, Backoff, grpcDeadline, longTimeout, monoNow, sleep } from './deadlines.js';

export interface RouterOptions {
  readonly endpoints: readonly string[];
  /** TLS material for every connection (undefined: plaintext). */
  readonly tls?: TlsMaterial;
  /** One attempt of a call that does not wait (ms): past it, the endpoint is taken as hung and another is tried. */
  readonly attemptTimeoutMs: number;
  /** How long leader discovery (Cluster.Status on every endpoint) may take (ms). */
  readonly discoverTimeoutMs: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
}

export interface CallControl {
  /** Monotonic deadline of the whole call, retries included (Infinity: none). */
  readonly deadline: number;
  readonly signal?: AbortSignal;
  /** False for calls that legitimately block (a waiting Acquire): no per-attempt timeout then. */
  readonly attemptTimeout?: boolean;
}

export type Attempt<T> = (ep: Endpoint, opts: CallOptions, done: (err: ServiceError | null, res?: T) => void) => ClientUnaryCall;

/** Immediate (no backoff) redirects in a row before backing off: stops two nodes pointing at each other from spinning. */
const MAX_IMMEDIATE_REDIRECTS = 2;

export class Router {
  readonly connections: Connections;
  private readonly known: string[];
  private leader: string | undefined;
  private cursor = 0;
  private discovering: Promise<string | undefined> | undefined;
  private isClosed = false;

  constructor(private readonly opts: RouterOptions) {
    if (opts.endpoints.length === 0) throw new Error('LockClient needs at least one endpoint');
    this.connections = new Connections(opts.tls);
    this.known = [...opts.endpoints];
  }

  /** Every endpoint known: the configured ones, then members and leaders learned from the cluster. */
  endpoints(): readonly string[] {
    return this.known;
  }

  leaderAddress(): string | undefined {
    return this.leader;
  }

  private learn(address: string): void {
    if (address && !this.known.includes(address)) this.known.push(address);
  }

  /** A node named `address` as the leader. */
  noteLeader(address: string): void {
    this.learn(address);
    this.leader = address;
  }

  /** `address` failed without naming a leader: stop preferring it (the next pick rediscovers or rotates). */
  demote(address: string): void {
    if (this.leader === address) this.leader = undefined;
  }

  /**
   * Handle a failed call or stream on `address`: returns whether retrying elsewhere makes sense
   * and whether a (new) leader was named.
   */
  onFailure(address: string, err: Pick<ServiceError, 'code' | 'details' | 'metadata'>, attemptTimedOut: boolean): { retry: boolean; redirected: boolean } {
    if (err.code === Status.UNAVAILABLE) {
      const hint = leaderHint(err);
      if (hint && hint !== address) {
        this.noteLeader(hint);
        return { retry: true, redirected: true };
      }
      this.demote(address);
      return { retry: true, redirected: false };
    }
    if (err.code === Status.DEADLINE_EXCEEDED && attemptTimedOut) {
      this.demote(address);
      return { retry: true, redirected: false };
    }
    return { retry: false, redirected: false };
  }

  /** The endpoint to use now: the leader if known, else discover it (bounded), else the next in rotation. */
  async pick(deadline: number): Promise<Endpoint> {
    if (!this.leader) await this.discover(deadline);
    if (this.leader) return this.connections.get(this.leader);
    const address = this.known[this.cursor++ % this.known.length];
    return this.connections.get(address);
  }

  /** Ask every known endpoint's Cluster.Status who leads; the first answer naming a leader wins. */
  discover(deadline: number): Promise<string | undefined> {
    this.discovering ??= new Promise<string | undefined>((resolve) => {
      const until = grpcDeadline(Math.min(deadline, monoNow() + this.opts.discoverTimeoutMs));
      const addresses = [...this.known];
      let left = addresses.length;
      for (const address of addresses) {
        this.connections.get(address).cluster.Status({}, { deadline: until }, (err, res) => {
          if (!err && res) {
            for (const m of res.members) this.learn(m.address);
            if (res.leaderAddress) {
              this.noteLeader(res.leaderAddress);
              resolve(res.leaderAddress);
            }
          }
          if (--left === 0) resolve(undefined);
        });
      }
    }).finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }

  /** One unary call, retried on UNAVAILABLE across endpoints until ctl.deadline. Errors are LockdErrors. */
  async unary<T>(what: string, attempt: Attempt<T>, ctl: CallControl): Promise<T> {
    const backoff = new Backoff(this.opts.backoffInitialMs, this.opts.backoffMaxMs);
    let redirects = 0;
    let last: ServiceError | undefined;
    for (;;) {
      if (ctl.signal?.aborted) throw abortError(ctl.signal);
      if (monoNow() >= ctl.deadline) {
        throw last ? toLockdError(last) : clientError(Status.DEADLINE_EXCEEDED, `${what}: deadline exceeded before an endpoint answered`);
      }
      const ep = await this.pick(ctl.deadline);
      const attemptDeadline = ctl.attemptTimeout === false ? ctl.deadline : Math.min(ctl.deadline, monoNow() + this.opts.attemptTimeoutMs);
      try {
        return await this.once(ep, attempt, attemptDeadline, ctl.signal);
      } catch (e) {
        if (ctl.signal?.aborted) throw abortError(ctl.signal);
        const err = e as ServiceError;
        // The caller's deadline cut a retry short: the UNAVAILABLE before it says more about why.
        if (err.code === Status.DEADLINE_EXCEEDED && attemptDeadline >= ctl.deadline && last) throw toLockdError(last);
        const { retry, redirected } = this.onFailure(ep.address, err, attemptDeadline < ctl.deadline);
        if (!retry) throw toLockdError(err);
        last = err;
        if (redirected && redirects++ < MAX_IMMEDIATE_REDIRECTS) continue;
        redirects = 0;
        const pause = backoff.next();
        if (monoNow() + pause >= ctl.deadline) throw toLockdError(err);
        await sleep(pause, ctl.signal);
      }
    }
  }

  private once<T>(ep: Endpoint, attempt: Attempt<T>, deadline: number, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => call.cancel();
      const wire = grpcDeadline(deadline);
      let expired = false;
      let stopTimer = (): void => {};
      const call = attempt(ep, { deadline: wire }, (err, res) => {
        stopTimer();
        signal?.removeEventListener('abort', onAbort);
        if (err && expired)
          reject(
            Object.assign(new Error('deadline exceeded'), {
              code: Status.DEADLINE_EXCEEDED,
              details: 'Deadline exceeded (enforced by the client)',
              metadata: err.metadata,
            }),
          );
        else if (err) reject(err);
        else resolve(res as T);
      });
      // A deadline too far ahead to send (grpcDeadline) is kept here: the call is cancelled when it passes.
      if (wire === Infinity) stopTimer = longTimeout(() => ((expired = true), call.cancel()), deadline - monoNow());
      if (signal?.aborted) call.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get closed(): boolean {
    return this.isClosed;
  }

  close(): void {
    this.isClosed = true;
    this.connections.close();
  }
}
