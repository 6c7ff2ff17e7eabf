// The demos' tiny framework: a Scenario is a story with steps that print a timeline keyed by the
// Raft log (term, index) and checks that end it early, with what was seen, when the cluster did
// not do what the story says. `Demo` is what a step may use: the cluster (cluster.sh faults), the
// nodes' event streams, clients, and the timeline.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { LockClient, type NodeStatus } from '../../../client/index.js';
import type { ClusterControl } from './cluster-control.js';
import type { EventTap } from './event-tap.js';
import type { Story } from './story.js';
import { reportingClient, type StoryActor } from './story-client.js';

export interface Scenario {
  readonly name: string;
  /** One line: what the demo shows. */
  readonly title: string;
  /** Runs the story; resolves with the outcome in a sentence, throws DemoFailure when it did not happen. */
  run(d: Demo): Promise<string>;
}

/** The expected outcome was not observed: the message says what was seen instead. */
export class DemoFailure extends Error {
  override readonly name = 'DemoFailure';
}

export class Timeline {
  /** Wall-clock ms of the last line (story mode pauses after it). */
  lastLineAt = 0;

  constructor(
    private readonly out: Writable,
    private readonly json: boolean,
    /** Story mode: every line is a story step for the dashboard too. */
    private readonly story?: Story,
  ) {}

  header(): void {
    if (!this.json) this.out.write(`${'TERM'.padStart(5)}  ${'INDEX'.padStart(6)}  WHAT\n`);
  }

  /** A decision the log made: entry `index` of `term` (undefined: not an entry, e.g. a client action or a fault). */
  line(term: number | undefined, index: number | undefined, what: string): void {
    this.lastLineAt = Date.now();
    this.story?.publish({ kind: 'line', text: what, ...(term === undefined ? {} : { term }), ...(index === undefined ? {} : { index }) });
    if (this.json) this.out.write(`${JSON.stringify({ term: term ?? null, index: index ?? null, what })}\n`);
    else this.out.write(`${(term === undefined ? '·' : String(term)).padStart(5)}  ${(index === undefined ? '·' : `#${index}`).padStart(6)}  ${what}\n`);
  }
}

export interface DemoOptions {
  readonly cluster: ClusterControl;
  readonly events: EventTap;
  readonly timeline: Timeline;
  /** TLS files (paths), when the cluster runs with TLS. */
  readonly tls?: { readonly cacert?: string; readonly cert?: string; readonly key?: string };
  /** node's arguments that start lockctl (its entry point, after any loader flags), for holders run as child processes. */
  readonly lockctl: readonly string[];
  readonly signal: AbortSignal;
  /** Story mode (`--dashboard`): the record the dashboard reads, and the pause after each step (ms). */
  readonly story?: Story;
  readonly stepMs?: number;
}

export class Demo {
  readonly cluster: ClusterControl;
  readonly events: EventTap;
  readonly timeline: Timeline;
  readonly signal: AbortSignal;
  private readonly clients: LockClient[] = [];
  private readonly children = new Set<ChildProcess>();
  private readonly actors = new Map<string, StoryActor>();
  /** Story mode: the record the dashboard reads (undefined: terminal only). */
  readonly story: Story | undefined;
  /** A name no earlier run on this cluster used (locks and keys persist across demos). */
  readonly runId = Date.now().toString(36);

  constructor(private readonly opts: DemoOptions) {
    this.cluster = opts.cluster;
    this.events = opts.events;
    this.timeline = opts.timeline;
    this.signal = opts.signal;
    this.story = opts.story;
    const story = opts.story;
    if (story)
      this.cluster.watcher = {
        before: () => this.beat(),
        done: (verb, nodes, args) => story.publish({ kind: 'fault', verb, nodes, text: faultText(verb, nodes, args) }),
      };
  }

  /**
   * A client of every node (closed when the demo ends). Named (a story's character: "A", "B"),
   * it reports its calls and beliefs to the story in story mode; unnamed, it is the demo's own probe.
   */
  client(name?: string): LockClient {
    const c = new LockClient({ endpoints: this.cluster.endpoints, timeoutMs: 8_000, ...this.opts.tls });
    this.clients.push(c);
    if (!name || !this.story) return c;
    return reportingClient(c, this.actor(name), this.story);
  }

  private actor(name: string): StoryActor {
    let a = this.actors.get(name);
    if (!a) this.actors.set(name, (a = { name, paused: false, beat: () => this.beat() }));
    return a;
  }

  /**
   * Client `name` stops the world (a GC pause, a VM frozen): from now on it cannot look at its clock
   * or hear its lease end, so it goes on believing it holds `lock` (story mode draws that belief).
   */
  pause(name: string, lock: string, token: number): void {
    this.actor(name).paused = true;
    this.story?.publish({
      kind: 'belief',
      client: name,
      state: 'paused',
      lock,
      token,
      text: `${name} is paused: it still thinks it holds ${lock} (token ${token})`,
    });
  }

