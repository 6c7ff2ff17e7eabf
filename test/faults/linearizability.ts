// Linearizability checking in the style of Porcupine: Wing & Gong's search with Lowe's memoization
// of (set of linearized operations, model state). Operations are intervals [invoke, complete]; an
// operation of unknown outcome has complete = Infinity and may take effect at any point after its
// invoke, or never (which is the same as taking effect after every other operation — the model's
// step must therefore accept an unknown operation in any state, applying its effect when it can).
// An unknown operation may also be bounded (SearchOp.unknown with a finite complete): it took effect
// within its interval or not at all, so where the search reaches its end unlinearized, it is taken
// as a no-op there, and stops being a candidate at every later point of the search.
//
// The search is bounded by a wall-clock budget and reports 'unknown' rather than run on.
import { Prng } from '../sim/prng.js';

/** A sequential specification. `step` returns the next state, or undefined if the op cannot happen here. */
export interface Model<S, O> {
  readonly name: string;
  init(): S;
  step(state: S, op: O): S | undefined;
  /** Equal keys must mean equal states (the memo table relies on it). */
  key(state: S): string;
  /**
   * Optional, together: the ids (lease ids, say) whose identity an operation's step depends on, and
   * a memo key that may merge states differing only in retired ids — ids that no operation still to
   * be linearized names (`named` holds the others). States that agree on everything but retired ids
   * lead to the same verdicts, as no remaining step can tell those ids apart.
   */
  names?(op: O): readonly number[];
  canonicalKey?(state: S, named: ReadonlySet<number>): string;
  describe?(state: S): string;
}

export interface SearchOp<O> {
  readonly op: O;
  readonly invoke: number;
  /** Infinity: outcome unknown (and unbounded). */
  readonly complete: number;
  /**
   * Outcome unknown, bounded: it took effect within [invoke, complete] or never — the caller knows
   * that from `complete` on it can no longer change the model's state (e.g. its lease is dead by
   * then). Implied by complete = Infinity.
   */
  readonly unknown?: boolean;
}

export type Verdict = 'ok' | 'illegal' | 'unknown';

export interface SearchResult<O> {
  verdict: Verdict;
  ops: number;
  /** States explored (memo table size). */
  explored: number;
  elapsedMs: number;
  /** On 'illegal': the deepest point reached — the linearized prefix and the operations none of which could come next. */
  failure?: { linearized: O[]; stuckAt: O[]; state: string };
  /** On 'unknown': why the search stopped. */
  reason?: string;
}

interface Entry {
  id: number; // op index
  call: boolean;
  match: Entry | undefined; // call → its return
  prev: Entry | undefined;
  next: Entry | undefined;
}

