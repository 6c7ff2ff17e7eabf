// The live leases in deadline order, so that a Tick finds the leases it expires without looking at
// the others (Tick cost: scanning 100k leases cost 3.7 ms per Tick, on every replica, ten times a second).
// An indexed binary min-heap on (deadline, id): inserting, moving a lease on renewal and removing it
// are O(log n); the leases due at `now` are found in O(due). It is derived state: not part of the
// snapshot, rebuilt from the leases' deadlines on restore, and compared with them by the invariant sweep.
// Pure: no clock, no I/O.

/** Keyed by lease id (numbers) for leases, by lock name (strings) for lock-delays. */
export class ExpiryIndex<K extends number | string = number> {
  /** Heap slots: ids[k] has deadline deadlines[k]; the parent of k is (k - 1) >> 1. */
  private readonly ids: K[] = [];
  private readonly deadlines: number[] = [];
  /** id -> its slot. */
  private readonly slot = new Map<K, number>();

  get size(): number {
    return this.ids.length;
  }

  has(id: K): boolean {
    return this.slot.has(id);
  }

  deadlineOf(id: K): number | undefined {
    const k = this.slot.get(id);
    return k === undefined ? undefined : this.deadlines[k];
  }

  /** Insert `id`, or move it to its new deadline (later or earlier). */
  set(id: K, deadline: number): void {
    let k = this.slot.get(id);
    if (k === undefined) {
      k = this.ids.length;
      this.ids.push(id);
      this.deadlines.push(deadline);
      this.slot.set(id, k);
      this.up(k);
      return;
    }
    const old = this.deadlines[k];
    this.deadlines[k] = deadline;
    if (deadline < old) this.up(k);
    else this.down(k);
  }

  /** Remove `id`; false if it was not indexed. */
  delete(id: K): boolean {
    const k = this.slot.get(id);
    if (k === undefined) return false;
    const last = this.ids.length - 1;
    if (k !== last) this.move(last, k);
    this.ids.pop();
    this.deadlines.pop();
    this.slot.delete(id);
    if (k !== last) {
      this.up(k);
      this.down(k);
    }
    return true;
  }

  /**
   * The ids whose deadline is <= now, ascending by id (the order the state machine ends them in).
   * They stay indexed until deleted. Visits only due slots and their direct children.
   */
  due(now: number): K[] {
    const out: K[] = [];
    const stack = this.ids.length > 0 ? [0] : [];
    while (stack.length > 0) {
      const k = stack.pop()!;
      if (this.deadlines[k] > now) continue; // the heap order: nothing below k is due either
      out.push(this.ids[k]);
      const c = 2 * k + 1;
      if (c < this.ids.length) stack.push(c);
      if (c + 1 < this.ids.length) stack.push(c + 1);
    }
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Whether any id is due at `now` (deadline <= now): O(1), the heap's root. */
  hasDue(now: number): boolean {
    return this.ids.length > 0 && this.deadlines[0] <= now;
  }

  /**
   * The ids due at `now` in (deadline, id) order, earliest first, produced lazily: taking the first k
   * costs O(k log k) whatever the heap holds. The order depends only on the (deadline, id) pairs, not
   * on the heap's layout, so every replica (and one restored from a snapshot) takes the same ones.
   * Nothing is removed; the caller deletes what it ends before calling again.
   */
  *dueInOrder(now: number): Generator<K> {
    // A second heap of candidate slots: the root, then the children of each slot taken.
    const cand: number[] = [];
    const push = (k: number) => {
      if (k >= this.ids.length || this.deadlines[k] > now) return;
      cand.push(k);
      for (let i = cand.length - 1; i > 0;) {
        const p = (i - 1) >> 1;
        if (!this.less(cand[i], cand[p])) break;
        [cand[i], cand[p]] = [cand[p], cand[i]];
        i = p;
      }
    };
    const pop = (): number => {
      const top = cand[0];
      const last = cand.pop()!;
      if (cand.length > 0) {
        cand[0] = last;
        for (let i = 0; ;) {
          const l = 2 * i + 1;
          if (l >= cand.length) break;
          const c = l + 1 < cand.length && this.less(cand[l + 1], cand[l]) ? l + 1 : l;
          if (!this.less(cand[c], cand[i])) break;
          [cand[i], cand[c]] = [cand[c], cand[i]];
          i = c;
        }
      }
      return top;
    };
    push(0);
    while (cand.length > 0) {
      const k = pop();
      yield this.ids[k];
      push(2 * k + 1);
      push(2 * k + 2);
    }
  }

  /** The earliest (deadline, id), if any: for tests and the invariant sweep. */
  peek(): { id: K; deadline: number } | undefined {
    return this.ids.length === 0 ? undefined : { id: this.ids[0], deadline: this.deadlines[0] };
  }

  /** Every (id, deadline) pair, in no particular order. */
  *entries(): IterableIterator<[K, number]> {
    for (let k = 0; k < this.ids.length; k++) yield [this.ids[k], this.deadlines[k]];
  }

  /** The heap property and the slot map hold: a description of the first breach, or undefined. */
  breach(): string | undefined {
    if (this.slot.size !== this.ids.length) return `${this.slot.size} slots recorded for ${this.ids.length} entries`;
    for (let k = 0; k < this.ids.length; k++) {
      if (this.slot.get(this.ids[k]) !== k) return `lease ${this.ids[k]} at slot ${k} is recorded at ${this.slot.get(this.ids[k])}`;
      if (k > 0 && this.less(k, (k - 1) >> 1)) return `lease ${this.ids[k]} (deadline ${this.deadlines[k]}) sits below a later deadline`;
    }
    return undefined;
  }

  /** (deadline, id) order: ties broken by id, so the layout depends only on the operations applied. */
  private less(a: number, b: number): boolean {
    const da = this.deadlines[a];
    const db = this.deadlines[b];
    return da < db || (da === db && this.ids[a] < this.ids[b]);
  }

  private swap(a: number, b: number): void {
    const id = this.ids[a];
    const d = this.deadlines[a];
    this.move(b, a);
    this.ids[b] = id;
    this.deadlines[b] = d;
    this.slot.set(id, b);
  }

  /** Slot `to` takes the entry of slot `from` (which the caller then overwrites or drops). */
  private move(from: number, to: number): void {
    this.ids[to] = this.ids[from];
    this.deadlines[to] = this.deadlines[from];
    this.slot.set(this.ids[to], to);
  }

  private up(k: number): void {
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!this.less(k, p)) return;
      this.swap(k, p);
      k = p;
    }
  }

  private down(k: number): void {
    const n = this.ids.length;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= n) return;
      const c = l + 1 < n && this.less(l + 1, l) ? l + 1 : l;
      if (!this.less(c, k)) return;
      this.swap(k, c);
      k = c;
    }
  }
}
