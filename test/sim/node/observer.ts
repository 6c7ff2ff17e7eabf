// Simulated Lock.Observe readers: each watches one lock on one node (followers too: Observe is
// served from local applies), and when its stream ends, watches again from another node. What
// every stream delivered is kept for checks.ts (checkObserve).
import type { Prng } from '../prng.js';
import type { ClientStream, Rpc } from './calls.js';
import type { World } from './world.js';

export interface SeenEvent {
  readonly type: string;
  readonly index: number;
  readonly leaseId: number;
  readonly token: number;
}

export interface ObservedStream {
  readonly observer: string;
  readonly node: string;
  readonly name: string;
  readonly openedAt: number;
  readonly events: SeenEvent[];
}

export class SimObserver {
  private stopped = false;

  constructor(
    readonly id: string,
    private readonly world: World,
    private readonly rpc: Rpc,
    private readonly nodes: readonly string[],
    private readonly names: readonly string[],
    private readonly prng: Prng,
    private readonly streams: ObservedStream[],
  ) {}

  stop(): void {
    this.stopped = true;
  }

  async run(): Promise<void> {
    const clock = this.rpc.clockOf(this.id);
    while (!this.stopped) {
      const node = this.prng.pick(this.nodes);
      const name = this.prng.pick(this.names);
      const rec: ObservedStream = { observer: this.id, node, name, openedAt: this.world.now, events: [] };
      this.streams.push(rec);
      const s: ClientStream = this.rpc.stream(this.id, node, '/lockd.v1.Lock/Observe', { name });
      await new Promise<void>((done) => {
        s.on('data', (ev: { type: string; index: number; leaseId: number; fencingToken: number }) =>
          rec.events.push({ type: ev.type, index: Number(ev.index), leaseId: Number(ev.leaseId), token: Number(ev.fencingToken) }),
        );
        s.on('error', () => {});
        s.on('status', () => done());
        // Readers come and go: a stream is kept for a while, then dropped.
        clock.after(this.prng.range(2000, 15000), () => {
          if (!s.finished) s.cancel();
        });
      });
      await new Promise<void>((r) => clock.after(this.prng.range(50, 500), r));
    }
  }
}
