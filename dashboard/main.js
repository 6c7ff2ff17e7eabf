// The study dashboard: reads every member's /events at once (their HTTP addresses come from
// /cluster), keeps one model per node, and draws the panels from one of them — the leader when it
// is reachable (its state is the freshest), else the node that served this page, else any live
// one. Killing any node, the one that served the page included, only greys out its card.
import { NodeModel } from './model.js';
import { NodeConnection } from './connection.js';
import { describe, dedupKey } from './explain.js';
import { insertAt } from './order.js';
import { renderClock, renderExplanation, renderFence, renderLeases, renderLocks, renderNodes, timelineRow } from './view.js';
import { StoryModel, connectStory, storyUrl } from './story.js';
import { renderClients, renderStory } from './story-view.js';

/** Rows in the timeline; older ones scroll away. */
const TIMELINE_ROWS = 400;
/** Decisions remembered to show each once although every node reports it. */
const SEEN_KEYS = 8192;
const CLUSTER_POLL_MS = 5000;
/** Events the node cards and tables read, never timeline rows. */
const QUIET = new Set(['appended', 'committed', 'disk-sync', 'loop-lag', 'lock-mode', 'progress']);
const RENDER_MS = 150;

const members = new Map(); // id → { id, conn?: NodeConnection, model: NodeModel }
const seen = new Map(); // dedup key → true, oldest first
const rows = []; // timeline rows, newest last
let origin = ''; // the node that served this page
let lost = 0;
let selected;
let dirty = false;
let primary = '';
/** Story mode: the demo's record (undefined: no ?story= on this page). */
const storyBase = storyUrl(location.search);
const story = storyBase ? new StoryModel() : undefined;
let storyStatus = 'connecting';
let storySeq = 0;
/** Whether any node was live before (so "every node down" is news, not the page still connecting). */
let everLive = false;
let allDown = false;

const opts = () => ({ ticks: document.getElementById('show-ticks').checked, raft: document.getElementById('show-raft').checked });

function member(id) {
  let m = members.get(id);
  if (!m) members.set(id, (m = { id, conn: undefined, model: new NodeModel(id) }));
  return m;
}

/** Merge a /cluster answer: open a stream to every member with an address. */
function learn(cluster) {
  if (!cluster || !Array.isArray(cluster.members)) return;
  for (const { id, http } of cluster.members.slice(0, 64)) {
    if (typeof id !== 'string' || typeof http !== 'string') continue;
    const m = member(id);
    const base = http ? `${location.protocol}//${http}` : id === origin ? location.origin : '';
    if (!base) continue;
    if (!m.conn) m.conn = new NodeConnection(id, base, handlers(m));
    else m.conn.moveTo(base);
  }
  changed();
}

function handlers(m) {
  return {
    onState: (s) => {
      m.model.applyState(s);
      changed();
    },
    onHistory: (h) => {
      // Decisions made before this connection (or while the page was away): timeline rows, in
      // their place by index; the node already applied them, so they change no table.
      for (const ev of m.model.applyHistory(h)) record(m, ev, { ...electionContext(ev), ...(m.model.timing ? { timing: m.model.timing } : {}) }, ev.term);
      changed();
    },
    onEvent: (ev) => {
      const mine = m.model.applyEvent(ev);
      const votes = electionContext(ev);
      const ctx = mine || votes ? { ...votes, ...mine } : undefined;
      record(m, ev, ctx);
      if (!m.model.synced) m.conn.open(); // the events cannot follow (a snapshot was installed): a fresh state
      changed();
    },
    onLost: (k) => {
      lost += k;
      changed();
    },
    onStatus: () => {
      noteStatus(m);
      changed();
    },
  };
}

/** Where the log stands as far as the page knows: the highest term and applied index any node reported. */
function logPosition() {
  let term = 0;
  let index = 0;
  for (const m of members.values()) {
    term = Math.max(term, m.model.term);
    index = Math.max(index, m.model.applied);
  }
  return { term, index };
}

