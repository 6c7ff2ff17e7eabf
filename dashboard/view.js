// The panels, drawn with DOM nodes and textContent only: every string the nodes send (lock names,
// keys, messages) is text, never markup.

const fmt = (x) => Number(x).toLocaleString('en-US');

/** h('div', { class: 'x', dataset: { node: 'n1' } }, 'text', child, ...) */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'style') for (const [p, val] of Object.entries(v)) el.style.setProperty(p, val);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

function replace(id, ...children) {
  document.getElementById(id).replaceChildren(...children.filter((c) => c !== undefined));
}

function empty(text) {
  return h('p', { class: 'empty' }, text);
}

/** No node to read: the state is not known, which is not the same as empty (a lock may well be held). */
const UNKNOWN = 'unknown — no node reachable (the cluster may still hold leases, locks and keys: nothing can be read now)';
function unknown() {
  return h('p', { class: 'unknown' }, UNKNOWN);
}

function cutNote(cut, what) {
  return cut ? h('p', { class: 'cut' }, `showing part of the ${what}: the node's snapshot lists at most 200 rows per table`) : undefined;
}

/** A loop delay over this (ms) is a stall: the node's stall watch logs it (observe/stall-watch.ts). */
const LOOP_STALL_MS = 200;

/** nodes: [{ id, conn, model }], primary: id, maxCommit: the highest commit any node reported. */
export function renderNodes(nodes, primary, maxCommit) {
  replace(
    'nodes',
    ...nodes.map(({ id, conn, model }) => {
      const live = conn?.status === 'live' && model.synced;
      const role = live ? model.role : conn?.status === 'refused' ? 'refused' : conn ? 'down' : 'unknown';
      const lag = live ? Math.max(0, maxCommit - model.applied) : undefined;
      const stat = (label, value, cls = '') => h('div', { class: `stat ${cls}` }, h('span', { class: 'k' }, label), h('span', { class: 'v' }, value));
      return h(
        'article',
        { class: `node role-${role}${id === primary ? ' primary' : ''}`, dataset: { node: id, role, status: conn?.status ?? 'none' } },
        h('header', {}, h('span', { class: 'id' }, id), h('span', { class: `badge role-${role}` }, roleName(role, conn))),
        live
          ? [
              stat('term', fmt(model.term)),
              stat('last', fmt(model.last)),
              stat('commit', fmt(model.commit)),
              stat('applied', fmt(model.applied)),
              stat('lag', fmt(lag), lag > 0 ? 'behind' : 'caught-up'),
              stat('loop lag', model.loopLagMs === undefined ? '—' : `${fmt(model.loopLagMs)} ms`, model.loopLagMs > LOOP_STALL_MS ? 'behind' : 'caught-up'),
              h('div', { class: 'leader-of' }, model.role === 'leader' ? 'leads the cluster' : model.leader ? `follows ${model.leader}` : 'knows no leader'),
              logStrip(model),
              model.timing
                ? h(
                    'div',
                    {
                      class: 'timing',
                      title:
                        "this node's Raft timing: as follower it stands for election after hearing no leader for a timeout drawn at random in this range; as leader it sends heartbeats this often",
                    },
                    `election timeout ${fmt(model.timing.electionMs)}–${fmt(2 * model.timing.electionMs)} ms · heartbeat ${fmt(model.timing.heartbeatMs)} ms`,
                  )
                : undefined,
              model.role === 'leader' && model.progress ? progressList(model) : undefined,
            ]
          : h('p', { class: 'down-note' }, downNote(conn)),
        id === primary ? h('div', { class: 'reading' }, 'panels below read this node') : undefined,
      );
    }),
  );
}

/** Entries shown per node in the log strip. */
const STRIP_ENTRIES = 24;

/** A term's colour: the same term the same hue on every card. */
export function termHue(term) {
  return (term * 67) % 360;
}

/**
 * RaftScope's view of one log: the last entries, each coloured by its term (hatched: term not known
 * to the page), solid once committed, with the commit and applied indexes marked.
 */
