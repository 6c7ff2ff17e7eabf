// A push-to-pull bridge: stream callbacks push, an async iterator pulls. Bounded by the producer
// (one gRPC stream), so no limit is imposed here.

export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void } | undefined;
  private ended = false;
  private error: unknown;

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve({ value: item, done: false });
    } else this.items.push(item);
  }

  /** No more items; pending and later pulls get `error` if given, else done. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      if (error !== undefined) w.reject(error);
      else w.resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.ended) return this.error !== undefined ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
    if (this.waiter) throw new Error('AsyncQueue: one reader at a time');
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }
}
