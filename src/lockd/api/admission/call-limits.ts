// Calls of one principal on this node: open streams (KeepAlive, Session, Observe, Watch, ...) and
// unary calls in flight, each bounded; and the streams of each connection, counted for the gauge
// (HTTP/2 itself enforces max-streams-per-connection: SETTINGS_MAX_CONCURRENT_STREAMS, so a
// conforming client waits and a call over it never reaches this count). A call is counted from its
// headers until its status is sent or it is cancelled, whichever is first (a cancelled unary call
// stops counting even if work it began, a proposal, is still settling: that work is bounded by the
// proposal queue and the call's own deadline). The principal is the mTLS certificate's CN
// (security/principal.ts); without --client-cert-auth every caller is 'anonymous', one shared
// principal, and these are limits of the whole node.
import * as grpc from '@grpc/grpc-js';
import type { AdmissionSettings } from '../../node/admission-settings.js';
import type { CallInfo } from '../../node/public-admission.js';
import { KeyedCounts, LimitUse } from './limit-use.js';

export type CallVerdict = { readonly refused: grpc.StatusObject } | { readonly release: () => void };

export class CallLimits {
  private readonly streams = new KeyedCounts();
  private readonly unary = new KeyedCounts();
  private readonly perConnection = new KeyedCounts();
  readonly streamsPerPrincipal: LimitUse;
  readonly unaryPerPrincipal: LimitUse;
  readonly streamsPerConnection: LimitUse;

  constructor(settings: AdmissionSettings, onRefusal?: (use: LimitUse) => void) {
    this.streamsPerPrincipal = new LimitUse('max-streams-per-principal', settings.maxStreamsPerPrincipal, () => this.streams.max(), onRefusal);
    this.unaryPerPrincipal = new LimitUse('max-unary-per-principal', settings.maxUnaryPerPrincipal, () => this.unary.max(), onRefusal);
    this.streamsPerConnection = new LimitUse('max-streams-per-connection', settings.maxStreamsPerConnection, () => this.perConnection.max(), onRefusal);
  }

  admit(call: CallInfo): CallVerdict {
    const connection = call.connection;
    const principal = call.principal;
    // No principal: the public guard refuses the call (UNAUTHENTICATED) before any handler runs.
    if (principal === undefined) return { release: () => {} };
    const counts = call.streaming ? this.streams : this.unary;
    const use = call.streaming ? this.streamsPerPrincipal : this.unaryPerPrincipal;
    if (counts.get(principal) >= use.limit) {
      const what = call.streaming ? 'open streams' : 'unary calls in flight';
      const err = use.refuse(`principal ${JSON.stringify(principal.slice(0, 80))} has ${use.limit} ${what} on this node; end some first`);
      return { refused: { code: err.code, details: err.message, metadata: new grpc.Metadata() } };
    }
    counts.add(principal, 1);
    this.perConnection.add(connection, 1);
    return {
      release: () => {
        counts.add(principal, -1);
        this.perConnection.add(connection, -1);
      },
    };
  }

  /** Open streams / unary calls in flight of `principal` (tests, status). */
  of(principal: string): { streams: number; unary: number } {
    return { streams: this.streams.get(principal), unary: this.unary.get(principal) };
  }
}
