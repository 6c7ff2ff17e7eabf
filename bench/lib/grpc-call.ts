// The one client pattern used against every system: a @grpc/grpc-js unary call with a deadline,
// as a promise. Loops share one channel per endpoint (HTTP/2 multiplexes them), as a real client
// process would.
import * as grpc from '@grpc/grpc-js';

type UnaryMethod<Req, Res> = (
  req: Req,
  meta: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res?: Res) => void,
) => grpc.ClientUnaryCall;

/** Something in flight that can be given up (a unary call; a session operation). */
export interface Cancellable {
  cancel(): void;
}

/** Calls in flight, so a workload can cancel what is still blocked when its window closes. */
export class InFlight {
  private readonly calls = new Set<Cancellable>();

  add(c: Cancellable): void {
    this.calls.add(c);
  }

  delete(c: Cancellable): void {
    this.calls.delete(c);
  }

  cancelAll(): void {
    for (const c of this.calls) c.cancel();
    this.calls.clear();
  }
}

export function unary<Res>(client: grpc.Client, method: string, req: unknown, timeoutMs: number, inflight?: InFlight): Promise<Res> {
  const fn = (client as unknown as Record<string, UnaryMethod<unknown, Res>>)[method];
  if (typeof fn !== 'function') throw new Error(`no unary method ${method} on this client`);
  return new Promise<Res>((resolve, reject) => {
    const call = fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
      inflight?.delete(call);
      if (err) reject(err);
      else resolve(res as Res);
    });
    inflight?.add(call);
  });
}

export function isCode(e: unknown, code: grpc.status): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === code;
}

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // Bench connections must not be throttled by keepalive pings or message limits.
  'grpc.max_receive_message_length': 64 * 1024 * 1024,
};
