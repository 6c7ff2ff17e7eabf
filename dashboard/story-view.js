// Story mode's panels: the demo's captions (its current step, every step so far, the outcome) and
// the client timeline — Porcupine/Jepsen's history drawn live: one lane per client, each call an
// interval from invoke to complete, what the client believes (holds a lock; paused and still
// thinking it holds), its lease's trust deadline as it computes it, and where the cluster expired
// its lease or granted it a lock. DOM and textContent only.
import { h } from './view.js';

const fmt = (x) => Number(x).toLocaleString('en-US');
const clock = (at) => new Date(at).toLocaleTimeString('en-GB', { hour12: false }) + `.${String(Math.floor(at % 1000)).padStart(3, '0')}`;

export function renderStory(story, status) {
  const panel = document.getElementById('story');
  if (!story) return panel.replaceChildren();
  const last = story.lines.at(-1);
  const state = story.end ? (story.end.ok ? 'ok' : 'failed') : story.demo ? 'running' : 'waiting';
  panel.dataset.state = state;
  panel.replaceChildren(
    h(
      'h2',
      {},
      'Story',
      h(
        'span',
        { class: 'hint' },
        story.demo
          ? `lockctl demo ${story.demo} --dashboard · ${story.stepMs} ms between steps${status === 'down' && !story.end ? ' · story server not reachable' : ''}`
          : status === 'live'
            ? 'connected: waiting for the demo to begin'
            : 'waiting for `lockctl demo NAME --dashboard`…',
      ),
    ),
    story.title ? h('p', { class: 'story-title' }, story.title) : undefined,
    h('p', { class: 'caption', 'aria-live': 'polite' }, story.end ? `${story.end.ok ? 'OK' : 'FAILED'}: ${story.end.text}` : last ? last.text : '…'),
    h(
      'ol',
      { class: 'steps' },
      story.lines.map((l) =>
        h(
          'li',
          { dataset: { index: l.index === undefined ? '' : String(l.index) } },
          h(
            'span',
            { class: 'key' },
            l.index !== undefined ? `t${fmt(l.term ?? l.after.term)} · #${fmt(l.index)}` : l.term !== undefined ? `t${fmt(l.term)}` : '·',
          ),
          h('span', {}, l.text),
        ),
      ),
    ),
  );
}

/** Belief segments of a client: from each belief to the next (released and lost end them). */
function segments(c, to) {
  const out = [];
  c.beliefs.forEach((b, k) => {
    const end = c.beliefs[k + 1]?.at ?? to;
    const held = out.at(-1)?.lock ?? '';
    if (b.state === 'holds') out.push({ cls: 'holds', from: b.at, to: end, lock: b.lock, label: `holds ${b.lock} · token ${fmt(b.token)}` });
    else if (b.state === 'paused')
      out.push({ cls: 'paused', from: b.at, to: end, lock: b.lock, label: `paused — still thinks it holds ${b.lock} (token ${fmt(b.token)})` });
    else if (b.state === 'awake' && held) out.push({ cls: 'awake', from: b.at, to: end, lock: held, label: `awake — still thinks it holds ${held}` });
  });
  return out;
}

export function renderClients(story, now) {
  const panel = document.getElementById('clients');
  if (!story || story.clients.size === 0)
    return panel.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        story?.demo ? 'this demo has no named clients yet' : 'no story: run `lockctl demo NAME --dashboard` and open the address it prints',
      ),
    );
  const { from, to } = story.span(now);
  const x = (t) => `${(Math.max(0, Math.min(1, (t - from) / (to - from))) * 100).toFixed(2)}%`;
  const w = (a, b) => `${Math.max(0.15, ((Math.min(b, to) - Math.max(a, from)) / (to - from)) * 100).toFixed(2)}%`;
  const seconds = Math.floor((to - from) / 1000);
  const step = seconds > 20 ? 5 : seconds > 8 ? 2 : 1;
  const axis = h(
    'div',
    { class: 'axis' },
    Array.from({ length: Math.floor(seconds / step) + 1 }, (_, k) => h('span', { class: 'tick', style: { left: x(from + k * step * 1000) } }, `${k * step} s`)),
  );
  const lanes = [...story.clients.values()].map((c) => {
    const ops = [...c.ops.values()].map((o) =>
      h(
        'div',
        {
          class: `op ${o.end === undefined ? 'pending' : o.ok ? 'ok' : 'refused'}`,
          style: { left: x(o.start), width: w(o.start, o.end ?? to) },
          dataset: { start: String(o.start), end: String(o.end ?? '') },
          title: `${o.text} → ${o.end === undefined ? 'pending' : o.result} (${clock(o.start)}${o.end ? `–${clock(o.end)}, ${fmt(o.end - o.start)} ms` : ''})`,
        },
        h('span', {}, `${o.text}${o.end !== undefined ? ` → ${o.result}` : ''}`),
      ),
    );
    const beliefs = segments(c, story.end?.at ?? to).map((s) =>
      h(
        'div',
        {
          class: `belief ${s.cls}`,
          style: { left: x(s.from), width: w(s.from, s.to) },
          dataset: { belief: s.cls, from: String(s.from), to: String(s.to) },
          title: s.label,
        },
        h('span', {}, s.label),
      ),
    );
    // Each lease's trust: from its grant to the deadline the client last computed; a deadline that
    // passed while the story ran is marked: from then on the client must not act on the lease.
    const trust = [...c.trust].flatMap(([leaseId, t]) => [
      h('div', {
        class: 'trust',
        style: { left: x(t.first), width: w(t.first, t.until) },
        title: `lease ${fmt(leaseId)} trusted until ${clock(t.until)} by ${c.name}'s own clock`,
      }),
      t.until <= to
        ? h(
            'div',
            {
              class: 'mark trust-deadline',
              style: { left: x(t.until) },
              dataset: { mark: 'trust-deadline', at: String(t.until), lease: String(leaseId) },
              title: `${c.name}'s trust deadline for lease ${fmt(leaseId)}: ${clock(t.until)} — sendTime(last acknowledged keepalive) + TTL, on its clock`,
            },
            h('span', {}, `trust deadline (lease ${fmt(leaseId)})`),
          )
        : undefined,
    ]);
    const marks = c.marks.map((m) =>
      h(
        'div',
        {
          class: `mark ${m.mark}`,
          style: { left: x(m.at) },
          dataset: { mark: m.mark, at: String(m.at) },
          title: `${m.text} (${clock(m.at)}, as the first node reported it)`,
        },
        h('span', {}, m.text),
      ),
    );
    return h(
      'div',
      { class: 'lane', dataset: { client: c.name } },
      h('div', { class: 'who' }, c.name, h('span', { class: 'leases' }, c.leases.size ? `lease ${[...c.leases].map(fmt).join(', ')}` : '')),
      h('div', { class: 'track' }, h('div', { class: 'row ops' }, ops), h('div', { class: 'row beliefs' }, beliefs, trust), marks),
    );
  });
  panel.replaceChildren(
    h('div', { class: 'lanes' }, h('div', { class: 'lane axis-lane' }, h('div', { class: 'who' }, ''), h('div', { class: 'track' }, axis)), lanes),
    h(
      'p',
      { class: 'legend-line' },
      'bars: calls, invoke → complete (green ok, red refused, grey pending) · band: what the client believes (solid: holds; hatched: paused, still thinks it holds) · thin line: its lease trusted by its own clock · dashed red: its trust deadline · orange: the cluster expired its lease · green tick: the cluster granted it a lock',
    ),
  );
}