function logStrip(model) {
  const cells = model.tail(STRIP_ENTRIES).map((e) =>
    h(
      'span',
      {
        class: `entry${e.term === undefined ? ' unknown-term' : ''}${e.committed ? ' committed' : ''}${e.applied ? ' applied' : ''}${e.index === model.commit ? ' commit-mark' : ''}${e.grants ? ' grants' : ''}`,
        dataset: { index: String(e.index), term: e.term === undefined ? '' : String(e.term), ...(e.grants ? { grants: e.grants.join('; ') } : {}) },
        style: e.term === undefined ? {} : { '--hue': String(termHue(e.term)) },
        title: `#${fmt(e.index)} · ${e.term === undefined ? 'term not known here (appended before the page connected)' : `term ${fmt(e.term)}`} · ${e.applied ? 'applied' : e.committed ? 'committed, not applied yet' : 'appended, not committed'}${e.grants ? ` · granted ${e.grants.join('; ')}` : ''}`,
      },
      e.term === undefined ? '' : String(e.term),
    ),
  );
  return h(
    'div',
    { class: 'log' },
    h('div', { class: 'strip', title: 'the last entries of this log, coloured by term; faded: not committed yet' }, cells),
    h(
      'div',
      { class: 'strip-key' },
      `#${fmt(Math.max(1, model.last - STRIP_ENTRIES + 1))}…#${fmt(model.last)} · commit #${fmt(model.commit)} · applied #${fmt(model.applied)}`,
    ),
  );
}

/** The leader's per-member replication progress: match (stored there) and next (sent next). */
function progressList(model) {
  return h(
    'div',
    {
      class: 'progress',
      title: "the leader's replication progress per follower, reported once a second: match = highest entry known stored there, next = the next it sends",
    },
    h('div', { class: 'progress-head' }, 'replication (≤ 1 s old)'),
    model.progress
      .filter((p) => p.id !== model.node)
      .map((p) =>
        h(
          'div',
          { class: 'follower', dataset: { follower: p.id } },
          h('span', { class: 'k' }, p.id),
          h(
            'span',
            { class: 'v' },
            `match ${fmt(p.match)} · next ${fmt(p.next)}${p.inflight ? ` · ${fmt(p.inflight)} in flight` : ''}${p.state === 'replicate' ? '' : ` · ${p.state}`}`,
          ),
        ),
      ),
  );
}

function roleName(role, conn) {
  if (role === 'down') return conn?.status === 'connecting' ? 'connecting' : 'down';
  if (role === 'refused') return 'certificate needed';
  return role;
}

function downNote(conn) {
  if (!conn) return 'no HTTP address known yet';
  if (conn.status === 'refused')
    return `up, but it refuses this browser: ${conn.refusal} — import a client certificate of the cluster's CA for this node's address too (every node's HTTP port asks for it; a read-only principal is enough), then reload`;
  return conn.status === 'down' ? `unreachable since ${new Date(conn.since).toLocaleTimeString()}; retrying` : 'connecting…';
}

export function renderClock(model, source) {
  document.getElementById('clock-now').textContent = model ? fmt(model.now) : '–';
  document.getElementById('clock-source').textContent = source ? `as applied by ${source}` : '';
  document.getElementById('clock-tick').textContent = !model
    ? 'unknown — no node reachable'
    : model.lastTick
      ? `last Tick: index ${fmt(model.lastTick.index)}, +${fmt(model.lastTick.elapsedMs)} ms`
      : 'no Tick seen since connecting (Ticks run only while a lease is live)';
}

