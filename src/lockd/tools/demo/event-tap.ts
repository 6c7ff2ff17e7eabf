// The demos' view of what the nodes decided: every node's /events stream (server-sent events of
// the observation bus, src/lockd/observe), kept in arrival order. The dashboard reads the same
// stream; a demo keeps no bookkeeping of its own. A stream that breaks (its node killed, paused,
// restarted) is reopened every RECONNECT_MS until close(). On a TLS cluster the endpoint is HTTPS
// and asks for a client certificate (observe/http-access.ts): the tap presents the cluster's.
import { request, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ObservedEvent } from '../../observe/observed-events.js';
import { DemoFailure } from './framework.js';

const RECONNECT_MS = 250;
/** Events kept: a demo runs for seconds; a bound keeps a runaway cluster from filling memory. */
const MAX_EVENTS = 200_000;

export type Pick<T> = (ev: ObservedEvent) => T | undefined;

/** PEM contents: the CA that signed the nodes' certificates, and the client certificate to present. */
export interface TapTls {
  readonly ca: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export class EventTap {
  private readonly events: ObservedEvent[] = [];
  /** Events dropped from the front (the bound): positions count them. */
  private base = 0;
  private readonly waiters = new Set<() => void>();
  private readonly requests = new Set<ClientRequest>();
  private closed = false;
  /** Address → why its stream last failed (cleared when it delivers), for a failure message. */
  private readonly problems = new Map<string, string>();
  /** The highest entry any node reported applied, with its term (story mode places steps after it). */
  private lastApplied = { term: 0, index: 0 };

  constructor(
    addresses: readonly string[],
    private readonly tls?: TapTls,
  ) {
    for (const a of addresses) this.connect(a);
  }

  /** A position in the stream: find() from here on sees only what arrived after it. */
  mark(): number {
    return this.base + this.events.length;
  }

  /** The highest entry any node reported applied so far ({0, 0}: none yet). */
  position(): { term: number; index: number } {
    return this.lastApplied;
  }

  /** The first event from position `from` that `pick` maps to a value. */
  find<T>(pick: Pick<T>, from = 0): T | undefined {
    for (let k = Math.max(0, from - this.base); k < this.events.length; k++) {
      const v = pick(this.events[k]);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** The last event (of those kept) that `pick` maps to a value. */
  findLast<T>(pick: Pick<T>): T | undefined {
    for (let k = this.events.length - 1; k >= 0; k--) {
      const v = pick(this.events[k]);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** Wait (at most timeoutMs) for such an event; rejects saying what did not come. */
  async waitFor<T>(what: string, pick: Pick<T>, timeoutMs: number, from = 0, signal?: AbortSignal): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let scanned = from;
    for (;;) {
      const v = this.find(pick, scanned);
      if (v !== undefined) return v;
      scanned = this.mark();
      const left = deadline - Date.now();
      if (left <= 0) throw new DemoFailure(`expected ${what} within ${timeoutMs} ms, but no node's events showed it${this.streamProblems()}`);
      if (signal?.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(left, 200));
        this.waiters.add(done);
      });
    }
  }

  /** ` (event streams: ADDRESS: WHY; ...)` when some stream is failing, else ''. */
  private streamProblems(): string {
    return this.problems.size === 0 ? '' : ` (event streams: ${[...this.problems].map(([a, why]) => `${a}: ${why}`).join('; ')})`;
  }

  close(): void {
    this.closed = true;
    for (const r of this.requests) r.destroy();
    for (const w of [...this.waiters]) w();
  }

  private connect(address: string): void {
    if (this.closed) return;
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    const target = { host, port, path: '/events', headers: { accept: 'text/event-stream' } };
    const req = this.tls
      ? httpsRequest({ ...target, ca: this.tls.ca, ...(this.tls.cert && this.tls.key ? { cert: this.tls.cert, key: this.tls.key } : {}) })
      : request(target);
    this.requests.add(req);
    let again = false;
    const retry = (e?: Error): void => {
      if (e && !this.closed) this.problems.set(address, e.message);
      this.requests.delete(req);
      if (again || this.closed) return;
      again = true;
      setTimeout(() => this.connect(address), RECONNECT_MS).unref();
    };
    req.on('error', retry);
    req.on('close', retry);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        // A refusal (403: no certificate, or one whose principal may not read) says why in its body.
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body = (body + d).slice(0, 300)));
        res.on('end', () => this.problems.set(address, `HTTP ${res.statusCode}: ${body.trim()}`));
        return;
      }
      this.problems.delete(address);
      res.setEncoding('utf8');
      let buffered = '';
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let end: number;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          this.message(buffered.slice(0, end));
          buffered = buffered.slice(end + 2);
        }
      });
      res.on('error', retry);
    });
    req.end();
  }

  /** One SSE message: its `data:` line is an ObservedEvent (`event: lost` and comments are skipped). */
  private message(block: string): void {
    const data = block.split('\n').find((l) => l.startsWith('data: '));
    if (!data || /^event: lost$/m.test(block)) return;
    try {
      const ev = JSON.parse(data.slice(6)) as ObservedEvent;
      if (typeof ev?.type !== 'string' || typeof ev.node !== 'string') return;
      if (this.events.length >= MAX_EVENTS) {
        this.events.splice(0, MAX_EVENTS / 10);
        this.base += MAX_EVENTS / 10;
      }
      this.events.push(ev);
      if (ev.type === 'applied' && ev.index > this.lastApplied.index) this.lastApplied = { term: ev.entryTerm, index: ev.index };
    } catch {
      return; // not ours to judge: a demo only reads what it understands
    }
    for (const w of [...this.waiters]) w();
  }
}
