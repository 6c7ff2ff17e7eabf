// lockctl's exit statuses. `lockctl run` otherwise exits with its command's status (128+N when
// the command died of signal N), so its own codes sit where commands rarely go (sysexits range).
export const EXIT = {
  OK: 0,
  /** A server or connection error (the message names the gRPC code). */
  ERROR: 1,
  /** Bad command line. */
  USAGE: 2,
  /** The lock was not acquired: held by another lease (no --wait), or the wait timed out. */
  NOT_ACQUIRED: 75,
  /** `run`: the lock was lost while the command ran; the command was stopped. */
  LOCK_LOST: 76,
  /** `run`: the command could not be started. */
  CANNOT_RUN: 127,
} as const;
