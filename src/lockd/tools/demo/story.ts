// Story mode's record (`lockctl demo NAME --dashboard`): what the demo did and what each of its
// clients believed, as a bounded list of events the dashboard reads from story-server.ts. The
// cluster's own decisions are not here (the page reads them from the nodes); this is only what no
// node can know: the demo's steps and faults, each client's operations as invoke → complete
// intervals (Porcupine/Jepsen's history), and the trust deadline each client computes on its own
// clock. Times are wall-clock ms (Date.now()) of this machine, which is the nodes' machine too
// (cluster.sh runs them here), so the page can place them beside the nodes' events.
import { randomUUID } from 'node:crypto';

/** Events kept; a demo makes a few hundred. Past the bound, later ones are dropped (and `cut` said). */
export const STORY_EVENTS = 2000;
/** Longest text kept per event. */
export const STORY_TEXT = 400;

/** Where the log was when a step happened: the last entry any node reported applied (0, 0: none yet). */
export interface LogPosition {
  readonly term: number;
  readonly index: number;
}

export type StoryBody =
  /** The demo starts: its name and title; stepMs: the pause after each step. */
  | { readonly kind: 'begin'; readonly demo: string; readonly title: string; readonly stepMs: number }
  /** A line of the demo's timeline: an entry it names (term, index), or a step with no entry of its own. */
  | { readonly kind: 'line'; readonly text: string; readonly term?: number; readonly index?: number }
  /** A fault the demo did through cluster.sh: verb (kill, restart, start, isolate, heal, clock-jump, power-cut, pause, resume), nodes. */
  | { readonly kind: 'fault'; readonly verb: string; readonly nodes: readonly string[]; readonly text: string }
  /** A client's operation began (invoke) … */
  | { readonly kind: 'invoke'; readonly client: string; readonly op: number; readonly text: string }
  /** … and ended: ok, or refused with a gRPC code; text says what came back. */
  | { readonly kind: 'complete'; readonly client: string; readonly op: number; readonly ok: boolean; readonly text: string; readonly code?: string }
  /** Lease `leaseId` is this client's (the page maps the nodes' lease events to the client). */
  | { readonly kind: 'lease'; readonly client: string; readonly leaseId: number }
  /** The client trusts lease `leaseId` until `until` (wall ms): sendTime(last acknowledged keepalive) + ttl on its clock. */
  | { readonly kind: 'trust'; readonly client: string; readonly leaseId: number; readonly until: number }
  /**
   * What the client believes about a lock: holds (from its grant), paused (it cannot look at its
   * clock: it goes on believing it holds), awake (runs again), released, lost (it saw its lease end).
   */
  | {
      readonly kind: 'belief';
      readonly client: string;
      readonly state: 'holds' | 'paused' | 'awake' | 'released' | 'lost';
      readonly lock?: string;
      readonly token?: number;
      readonly text: string;
    }
  /** The demo ended: ok, and its outcome or what was seen instead. */
  | { readonly kind: 'end'; readonly ok: boolean; readonly text: string };

export type StoryEvent = StoryBody & {
  /** From 1 within one story. */
  readonly seq: number;
  /** Wall-clock ms when it happened. */
  readonly at: number;
  /** The log position when it happened (the page orders it after that entry). */
  readonly after: LogPosition;
};

export class Story {
  /** Tells one run from the next on the same port: the page starts afresh on a new id. */
  readonly id = randomUUID();
  private readonly events: StoryEvent[] = [];
  private readonly listeners = new Set<(e: StoryEvent) => void>();
  /** Events dropped by the bound. */
  cut = 0;

  constructor(private readonly position: () => LogPosition = () => ({ term: 0, index: 0 })) {}

  publish(body: StoryBody): void {
    if (this.events.length >= STORY_EVENTS) {
      this.cut++;
      return;
    }
    const text = 'text' in body && body.text.length > STORY_TEXT ? `${body.text.slice(0, STORY_TEXT - 1)}…` : undefined;
    const e = { ...body, ...(text === undefined ? {} : { text }), seq: this.events.length + 1, at: Date.now(), after: this.position() } as StoryEvent;
    this.events.push(e);
    for (const l of this.listeners) l(e);
  }

  /** Every event so far, oldest first. */
  all(): readonly StoryEvent[] {
    return this.events;
  }

  /** Calls `l` with each event from now on; returns the unsubscribe. */
  subscribe(l: (e: StoryEvent) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
