// What one entry's apply carries around: its index (lease ids and tokens come from it) and its events.

import type { LockEvent, LockEventType } from './events.js';

export class ApplyContext {
  readonly events: LockEvent[] = [];

  constructor(readonly index: number) {}

  emit(type: LockEventType, name: string, leaseId: number, token: number): void {
    this.events.push({ type, name, leaseId, token, index: this.index });
  }
}
