// The dashboard's model (dashboard/model.js) against the real state machine and the real event
// source: started from a snapshot taken after ANY prefix of a history that touches every command,
// and fed the events of the rest, it ends with exactly the state machine's own view — leases with
// deadlines, locks with their holders (semaphores, shared readers, a downgrade, a lock-delay) and
// queue, the fenced store's highest tokens, logical now.
// So the page is right without history, and the events carry everything it needs.
// Also: the sentences the page explains decisions with, from the same events.
import { expect } from 'chai';
import { setImmediate as turn } from 'node:timers/promises';
import { EventBus } from '../../../src/lockd/observe/bus.js';
import { EventHistory } from '../../../src/lockd/observe/event-history.js';
import type { ObservedEvent } from '../../../src/lockd/observe/observed-events.js';
import { NodeSource } from '../../../src/lockd/observe/node-source.js';
import { LockStateMachine, encodeCommand, type MachineView } from '../../../src/lockd/state-machine/index.js';
import { scriptedHistory } from '../state-machine/workload.js';

interface Model {
  synced: boolean;
  now: number;
  leases: Map<number, { ttlMs: number; deadline: number }>;
  locks: Map<
    string,
    { holders: { leaseId: number; token: number; shared: boolean; value: string }[]; queue: number[]; permits: number; election: boolean; delayUntil: number }
  >;
  fence: Map<string, { token: number; deleted: boolean; refused?: { token: number; highest: number; index: number } }>;
  applyState(s: unknown): void;
  applyEvent(ev: ObservedEvent): Record<string, number | undefined> | undefined;
  applyHistory(h: unknown): ObservedEvent[];
  history: { complete: boolean; count: number } | undefined;
}
interface Described {
  kind: string;
  title: string;
  sentence: string;
}
const modelUrl = new URL('../../../dashboard/model.js', import.meta.url).href;
const explainUrl = new URL('../../../dashboard/explain.js', import.meta.url).href;
const orderUrl = new URL('../../../dashboard/order.js', import.meta.url).href;