  /** Client `name` runs again, still believing what it believed when paused. */
  wake(name: string): void {
    this.actor(name).paused = false;
    this.story?.publish({ kind: 'belief', client: name, state: 'awake', text: `${name} wakes up` });
  }

  /** Story mode: wait until the last step has been on the page for stepMs (a pause between steps). */
  async beat(): Promise<void> {
    const left = this.timeline.lastLineAt + (this.opts.stepMs ?? 0) - Date.now();
    if (this.story && left > 0) await new Promise((r) => setTimeout(r, left));
  }

  /** Print a client action or a fault (no log entry of its own). */
  say(what: string): void {
    this.timeline.line(undefined, undefined, what);
  }

  /** Print what entry `index` decided, with its term (from the nodes' `applied` events). */
  async entry(index: number, what: string): Promise<void> {
    this.timeline.line(await this.termOf(index), index, what);
  }

  /** The term of log entry `index`, as a node applying it reported (waits briefly for one to). */
  async termOf(index: number): Promise<number | undefined> {
    try {
      return await this.events.waitFor(
        `entry ${index} applied`,
        (e) => (e.type === 'applied' && e.index === index ? e.entryTerm : undefined),
        3_000,
        0,
        this.signal,
      );
    } catch {
      return undefined;
    }
  }

  /** Fail the demo unless `ok`: `seen` says what happened instead of `expected`. */
  check(ok: boolean, expected: string, seen: string): void {
    if (!ok) throw new DemoFailure(`expected ${expected}, but ${seen}`);
  }

