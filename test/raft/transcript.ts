// Transcript tests for the consensus core (format: test/raft/transcripts/README.md): a file of
// commands, each followed by the output it must print. run() executes a file against real RaftNodes
// over MemoryStorage and returns the file as it should read; the test compares the two.
import {
  ConfChangeError,
  InvariantError,
  decodeConfigEntry,
  MemoryStorage,
  RaftNode,
  message,
  sendableBeforePersist,
  type Entry,
  type Message,
  type MessageType,
  type NodeId,
  type PlantedBug,
  type RaftConfig,
  type Ready,
  type Snapshot,
  type ConfChangeOp,
} from '../../src/raft/index.js';
import { seededRandom } from './harness.js';

export interface Block {
  /** 1-based line of the command. */
  readonly line: number;
  /** Comment and blank lines before the command, kept verbatim. */
  readonly preamble: readonly string[];
  readonly command: string;
  readonly expected: readonly string[];
}

/** Thrown for a malformed transcript (a typo must fail loudly, never become expected output). */
export class TranscriptError extends Error {}

export function parse(text: string): { blocks: Block[]; trailer: string[] } {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const blocks: Block[] = [];
  let preamble: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '' || l.startsWith('#')) {
      preamble.push(l);
      continue;
    }
    if (lines[i + 1] !== '----') throw new TranscriptError(`line ${i + 1}: command "${l}" is not followed by a "----" line`);
    const expected: string[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j].trim() !== ''; j++) expected.push(lines[j]);
    blocks.push({ line: i + 1, preamble, command: l, expected });
    preamble = [];
    i = j - 1;
  }
  return { blocks, trailer: preamble };
}

export function render(blocks: readonly Block[], outputs: readonly (readonly string[])[], trailer: readonly string[]): string {
  const out: string[] = [];
  blocks.forEach((b, k) => out.push(...b.preamble, b.command, '----', ...outputs[k]));
  out.push(...trailer);
  return out.join('\n') + '\n';
}

/** Runs every command of a transcript; returns each command's output lines. */
export function run(blocks: readonly Block[]): string[][] {
  const world = new World();
  return blocks.map((b) => {
    try {
      const out = world.exec(b.command);
      return out.length > 0 ? out : ['ok'];
    } catch (e) {
      if (e instanceof TranscriptError) throw new TranscriptError(`line ${b.line}: ${b.command}: ${e.message}`);
      throw e;
    }
  });
}

// ---- the world a transcript drives ----------------------------------------------------------

interface Node {
  /** Replaced by `restart`: a new RaftNode over the same storage (the disk survives, memory does not). */
  raft: RaftNode;
  readonly storage: MemoryStorage;
  readonly peers: readonly NodeId[];
  /** What the node was built with, for `restart`. */
  readonly cfg: RaftConfig;
  /** A Ready handed out by `take` and not yet advanced: what of it is on disk, what is still held back. */
  taken?: Taken;
}

interface Taken {
  readonly rd: Ready;
  persisted: boolean;
  /** Its messages not yet released to the network. */
  held: Message[];
}

type Args = Map<string, string>;

class World {
  private readonly nodes = new Map<NodeId, Node>();
  private queue: Message[] = [];
  private readonly cut = new Set<string>();

