// gRPC calls on the simulated network, with the call shapes the lock API's handlers use (grpc-js's
// ServerUnaryCall, ServerWritableStream, ServerDuplexStream): request, metadata, getDeadline(),
// cancelled and 'cancelled', write/end/emit('error'), 'data'/'end', pause/resume, sendMetadata; and
// the client's side of them (an answer or a status; a stream's data, headers and status). Requests
// and answers go through the method's own serializers, so handlers see exactly what grpc-js would
// hand them (proto-loader's defaults, longs as numbers) and size/UTF-8 checks of the wrapped
// definitions (public-limits.ts, utf8-requests.ts) run as on a real server.
import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { Net } from './net.js';
import type { NodeClock } from './world.js';

/** A method as registered (proto-loader MethodDefinition, possibly wrapped by the node's checks). */
export interface MethodDef {
  readonly path: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  requestSerialize(v: unknown): Buffer;
  requestDeserialize(b: Buffer): unknown;
  responseSerialize(v: unknown): Buffer;
  responseDeserialize(b: Buffer): unknown;
}

export interface Served {
  readonly def: MethodDef;
  readonly handler: (...args: unknown[]) => void;
}

export type UnaryResult<Res = unknown> =
  | { readonly ok: true; readonly res: Res }
  | { readonly ok: false; readonly code: grpc.status; readonly details: string; readonly trailers: Record<string, string> };

/** One endpoint's served methods (a simulated node's public and peer ports in one: forwarded paths map to the same handlers). */
export interface SimServer {
  readonly id: string;
  method(path: string): Served | undefined;
}

function trailersOf(md: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (md instanceof grpc.Metadata) for (const [k, v] of Object.entries(md.getMap())) out[k] = String(v);
  return out;
}

function statusOf(e: unknown): { code: grpc.status; details: string; trailers: Record<string, string> } {
  const s = (e ?? {}) as { code?: number; details?: string; message?: string; metadata?: unknown };
  return { code: s.code ?? grpc.status.UNKNOWN, details: s.details ?? s.message ?? '', trailers: trailersOf(s.metadata) };
}

/** The server's side of one call. */
export class ServerCall extends EventEmitter {
  cancelled = false;
  readonly writableLength = 0;
  private ended = false;
  private paused = false;
  private buffered: Array<() => void> = [];

  constructor(
    private readonly rpc: Rpc,
    readonly from: string,
    readonly to: string,
    readonly def: MethodDef,
    readonly metadata: grpc.Metadata,
    readonly request: unknown,
    private readonly deadline: number,
    /** To the client: a stream message, headers, or the final status (undefined = OK). */
    private readonly toClient: (kind: 'data' | 'metadata' | 'status', v?: unknown) => void,
  ) {
    super();
  }

  getDeadline(): number {
    return this.deadline;
  }

  getPeer(): string {
    return this.from;
  }

  getPath(): string {
    return this.def.path;
  }

  get open(): boolean {
    return !this.ended && !this.cancelled;
  }

  write(message: unknown, cb?: (err?: Error | null) => void): boolean {
    if (this.open) this.toClient('data', this.def.responseDeserialize(this.def.responseSerialize(message)));
    if (cb) this.rpc.clockOf(this.to).soon(() => cb(null));
    return true;
  }

  sendMetadata(md: grpc.Metadata): void {
    if (this.open) this.toClient('metadata', md);
  }

  end(): void {
    if (!this.open) return;
    this.ended = true;
    this.toClient('status', undefined);
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error') {
      if (this.open) {
        this.ended = true;
        this.toClient('status', args[0]);
      }
      if (this.listenerCount('error') === 0) return false; // grpc-js's call has its own listener
    }
    return super.emit(event, ...args);
  }

  /** The client cancelled, or the deadline passed (grpc-js cancels the call on its own timer too). */
  cancel(): void {
    if (this.cancelled || this.ended) return;
    this.cancelled = true;
    super.emit('cancelled');
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  resume(): this {
    if (!this.paused) return this;
    this.paused = false;
    const b = this.buffered;
    this.buffered = [];
    for (const fn of b) fn();
    return this;
  }

  isPaused(): boolean {
    return this.paused;
  }

  /** From the client: a request message of a stream, or its half-close. */
  incoming(kind: 'data' | 'end', v?: unknown): void {
    if (!this.open) return;
    const run = () => {
      if (!this.open) return;
      if (kind === 'data') super.emit('data', this.def.requestDeserialize(this.def.requestSerialize(v)));
      else super.emit('end');
    };
    if (this.paused) this.buffered.push(run);
    else run();
  }
}