/** A node's stream dropped or came back, and every node down: rows of their own (the page saw them). */
function noteStatus(m) {
  const now = m.conn?.status;
  const was = m.seen;
  m.seen = now;
  const at = Date.now();
  const pos = logPosition();
  const row = (kind, title, sentence, type) => addRow({ ev: { type, node: m.id, at }, kind, title, sentence, term: pos.term, seenBy: 'page', pos, at });
  if (now === 'live') everLive = true;
  if (was === 'live' && now === 'down')
    row(
      'fault',
      `${m.id} down: its stream dropped`,
      `The page lost ${m.id}'s /events stream at ${new Date(at).toLocaleTimeString()} and cannot reach it (killed, stopped, or cut off): its card is drawn down until it answers again. After #${pos.index} (term ${pos.term}), the last entry any node reported applied.`,
      'node-down',
    );
  else if (was && was !== 'live' && now === 'live' && m.wasLive)
    row(
      'fault',
      `${m.id} up: reading it again`,
      `${m.id} answered again and its stream opened with a fresh state snapshot: it is back (restarted from its data dir, or reachable again).`,
      'node-up',
    );
  if (now === 'live') m.wasLive = true;
  const down = everLive && ![...members.values()].some((x) => x.conn?.status === 'live');
  if (down && !allDown)
    row(
      'refused',
      'no node reachable: the state is unknown',
      `Every member's stream is down: the page cannot read the cluster, so the panels say "unknown", not "no lock is held" — the cluster may well still hold leases and locks durably, and will again show them when a node is back.`,
      'all-down',
    );
  allDown = down;
}

/** Votes granted per (candidate, term), as any node reported them: a leader's row says how it won. */
const votes = new Map(); // `${candidate}|${term}` → Set of voters
function electionContext(ev) {
  if (ev.type === 'vote' && ev.granted && !ev.pre) {
    const key = `${ev.candidate}|${ev.voteTerm}`;
    if (!votes.has(key)) votes.set(key, new Set([ev.candidate])); // a candidate votes for itself
    votes.get(key).add(ev.voter);
    if (votes.size > 256) votes.delete(votes.keys().next().value);
  }
  if (ev.type === 'role' && ev.role === 'leader') {
    const got = votes.get(`${ev.node}|${ev.term}`) ?? new Set([ev.node]);
    return { voters: [...got].sort(), members: members.size };
  }
  if (ev.type === 'role' && (ev.role === 'candidate' || ev.role === 'precandidate')) return { members: members.size };
  return undefined;
}

/** term: the entry's term when known better than the model knows it (a replayed event's). */
function record(m, ev, ctx, term) {
  if (QUIET.has(ev.type)) return; // never a row: not worth a dedup key either
  const key = dedupKey(ev);
  if (seen.has(key)) return;
  seen.set(key, true);
  if (seen.size > SEEN_KEYS) seen.delete(seen.keys().next().value);
  story?.noteCluster(ev);
  const d = describe(ev, ctx, opts());
  if (!d) return;
  const rowTerm = term ?? (ev.index !== undefined ? m.model.termOf(ev.index) : ev.term);
  // Its place in the log: an entry's (term, index); an election or other unindexed decision goes
  // after the entries this node had when it reported it (a replayed one: first in its term).
  const pos = { term: rowTerm, index: ev.index ?? (term === undefined ? m.model.last : 0) };
  addRow({ ev, ...d, term: rowTerm, seenBy: m.id, pos, at: ev.at });
}

/** Put a row on the timeline in its (term, index) place, newest first. */
function addRow(row) {
  // A replayed or late row goes where it belongs, not on top.
  const at = insertAt(rows, row);
  if (at === 0 && rows.length >= TIMELINE_ROWS) return; // older than every row kept
  const list = document.getElementById('timeline');
  const newer = list.children[rows.length - 1 - at]; // the list is newest first: rows[at]'s element, if any
  rows.splice(at, 0, row);
  const el = timelineRow(row, () => select(row));
  if (at < rows.length - 1 && newer) newer.after(el);
  else list.prepend(el);
  if (rows.length > TIMELINE_ROWS) {
    rows.shift();
    list.lastElementChild?.remove();
  }
}

function select(row) {
  selected = row;
  for (const el of document.querySelectorAll('#timeline .selected')) el.classList.remove('selected');
  const idx = rows.length - 1 - rows.indexOf(row);
  document.getElementById('timeline').children[idx]?.classList.add('selected');
  renderExplanation(row);
}

