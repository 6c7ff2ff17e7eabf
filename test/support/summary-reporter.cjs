// Mocha's spec reporter plus one closing line CI greps for:
//   tests: N passed, N failed
// "failed" counts pending tests too: the suite forbids them (.mocharc.cjs), so a skipped test is
// never silently a pass (with forbid-pending mocha already reports each as a failure, not pending).
// Every failure, also of a hook, is counted on globalThis for the process fixtures, which keep the
// data and logs of a cluster that saw one (test/support/failures.ts).
const Mocha = require('mocha');
const { EVENT_RUN_END, EVENT_TEST_FAIL } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.on(EVENT_TEST_FAIL, () => {
      globalThis.__lockdTestFailures = (globalThis.__lockdTestFailures ?? 0) + 1;
    });
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      process.stdout.write(`tests: ${passes} passed, ${failures + pending} failed\n`);
    });
  }
}
module.exports = SummaryReporter;
