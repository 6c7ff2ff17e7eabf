// Story mode (`lockctl demo NAME --dashboard`): the demo's own record — its steps, the faults it
// injected, and what each of its clients did and believed — read from the demo process's story
// server, which the page is pointed at by `?story=http://127.0.0.1:PORT`. Only a loopback address
// is accepted (the demo runs on this machine), every count is bounded, and every string is drawn
// as text. StoryModel is pure: story events and the nodes' decisions in, lanes out.

/** Bounds on what the page keeps of one story (the demo's own bound is 2,000 events). */
const MAX_EVENTS = 2000;
const MAX_CLIENTS = 16;
const MAX_TEXT = 400;

/** The story server's base URL from the page's query, or '' (none, or not a loopback http URL). */
export function storyUrl(search) {
  const raw = new URLSearchParams(search).get('story');
  if (!raw) return '';
  try {
    const u = new URL(raw);
    const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]';
    return u.protocol === 'http:' && loopback && u.port !== '' && u.pathname === '/' && !u.search ? u.origin : '';
  } catch {
    return '';
  }
}

const text = (x) => (typeof x === 'string' ? x.slice(0, MAX_TEXT) : '');
const num = (x) => (Number.isFinite(x) ? x : undefined);

export class StoryModel {
  constructor() {
    this.reset('');
  }

  reset(id) {
    this.id = id;
    this.demo = '';
    this.title = '';
    this.stepMs = 0;
    this.startAt = undefined;
    this.end = undefined; // { ok, text, at }
    this.lines = []; // { text, term?, index?, after, at }
    this.count = 0;
    /** name → { name, ops: Map(op → { text, start, end?, ok?, result? }), leases: Set, trust: Map(leaseId → { first, until }), beliefs: [{ state, lock, token, at, text }], marks: [{ mark, at, text }] } */
    this.clients = new Map();
    /** leaseId → client name */
    this.leaseOwner = new Map();
  }

  client(name) {
    let c = this.clients.get(name);
    if (!c && this.clients.size < MAX_CLIENTS)
      this.clients.set(name, (c = { name, ops: new Map(), leases: new Set(), trust: new Map(), beliefs: [], marks: [] }));
    return c;
  }