function live(m) {
  return m.conn?.status === 'live' && m.model.synced;
}

function choosePrimary() {
  const all = [...members.values()];
  // A deposed leader cut off from the others may still call itself leader, of an older term.
  const leader = all.filter((m) => live(m) && m.model.role === 'leader').sort((a, b) => b.model.term - a.model.term)[0];
  const home = members.get(origin);
  return (leader ?? (home && live(home) ? home : all.find(live)))?.id ?? '';
}

function changed() {
  if (dirty) return;
  dirty = true;
  setTimeout(render, RENDER_MS);
}

function render() {
  dirty = false;
  const all = [...members.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  primary = choosePrimary();
  document.body.dataset.primary = primary;
  const p = members.get(primary)?.model;
  const maxCommit = Math.max(0, ...all.filter(live).map((m) => m.model.commit));
  renderNodes(all, primary, maxCommit);
  renderClock(p, primary);
  renderLeases(p);
  renderLocks(p);
  renderFence(p);
  if (story) {
    renderStory(story, storyStatus);
    renderClients(story, Date.now());
    document.body.dataset.storyState = story.end ? (story.end.ok ? 'ok' : 'failed') : story.demo ? 'running' : 'waiting';
  }
  const up = all.filter(live).length;
  const refused = all.filter((m) => m.conn?.status === 'refused').length;
  const leader = p?.leader;
  document.getElementById('status').textContent = primary
    ? `reading ${primary}${p.role === 'leader' ? ' (leader)' : ''} · leader ${leader || 'unknown'} · term ${p.term.toLocaleString('en-US')} · ${up}/${all.length} nodes live${refused ? ` · ${refused} need a client certificate` : ''}${lost ? ` · ${lost} events lost (slow connection)` : ''}`
    : refused
      ? `${refused} node${refused > 1 ? 's' : ''} refuse this browser: a client certificate is needed — retrying`
      : 'no node reachable — retrying';
  document.getElementById('status').dataset.state = up === all.length ? 'ok' : up > 0 ? 'degraded' : 'down';
  if (selected && !rows.includes(selected)) selected = undefined;
}

async function fetchCluster(base) {
  const res = await fetch(`${base}/cluster`, { credentials: base.startsWith('https:') ? 'include' : 'omit', cache: 'no-store' });
  if (!res.ok) throw new Error(`/cluster answered ${res.status}`);
  return res.json();
}

/** Addresses learned late (a member not heard from yet) or changed (a node restarted on another port). */
async function poll() {
  const bases = [...members.values()].filter(live).map((m) => m.conn.base);
  for (const base of bases.length ? bases : [location.origin]) {
    try {
      learn(await fetchCluster(base));
      break;
    } catch {
      // try the next live node
    }
  }
  setTimeout(poll, CLUSTER_POLL_MS);
}

async function start() {
  for (const id of ['show-ticks', 'show-raft']) document.getElementById(id).addEventListener('change', changed);
  try {
    const c = await fetchCluster(location.origin);
    origin = c.self;
    learn(c);
  } catch (e) {
    document.getElementById('status').textContent = `cannot read /cluster: ${e.message}`;
  }
  setTimeout(poll, CLUSTER_POLL_MS);
  if (story) startStory();
  changed();
}

function startStory() {
  document.body.dataset.story = 'on';
  const onEvent = (id, e) => {
    if (id !== story.id) {
      story.reset(id); // another demo on this port: start afresh
      storySeq = 0;
    }
    if (!(e.seq > storySeq)) return; // seen before this reconnect
    storySeq = e.seq;
    const r = story.apply(e);
    if (r) {
      const pos = r.pos;
      addRow({
        ev: { ...e, type: `story-${e.kind}`, index: r.index, node: 'demo' },
        kind: r.kind,
        title: r.title,
        sentence: r.sentence,
        term: pos.term,
        seenBy: 'demo',
        pos,
        at: r.at,
      });
    }
    changed();
  };
  connectStory(
    storyBase,
    (id, events) => {
      for (const e of events) onEvent(id, e);
    },
    onEvent,
    (s) => {
      storyStatus = s;
      changed();
    },
  );
  // While a story runs its lanes grow with time, events or not.
  setInterval(() => {
    if (story.demo && !story.end) changed();
  }, 500);
}

void start();
