// mocha's settings. Files named on the command line (`npx mocha test/x.test.ts` or `--spec x`)
// replace the default spec: mocha would otherwise add them to it and run the whole suite.
// forbid-only / forbid-pending: a forgotten `.only`, an `it.skip` or a `this.skip()` fails the run.
// The whole suite runs its files in LOCKD_TEST_JOBS parallel workers (default 2: most of a file's
// time is waiting on elections, leases and fsyncs, so two share 2 cores well); LOCKD_TEST_JOBS=1,
// a file named on the command line, or LOCKD_TEST_TIMES (per-file times) run serially.
// test/support/root-hooks.ts counts failures for the process fixtures and, in a parallel run,
// builds dist/ once and keeps the workers' free ports apart.
const named = process.argv
  .slice(2)
  .some((a, k, all) => a === '--spec' || a.startsWith('--spec=') || (/\.test\.[cm]?[jt]s$/.test(a) && all[k - 1] !== '--spec'));
const jobs = Number(process.env.LOCKD_TEST_JOBS ?? 2);
const parallel = !named && !process.env.LOCKD_TEST_TIMES && Number.isInteger(jobs) && jobs > 1;
if (parallel) process.env.LOCKD_TEST_PARALLEL = '1';

module.exports = {
  import: 'tsx',
  ...(named ? {} : { spec: ['test/**/*.test.ts'] }),
  ...(parallel ? { parallel: true, jobs } : {}),
  require: ['test/support/root-hooks.ts'],
  reporter: 'test/support/summary-reporter.cjs',
  timeout: 60000,
  'forbid-only': true,
  'forbid-pending': true,
  exit: true,
};