  /**
   * One story event. Returns a timeline row's worth ({ kind, title, sentence, pos, at }) for the
   * events that are rows — steps, faults, a pause and a wake-up, the end — or undefined.
   */
  apply(e) {
    if (!e || typeof e !== 'object' || this.count >= MAX_EVENTS) return undefined;
    this.count++;
    const at = num(e.at) ?? Date.now();
    const after = { term: num(e.after?.term) ?? 0, index: num(e.after?.index) ?? 0 };
    this.startAt ??= at;
    switch (e.kind) {
      case 'begin':
        this.demo = text(e.demo);
        this.title = text(e.title);
        this.stepMs = num(e.stepMs) ?? 0;
        this.startAt = at;
        return {
          kind: 'story',
          title: `demo ${this.demo} begins`,
          sentence: `The demo ${this.demo} begins: ${this.title}. It pauses ${this.stepMs} ms after each step.`,
          pos: after,
          at,
          ev: e,
        };
      case 'line': {
        const line = { text: text(e.text), term: num(e.term), index: num(e.index), after, at };
        this.lines.push(line);
        const pos = line.term !== undefined ? { term: line.term, index: line.index ?? after.index } : after;
        return {
          kind: 'story',
          title: `demo: ${line.text}`,
          sentence: `A step of the demo, as it printed it: ${line.text}`,
          pos,
          at,
          ev: e,
          index: line.index,
        };
      }
      case 'fault':
        return {
          kind: 'fault',
          title: `fault: ${text(e.text)}`,
          sentence: `The demo did this through cluster.sh (${text(e.verb)} ${Array.isArray(e.nodes) ? e.nodes.slice(0, 8).map(text).join(', ') : ''}): ${text(e.text)}.`,
          pos: after,
          at,
          ev: e,
        };
      case 'invoke': {
        const c = this.client(text(e.client));
        if (c && c.ops.size < MAX_EVENTS) c.ops.set(e.op, { text: text(e.text), start: at });
        return undefined;
      }
      case 'complete': {
        const op = this.client(text(e.client))?.ops.get(e.op);
        if (op) Object.assign(op, { end: at, ok: e.ok === true, result: text(e.text) });
        return undefined;
      }
      case 'lease': {
        const c = this.client(text(e.client));
        if (c && num(e.leaseId) !== undefined) {
          c.leases.add(e.leaseId);
          this.leaseOwner.set(e.leaseId, c.name);
        }
        return undefined;
      }
      case 'trust': {
        const c = this.client(text(e.client));
        if (!c || num(e.until) === undefined) return undefined;
        const t = c.trust.get(e.leaseId) ?? { first: at, until: e.until };
        t.until = e.until;
        c.trust.set(e.leaseId, t);
        return undefined;
      }
      case 'belief': {
        const c = this.client(text(e.client));
        if (!c) return undefined;
        const b = { state: text(e.state), lock: text(e.lock), token: num(e.token), at, text: text(e.text) };
        c.beliefs.push(b);
        if (b.state !== 'paused' && b.state !== 'awake') return undefined;
        const trust = [...c.trust.values()].at(-1);
        return {
          kind: 'story',
          title: b.text,
          sentence:
            b.state === 'paused'
              ? `${c.name} stops the world: from now on it cannot read its clock or hear from the cluster. ${trust ? `By its own clock it trusts its lease until ${new Date(trust.until).toLocaleTimeString()} (sendTime of its last acknowledged keepalive + TTL); ` : ''}the cluster will expire the lease later still (its deadline adds the tick cap and drift margin), and may then grant the lock to another client — while ${c.name} still believes it holds it.`
              : `${c.name} runs again, still believing what it believed when it froze; a correct client checks its trust deadline before acting, and the fenced store refuses it if it does not.`,
          pos: after,
          at,
          ev: e,
        };
      }
      case 'end':
        this.end = { ok: e.ok === true, text: text(e.text), at };
        return {
          kind: e.ok === true ? 'story' : 'refused',
          title: `demo ${this.demo} ${e.ok === true ? 'OK' : 'FAILED'}: ${this.end.text}`,
          sentence: `The demo ended ${e.ok === true ? 'with the outcome its story promises' : 'without the outcome it promised'}: ${this.end.text}`,
          pos: after,
          at,
          ev: e,
        };
      default:
        return undefined;
    }
  }

  /** A node's decision about one of the story's leases: marks on its client's lane (first report wins). */
  noteCluster(ev) {
    if (ev.type === 'lease-ended' && ev.why === 'expired') this.mark(ev.leaseId, 'expired', ev.at, `the cluster expired lease ${ev.leaseId} at #${ev.index}`);
    else if (ev.type === 'lock-granted') this.mark(ev.leaseId, 'granted', ev.at, `granted ${ev.name}, token ${ev.token} at #${ev.index}`);
  }

  mark(leaseId, mark, at, what) {
    const c = this.clients.get(this.leaseOwner.get(leaseId));
    if (!c || c.marks.length >= 64 || c.marks.some((m) => m.mark === mark && m.text === what)) return;
    c.marks.push({ mark, at, text: what });
  }

  /** The axis: from the story's start to its end (or now while it runs). */
  span(now) {
    const from = this.startAt ?? now;
    return { from, to: Math.max(from + 1000, this.end?.at ?? now) };
  }
}

/** The story server's stream (EventSource reconnects by itself: the next demo on this port starts afresh). */
export function connectStory(base, onReplay, onEvent, onStatus) {
  const es = new EventSource(`${base}/story`);
  es.addEventListener('replay', (e) => {
    const r = parse(e.data);
    if (r && typeof r.story === 'string' && Array.isArray(r.events)) onReplay(r.story, r.events.slice(0, MAX_EVENTS));
    onStatus('live');
  });
  es.onmessage = (e) => {
    const ev = parse(e.data);
    if (ev && typeof ev.story === 'string') onEvent(ev.story, ev);
  };
  es.onerror = () => onStatus('down');
  return es;
}

function parse(data) {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