/** The model's tables in the view's shape, sorted the same way. */
function asView(m: Model): Pick<MachineView, 'now'> & { leases: unknown[]; locks: unknown[]; fence: unknown[] } {
  return {
    now: m.now,
    leases: [...m.leases].map(([leaseId, l]) => ({ leaseId, ttlMs: l.ttlMs, deadline: l.deadline })).sort((a, b) => a.leaseId - b.leaseId),
    locks: [...m.locks]
      .map(([name, l]) => ({ name, holders: l.holders, queue: l.queue, permits: l.permits, election: l.election, delayUntil: l.delayUntil }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
    fence: [...m.fence].map(([key, f]) => ({ key, token: f.token, deleted: f.deleted })).sort((a, b) => (a.key < b.key ? -1 : 1)),
  };
}

function ofView(v: MachineView) {
  return {
    now: v.now,
    leases: v.leases.rows,
    locks: v.locks.rows.map(({ name, holders, queue, permits, election, delayUntil }) => ({ name, holders, queue, permits, election, delayUntil })),
    fence: v.fence.rows,
  };
}

describe("dashboard model: a snapshot plus the events after it is the state machine's view", () => {
  let NodeModel: new (node: string) => Model;
  let describeEvent: (ev: ObservedEvent, ctx?: unknown, opts?: unknown) => Described | undefined;
  before(async () => {
    ({ NodeModel } = (await import(modelUrl)) as { NodeModel: typeof NodeModel });
    ({ describe: describeEvent } = (await import(explainUrl)) as { describe: typeof describeEvent });
  });

  /**
   * Apply the history on a real state machine, events through the real source and bus; from entry
   * `from` on, the model follows the events, and after each entry it is compared with the view.
   */
  async function replay(from: number) {
    const history = scriptedHistory();
    const sm = new LockStateMachine();
    const bus = new EventBus('n1', () => 1);
    const source = new NodeSource(bus, 'n1', undefined, sm);
    const model = new NodeModel('n1');
    let sub: ReturnType<EventBus['subscribe']> | undefined;
    const explained: Array<{ ev: ObservedEvent; d: Described | undefined }> = [];
    for (let i = 0; i < history.length; i++) {
      if (i === from) {
        // What /events does: subscribe and snapshot in one turn.
        sub = bus.subscribe(100_000, () => {});
        model.applyState({
          type: 'state',
          node: 'n1',
          seq: bus.lastSeq,
          term: 1,
          role: 'leader',
          leader: 'n1',
          lastIndex: i,
          commit: i,
          applied: i,
          machine: sm.view(10_000),
        });
      }
      const cmd = history[i];
      const entry = { index: i + 1, term: 1, data: cmd === 'noop' ? new Uint8Array(0) : encodeCommand(cmd) };
      source.applied(entry, sm.apply(entry));
      if (!sub) continue;
      for (const ev of sub.take().events) explained.push({ ev, d: describeEvent(ev, model.applyEvent(ev), { ticks: true }) });
      expect(asView(model), `snapshot after ${from} entries, then entries to ${entry.index}`).to.deep.equal(ofView(sm.view(10_000)));
    }
    await turn(); // the subscription's wake-up, harmless after the takes
    return { explained };
  }

  it('from every prefix of a history touching every command, compared after every entry', async () => {
    const n = scriptedHistory().length;
    for (let from = 0; from < n; from++) await replay(from);
  });

  it('a snapshot installed from the leader replaces the state under the model: it stops claiming to be synced (the page then reads a fresh snapshot)', async () => {
    const history = scriptedHistory();
    const at = 12; // the follower's state when the page connected, entries behind the leader's
    const follower = new LockStateMachine();
    const leader = new LockStateMachine();
    const apply = (sm: LockStateMachine, i: number) => {
      const cmd = history[i];
      return sm.apply({ index: i + 1, term: 1, data: cmd === 'noop' ? new Uint8Array(0) : encodeCommand(cmd) });
    };
    for (let i = 0; i < history.length; i++) {
      if (i < at) apply(follower, i);
      apply(leader, i);
    }
    const bus = new EventBus('n3', () => 1);
    const source = new NodeSource(bus, 'n3', undefined, follower);
    const model = new NodeModel('n3');
    const sub = bus.subscribe(1000, () => {});
    model.applyState({
      type: 'state',
      node: 'n3',
      seq: bus.lastSeq,
      term: 1,
      role: 'follower',
      leader: 'n1',
      lastIndex: at,
      commit: at,
      applied: at,
      machine: follower.view(10_000),
    });
    // What the driver does for an InstallSnapshot: 'persisted' (the event), then the restore.
    const snapshot = { metadata: { index: history.length, term: 1, voters: ['n1', 'n2', 'n3'] }, data: leader.snapshot() };
    source.driverEvent({
      kind: 'persisted',
      rd: { termOrVoteChanged: false, mustSync: true, entries: [], committedEntries: [], messages: [], readStates: [], snapshot },
    });
    follower.restore(snapshot.data);
    for (const ev of sub.take().events) model.applyEvent(ev);
    await turn();
    // The snapshot did change the state (the model's tables are not it) ...
    expect(asView(model)).to.not.deep.equal(ofView(follower.view(10_000)));
    // ... so the model must not be read as this node's state until a fresh snapshot replaces it.
    expect(model.synced).to.equal(false);
  });

  it("the last refusal of a fenced key comes from the node's replayed history, not the page's memory: a page that connected after it shows the same as one that watched it", async () => {
    const history = scriptedHistory();
    const sm = new LockStateMachine();
    const bus = new EventBus('n1', () => 1);
    const recent = new EventHistory(bus);
    const source = new NodeSource(bus, 'n1', undefined, sm);
    const watching = new NodeModel('n1');
    watching.applyState({
      type: 'state',
      node: 'n1',
      seq: 0,
      term: 1,
      role: 'leader',
      leader: 'n1',
      lastIndex: 0,
      commit: 0,
      applied: 0,
      machine: sm.view(10_000),
    });
    const sub = bus.subscribe(100_000, () => {});
    for (let i = 0; i < history.length; i++) {
      const cmd = history[i];
      const entry = { index: i + 1, term: 1, data: cmd === 'noop' ? new Uint8Array(0) : encodeCommand(cmd) };
      source.applied(entry, sm.apply(entry));
      for (const ev of sub.take().events) watching.applyEvent(ev);
    }
    // A page opened now (or reconnected after a failover): the snapshot, then the history.
    const late = new NodeModel('n1');
    late.applyState({
      type: 'state',
      node: 'n1',
      seq: bus.lastSeq,
      term: 1,
      role: 'leader',
      leader: 'n1',
      lastIndex: history.length,
      commit: history.length,
      applied: history.length,
      machine: sm.view(10_000),
    });
    expect(late.fence.get('out')?.refused).to.equal(undefined); // the snapshot alone cannot know it
    const replayed = late.applyHistory({ node: 'n1', ...recent.take() });
    expect(late.fence.get('out')?.refused).to.deep.equal({ token: 7168, highest: 17408, index: 20 });
    expect([...late.fence].map(([k, f]) => [k, f.refused])).to.deep.equal([...watching.fence].map(([k, f]) => [k, f.refused]));
    expect(late.history).to.deep.equal({ complete: true, count: replayed.length });
    expect(replayed.some((ev) => ev.type === 'lease-ended' && ev.leaseId === 5)).to.equal(true);
    recent.close();
    sub.close();
    await turn();
  });

  it("log strip: the last entries with their terms where the node said them (applied, or an append's last), commit and applied; the leader's match/next", () => {
    const model = new NodeModel('n1') as Model & { tail(n: number): unknown[]; progress: unknown };
    const base = { seq: 0, at: 0, node: 'n1', term: 3 };
    model.applyState({
      type: 'state',
      node: 'n1',
      seq: 0,
      term: 3,
      role: 'leader',
      leader: 'n1',
      lastIndex: 6,
      commit: 6,
      applied: 6,
      machine: { now: 0, applied: 6, leases: { rows: [], total: 0 }, locks: { rows: [], total: 0 }, fence: { rows: [], total: 0 } },
    });
    const evs = [
      { type: 'appended', first: 7, last: 9, lastTerm: 3 },
      { type: 'committed', index: 8 },
      { type: 'applied', index: 7, entryTerm: 2, command: 'Tick', ok: true },
      { type: 'applied', index: 8, entryTerm: 3, command: 'Tick', ok: true },
      { type: 'progress', followers: ['n1', 'n2'], match: [9, 8], next: [10, 9], state: ['replicate', 'probe'], inflight: [2, 0] },
    ];
    for (const [k, ev] of evs.entries()) model.applyEvent({ ...base, seq: k + 1, ...ev } as unknown as ObservedEvent);
    expect(model.tail(4)).to.deep.equal([
      { index: 6, term: undefined, committed: true, applied: true }, // before the page connected
      { index: 7, term: 2, committed: true, applied: true },
      { index: 8, term: 3, committed: true, applied: true },
      { index: 9, term: 3, committed: false, applied: false },
    ]);
    expect(model.progress).to.deep.equal([
      { id: 'n1', match: 9, next: 10, state: 'replicate', inflight: 2 },
      { id: 'n2', match: 8, next: 9, state: 'probe', inflight: 0 },
    ]);
    // A new leader cut the uncommitted #9 and appended its own entry there: the old term is gone.
    model.applyEvent({ ...base, seq: 9, type: 'role', role: 'follower', leader: 'n2' } as unknown as ObservedEvent);
    model.applyEvent({ ...base, seq: 10, type: 'appended', first: 9, last: 9, lastTerm: 4 } as unknown as ObservedEvent);
    expect(model.tail(1)).to.deep.equal([{ index: 9, term: 4, committed: false, applied: false }]);
    expect(model.progress).to.equal(undefined);
  });

  it("an election's row says how it was won: the votes granted against the quorum", () => {
    const ev = { seq: 1, at: 0, node: 'n4', term: 7, type: 'role', role: 'leader', leader: 'n4' } as unknown as ObservedEvent;
    const d = describeEvent(ev, { voters: ['n1', 'n2', 'n4'], members: 5 })!;
    expect(d.title).to.equal('n4 is leader of term 7 (3/5 votes, quorum 3)');
    expect(d.sentence).to.equal(
      'n4 won 3 votes of 5 (n1, n2, n4), a majority being 3, and leads term 7: it alone proposes entries, including the Ticks that advance logical time.',
    );
    expect(describeEvent(ev, {})!.sentence).to.match(/^n4 won a majority of votes and leads term 7/);
    // A candidate's why: the timeout it waited, by the node's own timing, and the quorum it needs.
    const cand = { ...ev, role: 'candidate', leader: '' } as unknown as ObservedEvent;
    expect(describeEvent(cand, { timing: { tickMs: 50, heartbeatMs: 100, electionMs: 1000 }, members: 5 } as never)!.sentence).to.equal(
      'n4 heard no leader within its election timeout (drawn at random in 1,000–2,000 ms: 20–40 ticks of 50 ms), raised its term to 7 and asked the others for votes (it needs a majority: 3 of 5).',
    );
  });

  it("a Tick's why says what the proposing leader measured, and that time beyond the cap is dropped", () => {
    const tick = { type: 'tick' as const, node: 'n3', term: 1, at: 0, seq: 1, index: 36, now: 3_503, elapsedMs: 200, renewed: [], deadlines: [], expired: [] };
    const leap = describeEvent({ ...tick, measuredMs: 60_101 } as ObservedEvent, { before: 3_303 }, { ticks: true })!;
    expect(leap.sentence).to.match(
      /^The leader's Tick at index 36 advanced logical time by 200 ms, from 3,303 ms to 3,503 ms \(n3 measured 60,101 ms since its previous Tick; one Tick counts at most the cap, so time beyond it is dropped/,
    );
    expect(describeEvent({ ...tick, elapsedMs: 99, measuredMs: 99 } as ObservedEvent, {}, { ticks: true })!.sentence).to.contain(
      '(n3 measured 99 ms since its previous Tick)',
    );
    expect(describeEvent(tick as ObservedEvent, {}, { ticks: true })!.sentence).to.not.contain('measured'); // a follower's copy
  });

  it('timeline order: (term, index), then time — an entry by its own, an unindexed row (election, demo step, node down) by where the log was', async () => {
    const { insertAt } = (await import(orderUrl)) as { insertAt: (rows: unknown[], row: unknown) => number };
    const row = (term: number, index: number, at: number) => ({ pos: { term, index }, at });
    const rows = [row(1, 3, 100), row(1, 5, 90), row(2, 5, 120), row(2, 9, 130)]; // row(2, 5): term 2's election, after #5
    expect(insertAt(rows, row(2, 10, 50))).to.equal(4); // newest entry: on top, whatever its clock
    expect(insertAt(rows, row(2, 7, 140))).to.equal(3); // between #5 … and #9
    expect(insertAt(rows, row(1, 1, 10))).to.equal(0);
    expect(insertAt(rows, row(2, 5, 125))).to.equal(3); // a demo step after the same entry: by time
    expect(insertAt(rows, row(2, 0, 999))).to.equal(2); // a replayed election of term 2: first in its term
  });

  it("story mode: a client's calls as intervals, its trust deadline, a pause, and the cluster's expiry and grant on its lane", async () => {
    const { StoryModel, storyUrl } = (await import(new URL('../../../dashboard/story.js', import.meta.url).href)) as {
      StoryModel: new () => {
        apply(e: unknown): { kind: string; title: string; pos: { term: number; index: number } } | undefined;
        noteCluster(ev: unknown): void;
        clients: Map<
          string,
          {
            ops: Map<number, { start: number; end?: number; ok?: boolean }>;
            trust: Map<number, { until: number }>;
            marks: { mark: string; at: number }[];
            beliefs: { state: string }[];
          }
        >;
        end?: { ok: boolean };
      };
      storyUrl: (search: string) => string;
    };
    expect(storyUrl('?story=http://127.0.0.1:7300')).to.equal('http://127.0.0.1:7300');
    for (const bad of ['?story=http://evil.example:7300', '?story=https://127.0.0.1:7300', '?story=http://127.0.0.1:7300/x', '?story=javascript:alert(1)', ''])
      expect(storyUrl(bad), bad).to.equal('');
    const s = new StoryModel();
    const after = { term: 1, index: 4 };
    let seq = 0;
    const e = (at: number, body: Record<string, unknown>) => s.apply({ seq: ++seq, at, after, ...body });
    expect(e(1000, { kind: 'begin', demo: 'gc-pause', title: 't', stepMs: 300 })?.kind).to.equal('story');
    e(1010, { kind: 'invoke', client: 'A', op: 1, text: 'grant lease, ttl 2000 ms' });
    e(1020, { kind: 'lease', client: 'A', leaseId: 2 });
    e(1020, { kind: 'trust', client: 'A', leaseId: 2, until: 3010 });
    e(1021, { kind: 'complete', client: 'A', op: 1, ok: true, text: 'lease 2' });
    e(1700, { kind: 'trust', client: 'A', leaseId: 2, until: 3690 });
    expect(e(1800, { kind: 'belief', client: 'A', state: 'paused', lock: 'L', token: 3072, text: 'A is paused' })?.title).to.equal('A is paused');
    s.noteCluster({ type: 'lease-ended', why: 'expired', leaseId: 2, index: 29, at: 4100 });
    s.noteCluster({ type: 'lease-ended', why: 'expired', leaseId: 99, index: 29, at: 4100 }); // not the story's
    const line = e(4200, { kind: 'line', text: 'Tick …', term: 1, index: 29 });
    expect(line?.pos).to.deep.equal({ term: 1, index: 29 });
    e(4300, { kind: 'end', ok: true, text: 'refused' });
    const a = s.clients.get('A')!;
    expect([...a.ops.values()][0]).to.include({ start: 1010, end: 1021, ok: true });
    expect(a.trust.get(2)!.until).to.equal(3690); // the last deadline it computed
    expect(a.marks).to.deep.equal([{ mark: 'expired', at: 4100, text: 'the cluster expired lease 2 at #29' }]);
    expect(a.beliefs.map((b) => b.state)).to.deep.equal(['paused']);
    expect(s.end?.ok).to.equal(true);
    expect(s.apply({ kind: 'invoke', client: 'x'.repeat(5000), op: 9, at: 1 })).to.equal(undefined); // long names are cut, never rows
  });

  it('explains decisions by their numbers: a lease expired (now vs deadline), a stale fenced write (token < highest), a stale release, a hand-off', async () => {
    const { explained } = await replay(0);
    const sentence = (pred: (ev: ObservedEvent) => boolean) => explained.find((x) => pred(x.ev))?.d?.sentence;
    // Lease 5 (TTL 250, margin 100, granted at now 0): deadline 350; the Tick at 15 takes now to 400.
    expect(sentence((ev) => ev.type === 'lease-ended' && ev.leaseId === 5)).to.equal(
      'Lease 5 expired at index 15: logical now 400 ms passed its deadline 350 ms (no keepalive renewed it in time).',
    );
    expect(sentence((ev) => ev.type === 'fence' && ev.index === 20)).to.match(
      /^Fenced write refused: token 7,168 < 17,408\. At index 20 the store refused the write of "out"/,
    );
    expect(sentence((ev) => ev.type === 'release' && ev.index === 22)).to.contain(
      'A Release of "alpha" with token 7,168 was refused at index 22: that token no longer holds the lock (the holder\'s token is 17,408)',
    );
    expect(sentence((ev) => ev.type === 'lock-granted' && ev.index === 23)).to.contain(
      'Lock "alpha" passed to its first waiter, lease 4, in the very entry that freed it (index 23): its fencing token is 23,552, this grant\'s own',
    );
    // Every row has a kind the page colours, and refusals are coloured as such.
    for (const { ev, d } of explained)
      if (d) expect(['election', 'grant', 'free', 'expire', 'refused', 'lease', 'tick', 'snapshot', 'info'], ev.type).to.include(d.kind);
    expect(explained.find((x) => x.ev.type === 'fence' && x.ev.index === 20)?.d?.kind).to.equal('refused');
  });
});
