// How many tests or hooks have failed so far in this mocha process (main or parallel worker), as
// counted by test/support/root-hooks.ts. A fixture notes the count when it starts; if it has grown by
// the time the fixture stops, something failed while it ran, and its data and logs are kept.
declare global {
  var __lockdTestFailures: number | undefined;
}

export function failuresSoFar(): number {
  return globalThis.__lockdTestFailures ?? 0;
}
