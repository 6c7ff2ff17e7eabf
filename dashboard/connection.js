// One node's /events, kept open: EventSource reconnects by itself after a dropped stream (the
// node's `retry: 1000`); when the browser gives up (a refused or non-200 answer) we open it again
// after REOPEN_MS. Every (re)connect begins with a fresh `state` snapshot, so nothing missed while
// away is ever patched over: the model is replaced. Events lost on a slow link (`event: lost`)
// would leave the model wrong, so that too reconnects at once, to a fresh snapshot.

const REOPEN_MS = 3000;
/** The event types of src/lockd/observe/observed-events.ts; an unknown type is simply not listened to. */
const TYPES = [
  'role',
  'leader-changed',
  'term-changed',
  'vote',
  'appended',
  'committed',
  'applied',
  'tick',
  'lease-granted',
  'lease-ended',
  'lock-granted',
  'lock-freed',
  'lock-mode',
  'waiter',
  'release',
  'fence',
  'snapshot',
  'disk-sync',
  'loop-lag',
  'progress',
];

export class NodeConnection {
  /** handlers: onState(snapshot), onHistory({ complete, events }), onEvent(ev), onLost(n), onStatus() */
  constructor(id, base, handlers) {
    this.id = id;
    this.base = base;
    this.h = handlers;
    this.status = 'connecting'; // connecting | live | down | refused (403: with TLS, no client certificate the node accepts)
    this.refusal = ''; // the node's reason, while refused
    this.since = Date.now();
    this.es = undefined;
    this.timer = undefined;
    this.open();
  }

  open() {
    clearTimeout(this.timer);
    this.es?.close();
    const es = new EventSource(`${this.base}/events`, { withCredentials: this.base.startsWith('https:') });
    this.es = es;
    es.addEventListener('state', (e) => {
      const s = parse(e.data);
      if (!s || s.node !== this.id) return this.fail(); // not the member we were told is there
      this.set('live');
      this.h.onState(s);
    });
    for (const t of TYPES)
      es.addEventListener(t, (e) => {
        const ev = parse(e.data);
        if (ev && ev.node === this.id) this.h.onEvent(ev);
      });
    es.addEventListener('history', (e) => {
      const h = parse(e.data);
      if (h && h.node === this.id) this.h.onHistory(h);
    });
    es.addEventListener('lost', (e) => {
      this.h.onLost(parse(e.data)?.lost ?? 0);
      this.open();
    });
    es.onerror = () => {
      if (es.readyState !== EventSource.CLOSED) return this.set('down'); // a dropped stream: EventSource retries
      // The browser gave up: a refused or non-200 answer, which EventSource does not show. Ask
      // again to see it: with TLS a 403 (no client certificate for this origin, or a principal that
      // may not read) is "certificate needed", not down; the node says why in the body.
      this.timer = setTimeout(() => this.open(), REOPEN_MS);
      this.diagnose(es);
    };
  }

  async diagnose(es) {
    let refusal = '';
    try {
      const res = await fetch(`${this.base}/cluster`, { credentials: this.base.startsWith('https:') ? 'include' : 'omit', cache: 'no-store' });
      if (res.status === 403) refusal = (await res.text()).trim().slice(0, 300) || 'refused (403)';
    } catch {
      // unreachable, or a TLS handshake the browser refused (a CA it does not trust): down
    }
    if (this.es !== es) return; // reopened meanwhile
    if (refusal && refusal !== this.refusal) {
      this.refusal = refusal;
      this.h.onStatus();
    }
    this.set(refusal ? 'refused' : 'down');
  }

  fail() {
    this.es?.close();
    this.set('down');
    this.timer = setTimeout(() => this.open(), REOPEN_MS);
  }

  /** A new address for this node (it restarted elsewhere): reconnect there. */
  moveTo(base) {
    if (base === this.base) return;
    this.base = base;
    this.open();
  }

  set(status) {
    if (status === this.status) return;
    this.status = status;
    this.since = Date.now();
    this.h.onStatus();
  }
}

function parse(data) {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
