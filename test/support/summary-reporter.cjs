// Mocha's spec reporter plus one closing line CI greps for:
//   tests: N passed, N failed
// "failed" counts pending tests too: the suite forbids them (.mocharc.cjs), so a skipped test is
// never silently a pass (with forbid-pending mocha already reports each as a failure, not pending).
// With LOCKD_TEST_TIMES=FILE it also writes each test file's wall time, hooks included, slowest
// first: where the suite's 15-minute budget goes (docs/testing.md §1); the run is then serial
// (.mocharc.cjs), as in a parallel run a file's events reach this process only once it is done.
const Mocha = require('mocha');
const { writeFileSync } = require('node:fs');
const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const timesFile = process.env.LOCKD_TEST_TIMES;
    const started = new Map();
    const spent = new Map();
    if (timesFile) {
      runner.on(EVENT_SUITE_BEGIN, (suite) => {
        if (suite.file && suite.parent?.root) started.set(suite, Date.now());
      });
      runner.on(EVENT_SUITE_END, (suite) => {
        const t0 = started.get(suite);
        if (t0 !== undefined) spent.set(suite.file, (spent.get(suite.file) ?? 0) + Date.now() - t0);
      });
    }
    runner.once(EVENT_RUN_END, () => {
      if (timesFile) {
        const rows = [...spent]
          .sort((a, b) => b[1] - a[1])
          .map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${file.replace(process.cwd() + '/', '')}`);
        writeFileSync(timesFile, rows.join('\n') + '\n');
      }
      const { passes, failures, pending } = runner.stats;
      process.stdout.write(`tests: ${passes} passed, ${failures + pending} failed\n`);
    });
  }
}
module.exports = SummaryReporter;