  /** Poll `probe` every 100 ms until it returns a value; DemoFailure naming `what` after timeoutMs. */
  async poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      this.signal.throwIfAborted();
      try {
        const v = await probe();
        if (v !== undefined) return v;
      } catch (e) {
        last = `: last error ${(e as Error).message}`;
      }
      if (Date.now() > deadline) throw new DemoFailure(`expected ${what} within ${timeoutMs} ms, but it did not happen${last}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Every node's Cluster.Status (nodes that do not answer within 800 ms are left out). */
  async statuses(): Promise<NodeStatus[]> {
    const c = this.clients[0] ?? this.client();
    return (await c.statusAll({ timeoutMs: 800 })).flatMap((s) => (s.status ? [s.status] : []));
  }

  /** The leader a majority of the answering nodes agree on, once there is one (bounded). */
  async leader(timeoutMs = 15_000, exclude?: string): Promise<NodeStatus> {
    return this.poll(
      `a leader${exclude ? ` other than ${exclude}` : ''}`,
      async () => {
        const all = await this.statuses();
        const leaders = all.filter((s) => s.role === 'leader' && s.nodeId !== exclude);
        const top = leaders.sort((a, b) => b.term - a.term)[0];
        if (!top) return undefined;
        const followers = all.filter((s) => s.leaderId === top.nodeId && s.term === top.term).length;
        return followers > this.cluster.size / 2 ? top : undefined;
      },
      timeoutMs,
    );
  }

  /** Start `lockctl ARGS` against this cluster as a child process (killed when the demo ends); named: drawn as that client's one operation. */
  lockctl(args: readonly string[], name?: string): ChildProcess {
    const tls = this.opts.tls;
    const tlsArgs = tls?.cacert ? ['--cacert', tls.cacert, ...(tls.cert && tls.key ? ['--cert', tls.cert, '--key', tls.key] : [])] : [];
    const proc = spawn(process.execPath, [...this.opts.lockctl, '--endpoints', this.cluster.endpoints.join(','), ...tlsArgs, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.children.add(proc);
    proc.once('exit', () => this.children.delete(proc));
    if (name && this.story) {
      const story = this.story;
      const op = 1_000_000 + this.children.size; // apart from the in-process clients' numbers
      story.publish({ kind: 'invoke', client: name, op, text: `lockctl ${args.join(' ')}`.slice(0, 200) });
      proc.once('exit', (code, sig) =>
        story.publish({
          kind: 'complete',
          client: name,
          op,
          ok: code === 0,
          text: sig ? `killed by ${sig}` : `exit ${code}`,
          ...(code === 0 ? {} : { code: sig ?? `exit ${code}` }),
        }),
      );
    }
    return proc;
  }

  /** Close clients, kill child processes (their process groups), undo faults. Problems are returned, not thrown. */
  async finish(): Promise<string[]> {
    this.cluster.watcher = this.story ? { before: async () => {}, done: this.cluster.watcher!.done } : undefined; // undoing faults: no pauses
    for (const c of this.clients) c.close();
    for (const p of this.children) {
      try {
        if (p.pid !== undefined) process.kill(-p.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    return this.cluster.restore();
  }
}

/** A fault in words, for its story row. */
function faultText(verb: string, nodes: readonly string[], args: readonly string[]): string {
  const which = nodes.join(', ');
  switch (verb) {
    case 'kill':
      return `${which} killed (kill -9): down`;
    case 'power-cut':
      return `power cut of ${which}: killed, unsynced writes dropped`;
    case 'pause':
      return `${which} paused (SIGSTOP)`;
    case 'resume':
      return `${which} resumed (SIGCONT)`;
    case 'isolate':
      return `${which} isolated: its Raft messages dropped`;
    case 'heal':
      return `${which} healed: Raft messages flow again`;
    case 'restart':
      return `${which} restarted from its data dir`;
    case 'start':
      return `cluster.sh start: every node not running started (${which})`;
    case 'clock-jump':
      return `${which}'s clock jumps ${args[2] ?? '?'} ms`;
    default:
      return `${verb} ${which}`;
  }
}

/** A call's outcome without throwing: its value, or the gRPC code name and message it failed with. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly code: string; readonly message: string };

export async function attempt<T>(call: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call };
  } catch (e) {
    const err = e as { codeName?: string; details?: string; message?: string };
    return { ok: false, code: err.codeName ?? 'ERROR', message: err.details ?? err.message ?? String(e) };
  }
}

/** How an outcome reads in a sentence. */
export function describe<T>(o: Outcome<T>): string {
  return o.ok ? `succeeded (${JSON.stringify(o.value)})` : `failed with ${o.code}: ${o.message}`;
}

/**
 * A call left running while the story goes on (a waiting Acquire), awaited later. If the demo fails
 * before it gets there, the call's rejection (its client closed) must not go unhandled and end
 * lockctl while it is still undoing its faults.
 */
export function pending<T>(call: Promise<T>): Promise<T> {
  call.catch(() => {});
  return call;
}

/** A lease nobody keeps alive (as `lockctl lease grant` makes one): it lives exactly its TTL of logical time. */
export async function unkeptLease(client: LockClient, ttlMs: number): Promise<number> {
  const lease = await client.grantLease(ttlMs, { renewNow: false });
  lease.close(); // stops this handle's keepalives; the lease itself lives on in the cluster
  return lease.id;
}

/**
 * The Tick that expired `leaseId`, as a node applied it (index, term of the node, logical now), and
 * the lease's deadline then: the last one the nodes published for it (its Grant's, or a renewing
 * Tick's) before that entry.
 */
export async function expiryTick(
  d: Demo,
  leaseId: number,
  timeoutMs: number,
  from = 0,
): Promise<{ index: number; term: number; now: number; node: string; deadline?: number }> {
  const tick = await d.events.waitFor(
    `a Tick expiring lease ${leaseId}`,
    (e) => (e.type === 'tick' && e.expired.includes(leaseId) ? { index: e.index, term: e.term, now: e.now, node: e.node } : undefined),
    timeoutMs,
    from,
    d.signal,
  );
  const deadline = d.events.findLast((e) => {
    if (!('index' in e) || e.index >= tick.index) return undefined;
    if (e.type === 'lease-granted' && e.leaseId === leaseId) return e.deadline;
    if (e.type === 'tick') {
      const k = e.renewed.indexOf(leaseId);
      return k >= 0 && e.deadlines[k] > 0 ? e.deadlines[k] : undefined;
    }
    return undefined;
  });
  return { ...tick, ...(deadline === undefined ? {} : { deadline }) };
}

/** The fenced write or delete of `key` under `token` (its entry index, verdict and reason). */
export function fenceEntry(d: Demo, key: string, token: number, from = 0): Promise<{ index: number; accepted: boolean; highest: number; reason?: string }> {
  return d.events.waitFor(
    `the fenced write of ${key} with token ${token}`,
    (e) =>
      e.type === 'fence' && e.key === key && e.token === token
        ? { index: e.index, accepted: e.accepted, highest: e.highest, ...(e.reason ? { reason: e.reason } : {}) }
        : undefined,
    5_000,
    from,
    d.signal,
  );
}

/** Resolves once `leaseId` waits in `name`'s queue (the entry that queued it). */
export function queued(d: Demo, name: string, leaseId: number, from = 0): Promise<number> {
  return d.events.waitFor(
    `lease ${leaseId} queued on ${name}`,
    (e) => (e.type === 'waiter' && e.name === name && e.leaseId === leaseId && e.action === 'queued' ? e.index : undefined),
    5_000,
    from,
    d.signal,
  );
}
