// The run's trace: every event is folded into a hash (two runs of one seed must produce the same hash),
// and the most recent events are kept in a ring buffer so a violation can show what led up to it.

export type TraceArg = string | number | boolean | undefined;

interface TraceEvent {
  step: number;
  kind: string;
  args: TraceArg[];
}

export class Trace {
  private readonly ring: (TraceEvent | undefined)[];
  private next = 0;
  private h1 = 0x811c9dc5;
  private h2 = 0x2545f491;
  count = 0;

  constructor(readonly capacity = 300) {
    this.ring = new Array<TraceEvent | undefined>(capacity);
  }

  event(step: number, kind: string, ...args: TraceArg[]): void {
    this.count++;
    this.foldNumber(step);
    this.foldString(kind);
    for (const a of args) {
      if (typeof a === 'number') this.foldNumber(a);
      else if (typeof a === 'string') this.foldString(a);
      else this.foldNumber(a === undefined ? -1 : a ? 1 : 0);
    }
    this.ring[this.next] = { step, kind, args };
    this.next = (this.next + 1) % this.capacity;
  }

  /** A hex digest of every event so far. */
  digest(): string {
    return (this.h1 >>> 0).toString(16).padStart(8, '0') + (this.h2 >>> 0).toString(16).padStart(8, '0');
  }

  /** The last `n` events, oldest first, one per line. */
  tail(n = 60): string[] {
    const out: string[] = [];
    const total = Math.min(n, this.capacity, this.count);
    for (let k = total; k >= 1; k--) {
      const e = this.ring[(this.next - k + this.capacity * 2) % this.capacity];
      if (e) out.push(`  [${e.step}] ${e.kind} ${e.args.filter((a) => a !== undefined).join(' ')}`);
    }
    return out;
  }

  private foldNumber(x: number): void {
    const lo = x | 0;
    const hi = Math.floor(x / 4294967296) | 0;
    this.h1 = Math.imul(this.h1 ^ lo, 0x01000193);
    this.h2 = Math.imul(this.h2 ^ hi ^ lo, 0x5bd1e995);
    this.h2 ^= this.h2 >>> 15;
  }

  private foldString(s: string): void {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      this.h1 = Math.imul(this.h1 ^ c, 0x01000193);
      this.h2 = Math.imul(this.h2 ^ c, 0x5bd1e995);
    }
    this.h2 ^= this.h2 >>> 13;
  }
}
