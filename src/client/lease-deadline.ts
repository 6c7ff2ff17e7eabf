// When this client must stop trusting a lease (docs/design.md §4): at sendTime(last acknowledged
// keepalive) + ttl on its own monotonic clock. The cluster sets every deadline after that request
// was sent, at now + ttl + margin on a logical clock that never runs faster than real time, so it
// cannot expire the lease before this moment.
//
// Each answer on a keepalive stream acknowledges the oldest unanswered request sent on it. Should
// the server ever answer fewer times than asked, an answer is matched to an older send time than
// its own — an earlier deadline, never a later one.
import { monoNow } from './deadlines.js';

export class LeaseDeadline {
  private until: number;
  private unanswered: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    /** Trusted until then before any keepalive is acknowledged: for a new lease, the send time of
     *  its Grant (the first attempt's, when retried) + ttl. */
    initialDeadline: number,
    private readonly onExpire: () => void,
  ) {
    this.until = initialDeadline;
    this.arm();
  }

  /** The monotonic time (performance.now()) until which the lease is trusted. */
  get deadline(): number {
    return this.until;
  }

  /** True once the deadline has passed: from then on the lease is lost, whatever answers arrive. */
  passed(now = monoNow()): boolean {
    return now >= this.until;
  }

  /**
   * Expire now if the deadline has passed, without waiting for the timer: a blocked event loop
   * (a long synchronous computation, a GC pause) runs the timer late, and a reader right after the
   * pause must not be told the lease still holds. Returns whether the lease is expired.
   */
  expireIfPassed(now = monoNow()): boolean {
    if (this.stopped) return false;
    if (!this.passed(now)) return false;
    this.stop();
    this.onExpire();
    return true;
  }

  /** A keepalive was sent at `at`. */
  sent(at: number): void {
    this.unanswered.push(at);
  }

  /** Age of the oldest keepalive not yet answered, or undefined. */
  oldestUnansweredAge(now = monoNow()): number | undefined {
    return this.unanswered.length ? now - this.unanswered[0] : undefined;
  }

  /**
   * An answer renewing the lease for ttlMs arrived. Returns false when it came too late (the
   * deadline had already passed: the lease stays lost) or answered nothing we sent.
   */
  acknowledged(ttlMs: number, now = monoNow()): boolean {
    const sentAt = this.unanswered.shift();
    if (sentAt === undefined || this.stopped || this.passed(now)) return false;
    this.until = Math.max(this.until, sentAt + ttlMs);
    this.arm();
    return true;
  }

  /** The stream was replaced: answers to what was sent on it will never come. */
  forgetUnanswered(): void {
    this.unanswered = [];
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    // Timers may fire a little early or late; fire() re-checks the clock and re-arms if early.
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(this.until - monoNow())));
  }

  private fire(): void {
    this.timer = undefined;
    if (!this.stopped && !this.expireIfPassed()) this.arm();
  }
}
