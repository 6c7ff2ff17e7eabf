// How many tests or hooks have failed so far in this mocha process, as counted by the reporter
// (test/support/summary-reporter.cjs). A fixture notes the count when it starts; if it has grown by
// the time the fixture stops, something failed while it ran, and its data and logs are kept.
declare global {
  var __lockdTestFailures: number | undefined;
}

export function failuresSoFar(): number {
  return globalThis.__lockdTestFailures ?? 0;
}