export function renderLeases(model) {
  if (!model) return replace('leases', unknown());
  if (model.leases.size === 0) return replace('leases', empty('no live leases'));
  // Which locks each lease holds or waits for, read off the lock table (one source).
  const holds = new Map();
  const waits = new Map();
  for (const [name, l] of model.locks) {
    for (const x of l.holders) holds.set(x.leaseId, [...(holds.get(x.leaseId) ?? []), name]);
    for (const id of l.queue) waits.set(id, [...(waits.get(id) ?? []), name]);
  }
  const rows = [...model.leases]
    .sort((a, b) => a[0] - b[0])
    .map(([id, l]) => {
      const remaining = l.deadline - model.now;
      const frac = Math.max(0, Math.min(1, remaining / l.ttlMs));
      const level = frac > 0.5 ? 'ok' : frac > 0.2 ? 'warn' : 'low';
      return h(
        'tr',
        { dataset: { lease: String(id) } },
        h('td', { class: 'num' }, fmt(id)),
        h('td', { class: 'num' }, `${fmt(l.ttlMs)} ms`),
        h('td', { class: 'num' }, `${fmt(l.deadline)} ms`),
        h(
          'td',
          { class: 'bar-cell' },
          h('div', { class: `bar ${level}` }, h('span', { style: { width: `${(frac * 100).toFixed(1)}%` } })),
          h('span', { class: 'num remaining' }, `${fmt(remaining)} ms`),
        ),
        h(
          'td',
          { class: 'uses' },
          (holds.get(id) ?? []).map((name) => h('span', { class: 'chip held', title: 'holds' }, name)),
          (waits.get(id) ?? []).map((name) => h('span', { class: 'chip waits', title: 'waits for' }, name)),
        ),
      );
    });
  replace(
    'leases',
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}, 'lease'), h('th', {}, 'TTL'), h('th', {}, 'deadline'), h('th', {}, 'remaining'), h('th', {}, 'holds / waits'))),
      h('tbody', {}, rows),
    ),
    cutNote(model.cut.leases, 'leases'),
  );
}

export function renderLocks(model) {
  if (!model) return replace('locks', unknown());
  if (model.locks.size === 0) return replace('locks', empty('no lock is held or waited for'));
  const rows = [...model.locks]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([name, l]) => {
      const mode = lockMode(l);
      return h(
        'tr',
        { dataset: { lock: name, mode: mode.kind } },
        h(
          'td',
          { class: 'name' },
          name,
          h('div', { class: `mode mode-${mode.kind}`, title: mode.title }, mode.label),
          l.delayUntil > 0 && l.delayUntil > model.now
            ? h(
                'div',
                { class: 'delay', title: "lock-delay: its last holder's lease ended; nobody is granted it before this logical time" },
                `lock-delay until ${fmt(l.delayUntil)} ms (${fmt(l.delayUntil - model.now)} ms left)`,
              )
            : undefined,
        ),
        // A semaphore or shared readers: several holders, one line each (token beside its lease), each with its mode.
        h(
          'td',
          { class: 'num holders' },
          l.holders.length
            ? l.holders.map((x, k) =>
                h(
                  'div',
                  { dataset: { holder: String(x.leaseId), share: x.shared ? 'shared' : 'exclusive' } },
                  `lease ${fmt(x.leaseId)} `,
                  h(
                    'span',
                    { class: `hmode ${x.shared ? 'shared' : 'exclusive'}` },
                    l.election ? (k === 0 ? 'leader' : 'exclusive') : x.shared ? 'shared' : 'exclusive',
                  ),
                  l.election && x.value
                    ? h('span', { class: 'value', title: "the leader's value (Campaign, then each Proclaim)" }, ` ${JSON.stringify(x.value)}`)
                    : undefined,
                ),
              )
            : 'free',
        ),
        h('td', { class: 'num token' }, l.holders.length ? l.holders.map((x) => h('div', {}, fmt(x.token))) : '–'),
        h(
          'td',
          { class: 'queue' },
          l.queue.length ? l.queue.map((id, k) => h('span', { class: 'chip', title: `position ${k + 1}` }, fmt(id))) : h('span', { class: 'muted' }, 'empty'),
        ),
      );
    });
  replace(
    'locks',
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}, 'name · mode'), h('th', {}, 'holders'), h('th', {}, 'token'), h('th', {}, 'queue (next first)'))),
      h('tbody', {}, rows),
    ),
    cutNote(model.cut.locks, 'locks'),
  );
}

/**
 * What kind of lock a row is, so that several holders never look like an exclusion violation:
 * kind (mutex | semaphore | shared | election), a short label, and a sentence for its tooltip.
 */