/** Search for a linearization of `ops` against `model`, within `budgetMs` of wall time. */
export function searchLinearization<S, O>(
  model: Model<S, O>,
  ops: readonly SearchOp<O>[],
  budgetMs = 10_000,
  /**
   * Heuristic: where nothing with a known outcome fits, try only the unknown operations after which
   * one of the waiting known-outcome operations fits. Fast, but may miss a linearization that needs
   * several unknown operations in a row — so an 'illegal' from it must be confirmed without it.
   */
  helpfulUnknownsOnly = false,
): SearchResult<O> {
  const started = Date.now();
  const n = ops.length;
  for (const o of ops)
    if (!(o.complete >= o.invoke)) throw new Error(`linearizability: an operation completes before its invoke (${o.invoke} > ${o.complete})`);
  const isUnknown = ops.map((o) => o.unknown === true || o.complete === Infinity);

  // Events in time order; at equal times calls come before returns (treating touching intervals as
  // concurrent only ever admits more linearizations, never flags a correct history).
  const events: { time: number; call: boolean; id: number }[] = [];
  ops.forEach((o, id) => {
    events.push({ time: o.invoke, call: true, id });
    events.push({ time: o.complete, call: false, id });
  });
  events.sort((a, b) => a.time - b.time || (a.call === b.call ? a.id - b.id : a.call ? -1 : 1));
  const head: Entry = { id: -1, call: false, match: undefined, prev: undefined, next: undefined };
  const calls: Entry[] = new Array(n);
  let tail = head;
  for (const ev of events) {
    const e: Entry = { id: ev.id, call: ev.call, match: undefined, prev: tail, next: undefined };
    tail.next = e;
    tail = e;
    if (ev.call) calls[ev.id] = e;
    else calls[ev.id].match = e;
  }

  const lift = (e: Entry): void => {
    e.prev!.next = e.next;
    if (e.next) e.next.prev = e.prev;
    const m = e.match!;
    m.prev!.next = m.next;
    if (m.next) m.next.prev = m.prev;
  };
  const unlift = (e: Entry): void => {
    const m = e.match!;
    m.prev!.next = m;
    if (m.next) m.next.prev = m;
    e.prev!.next = e;
    if (e.next) e.next.prev = e;
  };

  // The memo table: (linearized set, state) already explored. The set is split in two: operations
  // with known outcomes (hashed, Zobrist style, and compared exactly) and unknown ones. Having
  // linearized fewer unknown operations into the same state is at least as good (each may still
  // come later, or never), so a visit is pruned when the same known set and state were seen with a
  // subset of its unknown set — this keeps an unknown operation that changed nothing lasting from
  // multiplying the search.
  const rng = new Prng(0x5eed);
  const zA = new Uint32Array(n);
  const zB = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    zA[i] = rng.u32();
    zB[i] = rng.u32();
  }
  const words = Math.ceil(n / 32);
  const known = new Uint32Array(words);
  const unknown = new Uint32Array(words);
  let hA = 0;
  let hB = 0;
  const cache = new Map<string, { known: Uint32Array; unknown: Uint32Array }[]>();
  let explored = 0;
  // Operations still to be linearized that name each id (Model.names): an id at 0 is retired.
  const namedBy = ops.map((o) => model.names?.(o.op) ?? []);
  const naming = new Map<number, number>();
  for (const ids of namedBy) for (const id of ids) naming.set(id, (naming.get(id) ?? 0) + 1);
  const named = new Set(naming.keys());
  const memoKey = model.canonicalKey && model.names ? (st: S) => model.canonicalKey!(st, named) : (st: S) => model.key(st);
  const remember = (stateKey: string): boolean => {
    const k = `${hA.toString(36)}.${hB.toString(36)}|${stateKey}`;
    const list = cache.get(k);
    if (list) {
      for (const b of list) if (equalBits(b.known, known) && subsetBits(b.unknown, unknown)) return false;
      list.push({ known: known.slice(), unknown: unknown.slice() });
    } else cache.set(k, [{ known: known.slice(), unknown: unknown.slice() }]);
    explored++;
    return true;
  };
  const toggle = (id: number): void => {
    // Every toggle flips the operation between remaining and linearized (or discarded).
    const on = isUnknown[id] ? (unknown[id >>> 5] & (1 << (id & 31))) === 0 : (known[id >>> 5] & (1 << (id & 31))) === 0;
    for (const x of namedBy[id]) {
      const c = naming.get(x)! + (on ? -1 : 1);
      naming.set(x, c);
      if (c === 0) named.delete(x);
      else named.add(x);
    }
    if (isUnknown[id]) {
      unknown[id >>> 5] ^= 1 << (id & 31);
      return;
    }
    known[id >>> 5] ^= 1 << (id & 31);
    hA ^= zA[id];
    hB ^= zB[id];
  };

  let definiteLeft = isUnknown.filter((u) => !u).length;
  // At each point the search first tries the operations with known outcomes, and only when none of
  // them can come next (a return is reached) the unknown ones before that return: an unknown
  // operation is then linearized only where it is needed, not tried at every position.
  const unknownOp = (e: Entry) => isUnknown[e.id];
  // A known-outcome operation that fits here and changes nothing is taken at once, without a choice
  // point: any linearization that places it later stays valid with it moved here (same state all
  // along), so not taking it now can never succeed where taking it fails.
  const stack: { entry: Entry; state: S; pass: 0 | 1; forced: boolean }[] = [];
  let state = model.init();
  let entry = head.next;
  let pass: 0 | 1 = 0;
  /** In pass 1 (helpfulUnknownsOnly): the known-outcome calls before the blocking return, and where each led. */
  let waiting: { entry: Entry; key: string | undefined }[] = [];
  const helps = (after: S, w: { entry: Entry; key: string | undefined }): boolean => {
    const nx = model.step(after, ops[w.entry.id].op);
    if (nx === undefined) return false;
    if (w.key === undefined) return true;
    const k = model.key(nx);
    return k !== w.key && k !== model.key(after);
  };
  let deepest = -1;
  let failure: SearchResult<O>['failure'];
  let iterations = 0;

  const done = (verdict: Verdict, extra: Partial<SearchResult<O>> = {}): SearchResult<O> => ({
    verdict,
    ops: n,
    explored,
    elapsedMs: Date.now() - started,
    ...extra,
  });
  /** Undo the last step; false when there is none. Forced steps are undone through to a real choice. */
  const backtrack = (): boolean => {
    for (;;) {
      const top = stack.pop();
      if (!top) return false;
      state = top.state;
      toggle(top.entry.id);
      if (!unknownOp(top.entry)) definiteLeft++;
      unlift(top.entry);
      entry = top.entry.next;
      pass = top.pass;
      if (!top.forced) return true;
    }
  };

  for (;;) {
    // Every remaining operation has an unknown outcome: place them all last, where they may have no effect.
    if (definiteLeft === 0) return done('ok');
    if ((++iterations & 0x3ff) === 0 && Date.now() - started > budgetMs)
      return done('unknown', { reason: `search budget of ${budgetMs} ms spent after exploring ${explored} states` });
    if (entry === undefined) throw new Error('linearizability: ran off the end of the history (internal error)');
    if (entry.call) {
      const cur: Entry = entry;
      if (unknownOp(cur) !== (pass === 1)) {
        entry = cur.next;
        continue;
      }
      const next = model.step(state, ops[cur.id].op);
      if (next === undefined) {
        entry = cur.next;
        continue;
      }
      const unchanged = model.key(next) === model.key(state);
      // An unknown operation that would change nothing here is the same as one placed last: skip it.
      if (pass === 1 && (unchanged || (helpfulUnknownsOnly && !waiting.some((w) => helps(next, w))))) {
        entry = cur.next;
        continue;
      }
      const forced = pass === 0 && unchanged;
      toggle(cur.id);
      if (remember(memoKey(next))) {
        stack.push({ entry: cur, state, pass, forced });
        state = next;
        if (!unknownOp(cur)) definiteLeft--;
        lift(cur);
        entry = head.next;
        pass = 0;
        continue;
      }
      toggle(cur.id);
      if (!forced) {
        entry = cur.next;
        continue;
      }
      // The forced step leads to a state already explored: so does this one.
      if (!backtrack()) return done('illegal', { failure });
    } else if (pass === 1 && unknownOp(entry)) {
      // The end of a bounded unknown operation, and every way to linearize something before it was
      // tried (pass 0, then pass 1 up to here): it had no effect. A forced step, marked linearized
      // so that both ways of getting past it share memo entries from here on. Not checked against
      // the memo itself: the same known set and state with fewer unknown ones is this very path
      // (our parent), which would prune it.
      const cur = calls[entry.id];
      toggle(cur.id);
      stack.push({ entry: cur, state, pass, forced: true });
      lift(cur);
      entry = head.next;
      pass = 0;
    } else {
      if (pass === 0) {
        // No known-outcome operation fits here: try the unknown ones before this return.
        pass = 1;
        if (helpfulUnknownsOnly) {
          waiting = [];
          // ...with where each leads now: an unknown operation helps if one of them then fits where
          // it did not, or leads somewhere else (e.g. a grant that no longer needs its holder dead).
          const here = (e: Entry) => {
            const nx = model.step(state, ops[e.id].op);
            return { entry: e, key: nx === undefined ? undefined : model.key(nx) };
          };
          for (let e = head.next; e && e !== entry; e = e.next) if (e.call && !unknownOp(e)) waiting.push(here(e));
          waiting.push(here(calls[entry.id]));
        }
        entry = head.next;
        continue;
      }
      // A return reached: its operation must be linearized before anything later; back up.
      if (stack.length > deepest) {
        deepest = stack.length;
        // The operation whose return blocks first, then those that could have gone before it.
        const stuck: O[] = [ops[entry.id].op];
        for (let e = head.next; e && e !== entry; e = e.next) if (e.call && e.id !== entry.id) stuck.push(ops[e.id].op);
        failure = { linearized: stack.map((s) => ops[s.entry.id].op), stuckAt: stuck, state: model.describe?.(state) ?? model.key(state) };
      }
      if (!backtrack()) return done('illegal', { failure });
    }
  }
}

function equalBits(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Every bit of a is set in b. */
function subsetBits(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i] & ~b[i]) !== 0) return false;
  return true;
}
