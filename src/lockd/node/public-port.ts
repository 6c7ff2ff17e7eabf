// The public (client) port's own TCP listener. grpc-js's bindAsync accepts every connection and
// gives no hook before it does; here the node accepts them itself, asks admission
// (public-admission.ts) about each — a connection over a limit is closed at once, before TLS or
// HTTP/2 read a byte of it — and hands the rest to the gRPC server through its connection injector,
// which serves them exactly as a bound port would (the same credentials, reloaded on SIGHUP, and
// server options). Like bindAsync, a host name is bound on every address it resolves to. A
// connection that sends nothing within FIRST_BYTE_MS of being accepted is closed: an idle socket
// would otherwise hold a slot of the connection limits for ever (grpc-js sets no timeout on a
// plaintext session that never sends its preface).
import { lookup } from 'node:dns/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import type { PublicAdmission } from './public-admission.js';

/** HOST:PORT (or [v6]:PORT) into its parts. */
export function splitHostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(colon + 1)) };
}

/** How long an accepted connection may send nothing (not even the start of a TLS handshake or the HTTP/2 preface). */
export const FIRST_BYTE_MS = 10_000;

export class PublicPort {
  private readonly listeners: Server[] = [];
  /**
   * Accepted and handed to gRPC, not yet closed, by the client's address and port (as grpc-js's
   * getPeer() names a call's connection): what a forced stop destroys (a TLS handshake in progress
   * is no session yet), and what closeConnection finds.
   */
  private readonly sockets = new Map<string, Socket>();
  private injector: grpc.ConnectionInjector | undefined;

  constructor(
    private readonly server: grpc.Server,
    private readonly admission: () => PublicAdmission | undefined,
    private readonly firstByteMs = FIRST_BYTE_MS,
  ) {}

  /** Listen on `address` with `creds`; resolves with the bound port. On failure nothing stays bound. */
  async listen(address: string, creds: grpc.ServerCredentials): Promise<number> {
    const { host, port } = splitHostPort(address);
    const addresses = (await lookup(host, { all: true })).map((a) => a.address);
    const injector = (this.injector = this.server.createConnectionInjector(creds));
    let bound = port;
    try {
      for (const a of [...new Set(addresses)]) {
        const l = createServer({ noDelay: true }, (socket) => this.accepted(socket, injector));
        await new Promise<void>((resolve, reject) => {
          l.once('error', reject);
          l.listen({ host: a, port: bound }, () => {
            l.off('error', reject);
            resolve();
          });
        });
        this.listeners.push(l);
        // Port 0: the first address picks it, the others take the same (as grpc-js does).
        const at = l.address();
        if (at && typeof at === 'object') bound = at.port;
      }
    } catch (e) {
      this.close();
      throw e;
    }
    return bound;
  }

  private accepted(socket: Socket, injector: grpc.ConnectionInjector): void {
    // Errors of a refused or dropped socket are its own (ECONNRESET): never the process's.
    socket.on('error', () => {});
    if (this.admission()?.admitConnection(socket) === false) {
      socket.destroy();
      return;
    }
    // bytesRead, not a 'data' listener: the HTTP/2 session reads the socket itself.
    const idle = setTimeout(() => {
      if (socket.bytesRead === 0) socket.resetAndDestroy();
    }, this.firstByteMs);
    idle.unref();
    socket.once('close', () => clearTimeout(idle));
    const peer = peerOf(socket);
    this.sockets.set(peer, socket);
    socket.once('close', () => {
      if (this.sockets.get(peer) === socket) this.sockets.delete(peer);
    });
    injector.injectConnection(socket);
  }

  /**
   * Close the connection of `peer` (a call's getPeer()) at once, every stream on it; false if there
   * is none. A reset (RST), not a FIN: what the kernel still holds for the client is dropped too, and
   * a socket an HTTP/2 session has taken over does not always send its FIN on destroy().
   */
  closeConnection(peer: string): boolean {
    const socket = this.sockets.get(peer);
    if (!socket) return false;
    socket.resetAndDestroy();
    return true;
  }

  /** Stop accepting; the gRPC server's own shutdown ends the sessions it serves. */
  close(): void {
    for (const l of this.listeners.splice(0)) l.close();
  }

  /** Stop accepting and destroy every connection, sessions or not. */
  destroy(): void {
    this.close();
    this.injector?.destroy();
    for (const s of [...this.sockets.values()]) s.resetAndDestroy();
  }
}

/** A connection as grpc-js's getPeer() names it: address:port (an IPv6 address unbracketed). */
function peerOf(socket: Socket): string {
  return `${socket.remoteAddress ?? ''}:${socket.remotePort ?? ''}`;
}