  exec(command: string): string[] {
    const [verb, ...rest] = command.trim().split(/\s+/);
    const pos = rest.filter((w) => !w.includes('='));
    const args: Args = new Map(rest.filter((w) => w.includes('=')).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
    switch (verb) {
      case 'cluster':
        if (args.has('peers')) throw new TranscriptError('cluster: the peers are the nodes named');
        for (const id of pos) this.addNode(id, pos, args);
        return [];
      case 'node': {
        // peers=none: a node joining an existing cluster, with no configuration of its own.
        const peers = need(args, 'peers');
        this.addNode(one(pos), peers === 'none' ? [] : list(peers), args);
        return [];
      }
      case 'conf': {
        allow(args, ['expect']);
        if (pos.length !== 3) throw new TranscriptError('conf <id> <op> <node> [expect=<config index>]');
        const [id, op, target] = pos;
        if (!CONF_OPS.includes(op as ConfChangeOp)) throw new TranscriptError(`op ${op} is not one of ${CONF_OPS.join(' ')}`);
        const expectConfigIndex = args.has('expect') ? num(need(args, 'expect')) : undefined;
        try {
          const at = this.node(id).raft.proposeConfChange({ op: op as ConfChangeOp, node: target, expectConfigIndex });
          return [`${at.index}@${at.term}`];
        } catch (e) {
          if (!(e instanceof ConfChangeError)) throw e;
          return [`refused ${e.reason}`];
        }
      }
      case 'campaign':
        return guard(() => this.node(one(pos)).raft.campaign());
      case 'tick': {
        allow(args, ['n']);
        const times = num(args.get('n') ?? '1');
        return guard(() => {
          for (let k = 0; k < times; k++) for (const id of pos) this.node(id).raft.tick();
        });
      }
      case 'propose': {
        const [id, data] = two(pos);
        const at = this.node(id).raft.propose(new TextEncoder().encode(data));
        return [at ? `${at.index}@${at.term}` : 'refused'];
      }
      case 'read': {
        const [id, ctx] = two(pos);
        return [this.node(id).raft.readIndex(ctx) ? 'ok' : 'refused'];
      }
      case 'transfer': {
        const [id, to] = two(pos);
        return [this.node(id).raft.transferLeader(to) ? 'ok' : 'refused'];
      }
      case 'unreachable': {
        const [id, to] = two(pos);
        this.node(id).raft.reportUnreachable(to);
        return [];
      }
      case 'compact': {
        const [id, at] = two(pos);
        const { storage, raft } = this.node(id);
        storage.createSnapshot(num(at), new TextEncoder().encode(`snap@${at}`), raft.configurationAt(num(at)));
        storage.compact(num(at));
        return [];
      }
      case 'send': {
        const m = this.handBuilt(one(pos), args);
        this.queue.push(m);
        return [fmtMessage(m)];
      }
      case 'deliver':
        return this.deliver(filterOf(args)).flatMap(({ m, dropped, error }) => [`${dropped ? 'dropped ' : ''}${fmtMessage(m)}`, ...error.map((l) => `  ${l}`)]);
      case 'drop': {
        const f = filterOf(args);
        const dropped = this.queue.filter(f);
        this.queue = this.queue.filter((m) => !f(m));
        return dropped.map((m) => `dropped ${fmtMessage(m)}`);
      }
      case 'ready':
        return guard(() => this.processReady(one(pos)));
      // The steps of one Ready, one at a time (test/raft/transcripts/README.md, "A Ready step by step").
      case 'take':
        return this.take(one(pos));
      case 'persist':
        return this.persist(one(pos));
      case 'release':
        return this.release(one(pos));
      case 'advance':
        return guard(() => this.advance(one(pos)));
      case 'restart':
        return this.restart(one(pos));
      case 'stabilize':
        return this.stabilize(pos.length > 0 ? pos : [...this.nodes.keys()]);
      case 'cut': {
        const [a, b] = two(pos);
        this.cut.add(`${a}->${b}`).add(`${b}->${a}`);
        return [];
      }
      case 'heal':
        this.cut.clear();
        return [];
      case 'status':
        return this.status(one(pos));
      default:
        throw new TranscriptError(`unknown command "${verb}"`);
    }
  }

  private node(id: NodeId): Node {
    const n = this.nodes.get(id);
    if (!n) throw new TranscriptError(`no node "${id}"`);
    return n;
  }

  private addNode(id: NodeId, peers: readonly NodeId[], args: Args): void {
    allow(args, ['peers', 'log', 'compact', 'term', 'vote', 'commit', 'inflight', 'maxsize', 'promotelag', 'bug']);
    if (this.nodes.has(id)) throw new TranscriptError(`node "${id}" exists`);
    const storage = new MemoryStorage(peers);
    if (args.has('log')) storage.append(parseEntries(need(args, 'log')));
    if (args.has('compact')) {
      const at = num(need(args, 'compact'));
      storage.createSnapshot(at, new TextEncoder().encode(`snap@${at}`));
      storage.compact(at);
    }
    const term = num(args.get('term') ?? '0');
    storage.setHardState({ term, vote: args.get('vote') ?? '', commit: num(args.get('commit') ?? '0') });
    const cfg: RaftConfig = {
      id,
      peers,
      storage,
      electionTicks: 10,
      heartbeatTicks: 1,
      random: seededRandom(1 + this.nodes.size),
      maxInflightMsgs: args.has('inflight') ? num(need(args, 'inflight')) : undefined,
      maxSizePerMsg: args.has('maxsize') ? num(need(args, 'maxsize')) : undefined,
      promoteMaxLag: args.has('promotelag') ? num(need(args, 'promotelag')) : undefined,
      plantedBug: args.get('bug') as PlantedBug | undefined,
    };
    this.nodes.set(id, { raft: new RaftNode(cfg), storage, peers, cfg });
  }

  private step(m: Message): void {
    this.node(m.to).raft.step(m);
  }

  /** Steps the queued messages that match `f` (in order); a message on a cut link is dropped. */
  private deliver(f: (m: Message) => boolean): { m: Message; dropped: boolean; error: string[] }[] {
    const now = this.queue.filter(f);
    this.queue = this.queue.filter((m) => !f(m));
    return now.map((m) => {
      const dropped = this.cut.has(`${m.from}->${m.to}`);
      return { m, dropped, error: dropped ? [] : guard(() => this.step(m)) };
    });
  }

  /** Persist, "send" (queue) and apply every Ready the node has. */
  private processReady(id: NodeId): string[] {
    const { raft, storage } = this.idle(id);
    const out: string[] = [];
    while (raft.hasReady()) {
      const rd = raft.ready();
      write(storage, rd);
      this.queue.push(...rd.messages);
      out.push(`${id} ready:`, ...fmtReady(rd).map((l) => `  ${l}`));
      raft.advance(rd);
    }
    return out;
  }

  private stabilize(ids: readonly NodeId[]): string[] {
    for (const id of ids) this.idle(id);
    const out: string[] = [];
    for (let round = 0; round < 100; round++) {
      for (const id of ids) out.push(...guard(() => this.processReady(id)));
      const delivered = this.deliver((m) => ids.includes(m.to));
      if (delivered.length === 0) return out;
      // A delivery prints nothing (its Ready printed the message) unless it is dropped or fails.
      for (const { m, dropped, error } of delivered) {
        if (dropped) out.push(`dropped ${fmtMessage(m)}`);
        if (error.length) out.push(`${m.to} stepping ${fmtMessage(m)}:`, ...error.map((l) => `  ${l}`));
      }
    }
    throw new TranscriptError('did not stabilize in 100 rounds');
  }

  /** The node, which must have no taken Ready (ready and stabilize handle whole Readies only). */
  private idle(id: NodeId): Node {
    const n = this.node(id);
    if (n.taken) throw new TranscriptError(`${id} has a taken Ready: persist, release and advance it first (or restart ${id})`);
    return n;
  }

  private taken(id: NodeId): Taken {
    const t = this.node(id).taken;
    if (!t) throw new TranscriptError(`${id} has no taken Ready (take ${id} first)`);
    return t;
  }

  /** Hand out one Ready and hold it: nothing of it is persisted or sent yet. */
  private take(id: NodeId): string[] {
    const n = this.idle(id);
    if (!n.raft.hasReady()) return [`${id} has no Ready`];
    const rd = n.raft.ready();
    n.taken = { rd, persisted: false, held: [...rd.messages] };
    return [`${id} ready:`, ...fmtReady(rd).map((l) => `  ${l}`)];
  }

  /** Write the taken Ready's hard state, snapshot and entries to the node's storage (its disk). */
  private persist(id: NodeId): string[] {
    const t = this.taken(id);
    if (t.persisted) throw new TranscriptError(`${id}'s taken Ready is persisted already`);
    write(this.node(id).storage, t.rd);
    t.persisted = true;
    return [];
  }

  /**
   * Send what of the taken Ready may go now, as the driver does: before it is persisted, only
   * what sendableBeforePersist allows (never anything when the batch changes the term or the vote);
   * after, everything left. Prints each message sent, and each one held back.
   */
  private release(id: NodeId): string[] {
    const t = this.taken(id);
    const now = t.held.filter((m) => t.persisted || sendableBeforePersist(t.rd, m));
    t.held = t.held.filter((m) => !now.includes(m));
    this.queue.push(...now);
    return [...now.map((m) => `sent ${fmtMessage(m)}`), ...t.held.map((m) => `held ${fmtMessage(m)}`)];
  }

  /** Apply and advance the taken Ready: it must be persisted and every message released. */
  private advance(id: NodeId): string[] {
    const n = this.node(id);
    const t = this.taken(id);
    if (!t.persisted || t.held.length > 0) throw new TranscriptError(`${id}'s taken Ready is not ${t.persisted ? 'all sent' : 'persisted'} yet`);
    n.taken = undefined;
    n.raft.advance(t.rd);
    return [];
  }

  /**
   * The node crashes and starts again from its storage: a taken Ready's unpersisted part and its
   * messages not yet released are lost; what it sent stays on the network. Prints what was on disk.
   */
  private restart(id: NodeId): string[] {
    const n = this.node(id);
    n.taken = undefined;
    n.raft = new RaftNode({ ...n.cfg, random: seededRandom(1 + [...this.nodes.keys()].indexOf(id)) });
    const hs = n.storage.hardState();
    return [`${id} restarted: hard term=${hs.term} vote=${hs.vote || '-'} commit=${hs.commit}, log ${fmtLog(n)}`];
  }

  private status(id: NodeId): string[] {
    const st = this.node(id).raft.status();
    const snap = this.node(id).storage.snapshot().metadata;
    const lines = [
      `${id}: ${st.role} term=${st.term} lead=${st.leader || '-'} commit=${st.commit} applied=${st.applied}`,
      `  log ${snap.index > 0 ? `snap=${snap.index}@${snap.term} ` : ''}${fmtLog(this.node(id))}`,
      `  config@${st.configIndex} voters=${st.voters.join(',') || '-'} learners=${st.learners.join(',') || '-'} removed=${st.removed.join(',') || '-'}${st.selfRemoved ? ' (self removed)' : ''}`,
    ];
    for (const [peer, pr] of st.progress) {
      if (peer === id) continue;
      lines.push(`  ${peer}: ${pr.state} match=${pr.match} next=${pr.next}${pr.recentActive ? '' : ' inactive'}`);
    }
    return lines;
  }

  private handBuilt(route: string, args: Args): Message {
    allow(args, ['type', 'term', 'prev', 'match', 'last', 'commit', 'entries', 'ctx', 'snap']);
    const [from, to] = route.split('->');
    const type = need(args, 'type') as MessageType;
    if (!MESSAGE_TYPES.includes(type)) throw new TranscriptError(`type=${type} is not one of ${MESSAGE_TYPES.join(' ')}`);
    if (!from || !to) throw new TranscriptError(`"${route}" is not <from>-><to>`);
    const at = (s: string | undefined) => (s === undefined ? [0, 0] : parseAt(s));
    const [index, logTerm] = at(args.get('prev') ?? args.get('match') ?? args.get('last'));
    let snapshot: Snapshot | undefined;
    if (args.has('snap')) {
      snapshot = this.node(from).storage.snapshot();
      const [si, st] = parseAt(need(args, 'snap'));
      if (snapshot.metadata.index !== si || snapshot.metadata.term !== st) {
        throw new TranscriptError(`${from}'s snapshot is ${snapshot.metadata.index}@${snapshot.metadata.term}, not ${si}@${st}`);
      }
    }
    return message({
      type,
      from,
      to,
      term: num(need(args, 'term')),
      index,
      logTerm,
      commit: num(args.get('commit') ?? '0'),
      entries: args.has('entries') ? parseEntries(need(args, 'entries')) : [],
      context: args.get('ctx') ?? '',
      snapshot,
    });
  }
}

/** Persist a Ready to a MemoryStorage (one synced write, as the driver's step 1). */
function write(storage: MemoryStorage, rd: Ready): void {
  if (rd.hardState) storage.setHardState(rd.hardState);
  if (rd.snapshot) storage.applySnapshot(rd.snapshot);
  storage.append(rd.entries);
}

// ---- printing -------------------------------------------------------------------------------

const dec = new TextDecoder();
const fmtEntry = (e: Entry) => {
  if (e.type === 'config') {
    const { change, config } = decodeConfigEntry(e.data, '', e.index);
    return `${e.index}@${e.term}:conf(${change.op} ${change.node}: voters=${config.voters.join(',')}${config.learners.length ? ` learners=${config.learners.join(',')}` : ''})`;
  }
  return `${e.index}@${e.term}${e.data.length > 0 ? `:${dec.decode(e.data)}` : ''}`;
};
const fmtEntries = (es: readonly Entry[]) => es.map(fmtEntry).join(' ');

export function fmtMessage(m: Message): string {
  const head = `${m.from}->${m.to} ${m.type} term=${m.term}`;
  const ctx = m.context ? ` ctx=${m.context}` : '';
  switch (m.type) {
    case 'App':
      return `${head} prev=${m.index}@${m.logTerm} commit=${m.commit}${m.entries.length ? ` entries=[${fmtEntries(m.entries)}]` : ''}`;
    case 'AppResp':
      return m.reject ? `${head} reject=${m.index} hint=${m.rejectHint}@${m.logTerm}` : `${head} match=${m.index}@${m.logTerm}`;
    case 'Vote':
    case 'PreVote':
      return `${head} last=${m.index}@${m.logTerm}${ctx}`;
    case 'VoteResp':
    case 'PreVoteResp':
      return `${head} ${m.reject ? 'rejected' : 'granted'}`;
    case 'Heartbeat':
      return `${head} commit=${m.commit}${ctx}`;
    case 'HeartbeatResp':
    case 'TimeoutNow':
      return `${head}${ctx}`;
    case 'Snap': {
      const md = m.snapshot!.metadata;
      const learners = md.learners?.length ? ` learners=${md.learners.join(',')}` : '';
      return `${head} snap=${md.index}@${md.term} voters=${md.voters.join(',')}${learners}`;
    }
  }
}

function fmtReady(rd: Ready): string[] {
  const out: string[] = [];
  if (rd.softState) out.push(`soft ${rd.softState.role} lead=${rd.softState.leader || '-'}${rd.softState.removed ? ' removed' : ''}`);
  if (rd.hardState) out.push(`hard term=${rd.hardState.term} vote=${rd.hardState.vote || '-'} commit=${rd.hardState.commit}`);
  if (rd.snapshot) out.push(`snapshot ${rd.snapshot.metadata.index}@${rd.snapshot.metadata.term}`);
  if (rd.entries.length) out.push(`append ${fmtEntries(rd.entries)}`);
  if (rd.committedEntries.length) out.push(`apply ${fmtEntries(rd.committedEntries)}`);
  for (const rs of rd.readStates) out.push(`read ${rs.context} at ${rs.index}`);
  for (const m of rd.messages) out.push(fmtMessage(m));
  return out;
}

/** The stored log, runs of one term folded: "1..5@1 6..8@2". */
function fmtLog(n: Node): string {
  const first = n.storage.firstIndex();
  const last = n.storage.lastIndex();
  const runs: string[] = [];
  let start = first;
  for (let i = first; i <= last; i++) {
    const t = n.storage.term(i);
    if (i === last || n.storage.term(i + 1) !== t) {
      runs.push(start === i ? `${i}@${t}` : `${start}..${i}@${t}`);
      start = i + 1;
    }
  }
  return runs.length ? runs.join(' ') : '(empty)';
}

// ---- argument parsing -----------------------------------------------------------------------

/** Runs `fn`; an InvariantError it throws is printed as output (a transcript may expect one). */
function guard(fn: () => string[] | void): string[] {
  try {
    return fn() ?? [];
  } catch (e) {
    if (!(e instanceof InvariantError)) throw e;
    return [`error: ${e.message}`];
  }
}

function allow(args: Args, keys: readonly string[]): void {
  for (const k of args.keys()) if (!keys.includes(k)) throw new TranscriptError(`unknown argument ${k}= (known: ${keys.join(' ')})`);
}

const CONF_OPS: readonly ConfChangeOp[] = ['addVoter', 'addLearner', 'promote', 'remove'];

const MESSAGE_TYPES: readonly MessageType[] = [
  'App',
  'AppResp',
  'Vote',
  'VoteResp',
  'PreVote',
  'PreVoteResp',
  'Heartbeat',
  'HeartbeatResp',
  'Snap',
  'TimeoutNow',
];

function num(s: string): number {
  if (!/^\d+$/.test(s)) throw new TranscriptError(`"${s}" is not a number`);
  return Number(s);
}

function one(pos: readonly string[]): string {
  if (pos.length !== 1) throw new TranscriptError(`expected one argument, got ${pos.length}`);
  return pos[0];
}

function two(pos: readonly string[]): [string, string] {
  if (pos.length !== 2) throw new TranscriptError(`expected two arguments, got ${pos.length}`);
  return [pos[0], pos[1]];
}

function need(args: Args, key: string): string {
  const v = args.get(key);
  if (v === undefined || v === '') throw new TranscriptError(`missing ${key}=`);
  return v;
}

const list = (s: string) => s.split(',').filter((x) => x !== '');

function parseAt(s: string): [number, number] {
  const m = /^(\d+)@(\d+)$/.exec(s);
  if (!m) throw new TranscriptError(`"${s}" is not <index>@<term>`);
  return [Number(m[1]), Number(m[2])];
}

/** "1..5@1,6@2" → entries 1..5 of term 1 and 6 of term 2, each with data "e<index>". */
function parseEntries(s: string): Entry[] {
  const out: Entry[] = [];
  for (const part of list(s)) {
    const m = /^(\d+)(?:\.\.(\d+))?@(\d+)$/.exec(part);
    if (!m) throw new TranscriptError(`"${part}" is not <i>@<term> or <i>..<j>@<term>`);
    const lo = Number(m[1]);
    const hi = Number(m[2] ?? m[1]);
    for (let i = lo; i <= hi; i++) out.push({ index: i, term: Number(m[3]), data: new TextEncoder().encode(`e${i}`) });
  }
  return out;
}

function filterOf(args: Args): (m: Message) => boolean {
  allow(args, ['from', 'to', 'type']);
  const from = args.get('from');
  const to = args.get('to');
  const type = args.get('type');
  return (m) => (!from || m.from === from) && (!to || m.to === to) && (!type || m.type === type);
}