/** The client's side of a stream (also what the forwarder's KeepAlive proxy reads: grpc-js ClientDuplexStream's shape). */
export class ClientStream extends EventEmitter {
  private done = false;
  private paused = false;
  private buffered: unknown[] = [];
  server: ServerCall | undefined;

  constructor(
    private readonly rpc: Rpc,
    readonly from: string,
    readonly to: string,
  ) {
    super();
  }

  get finished(): boolean {
    return this.done;
  }

  write(req: unknown): boolean {
    if (!this.done)
      this.rpc.net.sendOrdered(
        this.from,
        this.to,
        () => this.server?.incoming('data', req),
        () => this.lose(),
      );
    return true;
  }

  end(): void {
    if (!this.done)
      this.rpc.net.sendOrdered(
        this.from,
        this.to,
        () => this.server?.incoming('end'),
        () => this.lose(),
      );
  }

  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.rpc.net.sendOrdered(this.from, this.to, () => this.server?.cancel());
    this.fail({ code: grpc.status.CANCELLED, details: 'Cancelled on client', metadata: new grpc.Metadata() });
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  resume(): this {
    if (!this.paused) return this;
    this.paused = false;
    const b = this.buffered;
    this.buffered = [];
    for (const m of b) this.emit('data', m);
    return this;
  }

  isPaused(): boolean {
    return this.paused;
  }

  /** The connection broke (a cut, a lost message of the stream): both sides see it. */
  lose(): void {
    if (this.done) return;
    this.done = true;
    this.server?.cancel();
    this.fail({ code: grpc.status.UNAVAILABLE, details: 'connection lost', metadata: new grpc.Metadata() });
  }

  fromServer(kind: 'data' | 'metadata' | 'status', v?: unknown): void {
    if (this.done) return;
    if (kind === 'data') {
      if (this.paused) this.buffered.push(v);
      else this.emit('data', v);
    } else if (kind === 'metadata') this.emit('metadata', v);
    else if (v === undefined) {
      this.done = true;
      const st = { code: grpc.status.OK, details: 'OK', metadata: new grpc.Metadata() };
      this.emit('status', st);
      this.emit('end');
    } else {
      this.done = true;
      const s = statusOf(v);
      this.fail({ code: s.code, details: s.details, metadata: (v as { metadata?: grpc.Metadata }).metadata ?? new grpc.Metadata() });
    }
  }

  private fail(st: { code: grpc.status; details: string; metadata: grpc.Metadata }): void {
    const err = Object.assign(new Error(`${st.code} ${st.details}`), st);
    if (this.listenerCount('error') > 0) this.emit('error', err);
    this.emit('status', st);
  }
}

/** How long a caller takes to notice that its connection lost a message (gRPC keepalive: ~1 s). */
export const LOST_NOTICED_MS = 500;

/** A unary call a node has received and not yet answered. */
export interface OpenCall {
  readonly node: string;
  readonly path: string;
  readonly request: Record<string, unknown>;
  readonly arrivedAt: number;
  readonly forwarded: boolean;
}

/** Calls between endpoints on the world's network. */
export class Rpc {
  /** Unary calls received and neither answered nor cancelled (checks.ts: nothing is left unanswered). */
  readonly openCalls = new Set<OpenCall>();

  constructor(
    readonly net: Net,
    readonly clockOf: (id: string) => NodeClock,
    private readonly serverOf: (id: string) => SimServer | undefined,
  ) {}

