// What one entry's apply carries around: its index (lease ids and tokens come from it) and its events.

import type { StateEvent, StateEventType } from './state-events.js';
import { grantToken } from './token.js';

export class ApplyContext {
  readonly events: StateEvent[] = [];
  /** Grants made by this entry, per lock name: the next grant's ordinal (token.ts). */
  private readonly granted = new Map<string, number>();

  constructor(readonly index: number) {}

  /** The token of this entry's next grant of `name`: unique among that lock's grants. */
  nextToken(name: string): number {
    const ordinal = this.granted.get(name) ?? 0;
    this.granted.set(name, ordinal + 1);
    return grantToken(this.index, ordinal);
  }

  emit(type: StateEventType, name: string, leaseId: number, token: number): void {
    this.events.push({ type, name, leaseId, token, index: this.index });
  }
}
