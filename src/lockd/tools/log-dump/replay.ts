// `log dump --outcomes`: what each entry did, from a replay of the state machine over the log — the
// snapshot's state, then every entry after it in order, as every replica applies them. A log that
// does not run on from the snapshot (a gap, entries before it) has no outcomes ('?').
import type { Entry, Snapshot } from '../../../raft/types.js';
import { LockStateMachine, type StateEvent } from '../../state-machine/index.js';

export class Replay {
  private sm: LockStateMachine | undefined;
  private why = '';

  constructor(snapshot: Snapshot | undefined) {
    try {
      this.sm = snapshot ? LockStateMachine.fromSnapshot(snapshot.data) : new LockStateMachine();
    } catch (e) {
      this.stop(`the snapshot's state does not decode (${(e as Error).message})`);
    }
  }

  /** The outcome of `e`: refused (code and message), or the events it made; undefined before the snapshot. */
  outcome(e: Entry): { text: string; data: Record<string, unknown> } | undefined {
    const sm = this.sm;
    if (sm && e.index <= sm.appliedIndex) return undefined; // covered by the snapshot
    if (!sm) return { text: '?', data: { unknown: this.why } };
    if (e.index !== sm.appliedIndex + 1) {
      this.stop(`entry ${sm.appliedIndex + 1} is missing`);
      return { text: '?', data: { unknown: this.why } };
    }
    try {
      const { result, events } = sm.apply(e);
      if (result && !result.ok) return { text: `refused ${result.error}: ${result.message}`, data: { refused: result.error, message: result.message } };
      return { text: events.length === 0 ? 'ok' : events.map(show).join(', '), data: { events } };
    } catch (err) {
      this.stop(`entry ${e.index} does not apply (${(err as Error).message})`);
      return { text: '?', data: { unknown: this.why } };
    }
  }

  private stop(why: string): void {
    this.sm = undefined;
    this.why = why;
  }
}

function show(ev: StateEvent): string {
  const name = ev.name === '' ? '' : ` ${ev.name}`;
  const token = ev.token === 0 ? '' : ` token ${ev.token}`;
  return `${ev.type}${name} lease ${ev.leaseId}${token}`;
}
