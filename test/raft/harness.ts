// A tiny synchronous cluster for unit tests: every node's Ready is persisted to its MemoryStorage
// at once, and messages are delivered in FIFO order unless a link is cut or a filter drops them.
import { MemoryStorage, RaftNode, type Entry, type Message, type NodeId, type RaftConfig } from '../../src/raft/index.js';

export interface TestNode {
  raft: RaftNode;
  storage: MemoryStorage;
  applied: Entry[];
  /** Contexts of the ReadStates its Readies carried, in order. */
  reads: string[];
}

/** A deterministic PRNG for the core's election jitter (mulberry32). */
export function seededRandom(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

export class TestCluster {
  readonly nodes = new Map<NodeId, TestNode>();
  private queue: Message[] = [];
  private readonly cut = new Set<string>(); // "from->to"
  /** Return false to drop a message. */
  filter: (m: Message) => boolean = () => true;
  readonly delivered: Message[] = [];

  constructor(ids: NodeId[], overrides: Partial<RaftConfig> = {}, seed = 1, makeStorage: (id: NodeId) => MemoryStorage = () => new MemoryStorage(ids)) {
    for (const id of ids) {
      const storage = makeStorage(id);
      const raft = new RaftNode({
        id,
        peers: ids,
        storage,
        electionTicks: 10,
        heartbeatTicks: 1,
        random: seededRandom(seed + ids.indexOf(id)),
        ...overrides,
      });
      this.nodes.set(id, { raft, storage, applied: [], reads: [] });
    }
  }

  /** A node joining the cluster with no configuration of its own (it learns it from the leader). */
  join(id: NodeId, overrides: Partial<RaftConfig> = {}): TestNode {
    const storage = new MemoryStorage([]);
    const raft = new RaftNode({ id, peers: [], storage, electionTicks: 10, heartbeatTicks: 1, random: seededRandom(99 + this.nodes.size), ...overrides });
    const n: TestNode = { raft, storage, applied: [], reads: [] };
    this.nodes.set(id, n);
    return n;
  }

  node(id: NodeId): TestNode {
    const n = this.nodes.get(id);
    if (!n) throw new Error(`no node ${id}`);
    return n;
  }

  isolate(id: NodeId): void {
    for (const other of this.nodes.keys()) {
      if (other === id) continue;
      this.cut.add(`${id}->${other}`);
      this.cut.add(`${other}->${id}`);
    }
  }

  cutLink(from: NodeId, to: NodeId): void {
    this.cut.add(`${from}->${to}`);
  }

  heal(): void {
    this.cut.clear();
  }

  /** Process every node's Ready (persist, queue messages, apply, advance). */
  flushReady(): void {
    for (const [, n] of this.nodes) {
      while (n.raft.hasReady()) {
        const rd = n.raft.ready();
        if (rd.hardState) n.storage.setHardState(rd.hardState);
        if (rd.snapshot) n.storage.applySnapshot(rd.snapshot);
        n.storage.append(rd.entries);
        this.queue.push(...rd.messages);
        for (const e of rd.committedEntries) if (e.data.length > 0) n.applied.push(e);
        for (const rs of rd.readStates) n.reads.push(rs.context);
        n.raft.advance(rd);
      }
    }
  }

  /** Deliver until quiet (bounded, so a livelock fails the test instead of hanging it). */
  stabilize(maxRounds = 1000): void {
    for (let round = 0; round < maxRounds; round++) {
      this.flushReady();
      if (this.queue.length === 0) return;
      const batch = this.queue;
      this.queue = [];
      for (const m of batch) {
        if (this.cut.has(`${m.from}->${m.to}`) || !this.filter(m)) continue;
        this.delivered.push(m);
        this.node(m.to).raft.step(m);
      }
    }
    throw new Error('cluster did not stabilize');
  }

  tickAll(times = 1): void {
    for (let k = 0; k < times; k++) {
      for (const [, n] of this.nodes) n.raft.tick();
      this.stabilize();
    }
  }

  /** Elect `id` by campaigning it directly. */
  elect(id: NodeId): void {
    this.node(id).raft.campaign();
    this.stabilize();
  }

  leaders(): NodeId[] {
    return [...this.nodes.values()].filter((n) => n.raft.status().role === 'leader').map((n) => n.raft.id);
  }

  propose(id: NodeId, text: string): { index: number; term: number } | undefined {
    const r = this.node(id).raft.propose(new TextEncoder().encode(text));
    this.stabilize();
    return r;
  }
}

export const text = (e: Entry): string => new TextDecoder().decode(e.data);

/** Entries written as "1@1 2@2 3..5@3" (index@term, a range shares its term), data "e<index>" (3 bytes below 10). */
export function ents(s: string): Entry[] {
  const out: Entry[] = [];
  for (const p of s.split(' ').filter(Boolean)) {
    const m = /^(\d+)(?:\.\.(\d+))?@(\d+)$/.exec(p);
    if (!m) throw new Error(`ents: ${JSON.stringify(p)} is not index@term or a..b@term`);
    for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]); i++) out.push({ index: i, term: Number(m[3]), data: new TextEncoder().encode(`e${i}`) });
  }
  return out;
}
