// Client connections in total and per remote IP address (ZooKeeper's maxClientCnxns, Consul's
// http_max_conns_per_client). A connection over either is closed as it is accepted, before TLS or
// HTTP/2 read a byte: the client sees its connection closed (gRPC UNAVAILABLE) and retries with
// backoff, and the refusal is counted and logged (as counts) here.
import type { Socket } from 'node:net';
import type { AdmissionSettings } from '../../node/admission-settings.js';
import { KeyedCounts, LimitUse } from './limit-use.js';

export class ConnectionLimits {
  private open = 0;
  private readonly perAddress = new KeyedCounts();
  readonly total: LimitUse;
  readonly byAddress: LimitUse;

  constructor(settings: AdmissionSettings, onRefusal?: (use: LimitUse) => void) {
    this.total = new LimitUse('max-connections', settings.maxConnections, () => this.open, onRefusal);
    this.byAddress = new LimitUse('max-connections-per-address', settings.maxConnectionsPerAddress, () => this.perAddress.max(), onRefusal);
  }

  /** Whether `socket` may be served; if so it is counted until it closes. */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress ?? '';
    if (this.open >= this.total.limit) {
      this.total.refuse(`${this.open} client connections are open`);
      return false;
    }
    if (this.perAddress.get(address) >= this.byAddress.limit) {
      this.byAddress.refuse(`from ${address}`);
      return false;
    }
    this.open++;
    this.perAddress.add(address, 1);
    socket.once('close', () => {
      this.open--;
      this.perAddress.add(address, -1);
    });
    return true;
  }

  /** Open connections from `address` (tests, status). */
  from(address: string): number {
    return this.perAddress.get(address);
  }
}
