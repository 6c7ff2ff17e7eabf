// Forwarding on the simulated network: the lock API's ForwardPort (forwarder.ts) with calls.ts in
// place of gRPC channels. Metadata, deadlines and the way failures become statuses are the real
// Forwarder's (it is extended: only how a call travels changes).
import * as grpc from '@grpc/grpc-js';
import { Forwarder, type ForwardMethod } from '../../../src/lockd/api/forwarder.js';
import type { Forward } from '../../../src/lockd/api/leader-router.js';
import { ApiError } from '../../../src/lockd/api/api-error.js';
import { forwardedPath, forwardingMetadata } from '../../../src/lockd/node/listeners.js';
import type { NodeContext } from '../../../src/lockd/node/node-context.js';
import type { ClientStream, Rpc } from './calls.js';

/** A request rewritten on its way (a planted bug's adapter); identity for the correct build. */
export type ForwardRewrite = (path: string, request: unknown) => unknown;

export class SimForwarder extends Forwarder {
  private readonly open = new Set<() => void>();
  private shut = false;

  constructor(
    private readonly sctx: Pick<NodeContext, 'config' | 'logger' | 'security'>,
    private readonly rpc: Rpc,
    private readonly rewrite: ForwardRewrite = (_p, r) => r,
  ) {
    super(sctx);
  }

  override unary<Req, Res>(
    to: Forward,
    principal: string,
    method: ForwardMethod<Req, Res>,
    request: Req,
    deadline: number,
    answerAt: number,
    onCancel: (cancel: () => void) => void,
  ): Promise<Res> {
    if (this.shut) return Promise.reject(new ApiError(grpc.status.UNAVAILABLE, `${this.sctx.config.id} is shutting down; retry`));
    const md = forwardingMetadata(this.sctx.config, principal);
    const call = this.rpc.unary<Res>(
      this.sctx.config.id,
      to.leaderId,
      forwardedPath(method.path),
      this.rewrite(method.path, request),
      Number.isFinite(answerAt) ? answerAt : Infinity,
      md,
    );
    this.open.add(call.cancel);
    onCancel(call.cancel);
    return call.result.then((r) => {
      this.open.delete(call.cancel);
      if (r.ok) return r.res;
      const md2 = new grpc.Metadata();
      for (const [k, v] of Object.entries(r.trailers)) md2.set(k, v);
      throw this.failure(
        to,
        method.path,
        Object.assign(new Error(r.details), { code: r.code, details: r.details, metadata: md2 }) as grpc.ServiceError,
        deadline,
        answerAt,
      );
    });
  }

  override duplex<Req, Res>(to: Forward, principal: string, method: ForwardMethod<Req, Res>): grpc.ClientDuplexStream<Req, Res> {
    const s: ClientStream = this.rpc.stream(
      this.sctx.config.id,
      to.leaderId,
      forwardedPath(method.path),
      undefined,
      forwardingMetadata(this.sctx.config, principal),
    );
    return s as unknown as grpc.ClientDuplexStream<Req, Res>;
  }

  override close(): void {
    this.shut = true;
    for (const c of [...this.open]) c();
  }
}
