// Bytes of decoded client requests this node is handling, bounded in total (the inbound half of
// the node's memory budget; outbound-budget.ts is the other). A request is charged its size
// (message-size.ts) once decoded and before any of it is handled, and credited when it settles:
// a unary call when its status is sent or it is cancelled (admission.ts, through the public
// port's gate), a stream's request once its handler returns (server-stream.ts says why not later;
// KeepAlive requests are not charged). A request that would take the total over the budget is refused
// with RESOURCE_EXHAUSTED naming max-inbound-bytes before anything of it is done; what it cost to
// decode is garbage at once. HTTP/2's own buffers (bytes not yet decoded) are bounded per
// connection by Node, not here.
import type { ApiError } from '../api-error.js';
import type { AdmissionSettings } from '../../node/admission-settings.js';
import { LimitUse } from './limit-use.js';

/** A charge: its credit (only its first run counts), or the refusal, with nothing charged. */
export type InboundCharge = { readonly credit: () => void } | { readonly refused: ApiError };

export class InboundBudget {
  private total = 0;
  readonly use: LimitUse;

  constructor(settings: Pick<AdmissionSettings, 'inboundBytes'>, onRefusal?: (use: LimitUse) => void) {
    this.use = new LimitUse('max-inbound-bytes', settings.inboundBytes, () => this.total, onRefusal);
  }

  /** Bytes of the requests being handled (tests, status). */
  get bytes(): number {
    return this.total;
  }

  /** Charge `bytes` for a request about to be handled. */
  charge(bytes: number): InboundCharge {
    if (this.total + bytes > this.use.limit) {
      const why =
        bytes > this.use.limit
          ? `a request of ${bytes} bytes never fits; send less at once`
          : `this node is handling ${this.total} bytes of requests and this one needs ${bytes} more; retry later or send less at once`;
      return { refused: this.use.refuse(why) };
    }
    this.total += bytes;
    let owed = true;
    return {
      credit: () => {
        if (!owed) return;
        owed = false;
        this.total -= bytes;
        if (this.total < 0) throw new Error(`inbound budget below zero (${this.total}): a request was credited more than it was charged`);
      },
    };
  }
}
