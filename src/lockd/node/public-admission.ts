// The port through which the public listener asks before it serves a connection or a call. The
// node knows nothing of the limits themselves: the API layer implements this
// (api/admission/admission.ts) and a registrar installs it (ServiceRegistry.setAdmission), as the
// node never imports a service. Without one, everything is admitted.
import type { Socket } from 'node:net';
import type * as grpc from '@grpc/grpc-js';

/** What admission knows of a call when its headers arrive (before any request message is read). */
export interface CallInfo {
  readonly path: string;
  /** A streaming method (either side): counted as a stream, else as a unary call. */
  readonly streaming: boolean;
  /** The caller's principal as the public guard derives it; undefined when it has none (the guard refuses the call). */
  readonly principal: string | undefined;
  /** The call's connection: the client's address and port. */
  readonly connection: string;
}

/** What the node gives admission in return: a way to close a client connection that cannot be ended otherwise. */
export interface ConnectionControl {
  /** Close the connection `peer` names (a call's getPeer(): address:port) and every stream on it; false if it is not open. */
  closeConnection(peer: string): boolean;
}

export interface PublicAdmission {
  /** A TCP connection accepted on the public port: false closes it at once, before TLS or HTTP/2 read a byte. */
  admitConnection(socket: Socket): boolean;
  /** A call whose headers arrived: a status refuses it; else the call is admitted and `release` runs once when it ends (status sent or cancelled). */
  admitCall(call: CallInfo): CallAdmission;
}

export type CallAdmission =
  | { readonly refused: grpc.StatusObject }
  | {
      readonly release: () => void;
      /** Each request message of an admitted call, decoded, before its handler sees it: a status refuses the call there (then `release` runs). */
      readonly received?: (message: unknown) => grpc.StatusObject | undefined;
    };