export function lockMode(l) {
  const used = l.holders.length;
  if (l.election) {
    const leader = l.holders[0];
    return {
      kind: 'election',
      label: leader ? `election · leader lease ${fmt(leader.leaseId)}${leader.value ? ` = ${JSON.stringify(leader.value)}` : ''}` : 'election · no leader',
      title: 'An election (Election.Campaign): one leader at a time, holding a value it proclaims; the others wait in the queue.',
    };
  }
  if (l.permits > 1)
    return {
      kind: 'semaphore',
      label: `semaphore · ${fmt(used)}/${fmt(l.permits)} permits used`,
      title: `A semaphore: up to ${fmt(l.permits)} exclusive holders at once, each with its own token.`,
    };
  const readers = l.holders.filter((x) => x.shared).length;
  if (readers > 0)
    return {
      kind: 'shared',
      label: `read-write · ${fmt(readers)} shared reader${readers > 1 ? 's' : ''}`,
      title: 'A read-write lock held shared: readers coexist, a writer (exclusive) waits for them all.',
    };
  return { kind: 'mutex', label: used ? 'mutex · exclusive' : 'mutex', title: 'One exclusive holder at a time.' };
}

export function renderFence(model) {
  // A refusal is a decision, not state: it is known from the node's replayed history and the live events since.
  const noRefusal =
    model?.history && !model.history.complete
      ? `none among the ${fmt(model.history.count)} recent decisions ${model.node} replayed (older ones are not kept)`
      : `none since ${model?.node ?? 'the node'} started`;
  if (!model) return replace('fence', unknown());
  if (model.fence.size === 0) return replace('fence', empty('no fenced key written yet'));
  const rows = [...model.fence]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([key, f]) =>
      h(
        'tr',
        { dataset: { key }, class: f.refused ? 'has-refusal' : undefined },
        h('td', { class: 'name' }, key, f.deleted ? h('span', { class: 'muted' }, ' (deleted)') : undefined),
        h('td', { class: 'num token' }, fmt(f.token)),
        h(
          'td',
          {},
          f.refused
            ? h('span', { class: 'refusal' }, `refused ${fmt(f.refused.token)} < ${fmt(f.refused.highest)} at #${fmt(f.refused.index)}`)
            : h('span', { class: 'muted', title: noRefusal }, '–'),
        ),
      ),
    );
  replace(
    'fence',
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'key'), h('th', {}, 'highest token'), h('th', {}, 'last refusal'))), h('tbody', {}, rows)),
    cutNote(model.cut.fence, 'fenced keys'),
  );
}

/** One timeline row (newest on top); clicking it shows its explanation. */
export function timelineRow(row, onClick) {
  return h(
    'li',
    {
      class: `ev kind-${row.kind}`,
      dataset: { type: row.ev.type, index: String(row.ev.index ?? ''), term: String(row.pos.term), pos: String(row.pos.index) },
      tabindex: '0',
      onclick: onClick,
      onkeydown: (e) => (e.key === 'Enter' ? onClick() : undefined),
    },
    h(
      'span',
      { class: 'key' },
      row.ev.index !== undefined ? `t${fmt(row.pos.term)} · #${fmt(row.ev.index)}` : `t${fmt(row.pos.term)} · after #${fmt(row.pos.index)}`,
    ),
    h('span', { class: 'what' }, row.title),
    h('span', { class: 'from' }, `${row.seenBy} · ${new Date(row.ev.at).toLocaleTimeString()}`),
  );
}

export function renderExplanation(row) {
  replace(
    'explain',
    h(
      'div',
      { class: `explain-head kind-${row.kind}` },
      h('span', { class: 'key' }, row.ev.index !== undefined ? `term ${fmt(row.term)}, index ${fmt(row.ev.index)}` : `term ${fmt(row.term)}`),
      h('span', {}, row.title),
    ),
    h('p', { class: 'sentence' }, row.sentence),
    h('details', {}, h('summary', {}, `the event as ${row.seenBy} published it`), h('pre', {}, JSON.stringify(row.ev, null, 2))),
  );
}