  /** Unary call; `deadline` is epoch ms on the caller's wall clock (Infinity: none). `cancel` ends it as CANCELLED. */
  unary<Res = unknown>(
    from: string,
    to: string,
    path: string,
    request: unknown,
    deadline: number,
    metadata = new grpc.Metadata(),
  ): { result: Promise<UnaryResult<Res>>; cancel: () => void } {
    const clock = this.clockOf(from);
    const remaining = deadline - clock.wallMs();
    let settle!: (r: UnaryResult<Res>) => void;
    let server: ServerCall | undefined;
    let over = false;
    const result = new Promise<UnaryResult<Res>>((r) => (settle = r));
    const finish = (r: UnaryResult<Res>) => {
      if (over) return;
      over = true;
      timer?.clear();
      settle(r);
    };
    const fail = (code: grpc.status, details: string) => finish({ ok: false, code, details, trailers: {} });
    // A message lost on the way (a cut, a drop) is a broken connection: the caller hears UNAVAILABLE once its transport notices.
    const connectionLost = () => clock.after(LOST_NOTICED_MS, () => fail(grpc.status.UNAVAILABLE, `connection to ${to} lost`));
    const timer = Number.isFinite(remaining)
      ? clock.after(Math.max(0, remaining), () => {
          fail(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded');
          this.net.send(from, to, () => server?.cancel());
        })
      : undefined;
    this.net.send(
      from,
      to,
      () => {
        if (over) return;
        const srv = this.serverOf(to);
        const m = srv?.method(path);
        if (!srv || !m) return this.net.send(to, from, () => fail(srv ? grpc.status.UNIMPLEMENTED : grpc.status.UNAVAILABLE, `no ${path} at ${to}`));
        const serverClock = this.clockOf(to);
        const req = m.def.requestDeserialize(m.def.requestSerialize(request));
        const call = (server = new ServerCall(
          this,
          from,
          to,
          m.def,
          metadata,
          req,
          Number.isFinite(remaining) ? serverClock.wallMs() + remaining : Infinity,
          () => {},
        ));
        if (Number.isFinite(remaining)) serverClock.after(remaining, () => call.cancel());
        let answered = false;
        const open: OpenCall = {
          node: to,
          path,
          request: req as Record<string, unknown>,
          arrivedAt: serverClock.monoMs(),
          forwarded: metadata.get('lockd-forwarded').length > 0,
        };
        this.openCalls.add(open);
        call.once('cancelled', () => this.openCalls.delete(open));
        m.handler(call, (err: unknown, res: unknown) => {
          this.openCalls.delete(open);
          if (answered || call.cancelled) return;
          answered = true;
          call.end(); // marks it over (a unary call's status travels with its answer)
          if (err) {
            const s = statusOf(err);
            this.net.send(to, from, () => finish({ ok: false, ...s }), connectionLost);
          } else {
            const out = m.def.responseDeserialize(m.def.responseSerialize(res)) as Res;
            this.net.send(to, from, () => finish({ ok: true, res: out }), connectionLost);
          }
        });
      },
      connectionLost,
    );
    return {
      result,
      cancel: () => {
        if (over) return;
        fail(grpc.status.CANCELLED, 'Cancelled on client');
        this.net.send(from, to, () => server?.cancel());
      },
    };
  }

  /** Open a server-streaming (with `request`) or bidi (without) call. */
  stream(from: string, to: string, path: string, request: unknown, metadata = new grpc.Metadata()): ClientStream {
    const cs = new ClientStream(this, from, to);
    this.net.sendOrdered(
      from,
      to,
      () => {
        if (cs.finished) return;
        const srv = this.serverOf(to);
        const m = srv?.method(path);
        if (!srv || !m) return this.net.sendOrdered(to, from, () => cs.fromServer('status', { code: grpc.status.UNAVAILABLE, details: `no ${path} at ${to}` }));
        const req = request === undefined ? undefined : m.def.requestDeserialize(m.def.requestSerialize(request));
        const call = new ServerCall(this, from, to, m.def, metadata, req, Infinity, (kind, v) =>
          this.net.sendOrdered(
            to,
            from,
            () => cs.fromServer(kind, v),
            () => cs.lose(),
          ),
        );
        cs.server = call;
        m.handler(call);
      },
      () => cs.lose(),
    );
    return cs;
  }
}
