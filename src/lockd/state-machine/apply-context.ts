// What one entry's apply carries around: its index (lease ids and tokens come from it) and its events.

import type { StateEvent, StateEventType } from './events.js';

export class ApplyContext {
  readonly events: StateEvent[] = [];

  constructor(readonly index: number) {}

  emit(type: StateEventType, name: string, leaseId: number, token: number): void {
    this.events.push({ type, name, leaseId, token, index: this.index });
  }
}
