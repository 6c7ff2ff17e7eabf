// mocha's settings. Files named on the command line (`npx mocha test/x.test.ts` or `--spec x`)
// replace the default spec: mocha would otherwise add them to it and run the whole suite.
// forbid-only / forbid-pending: a forgotten `.only`, an `it.skip` or a `this.skip()` fails the run.
// The reporter also counts failures for the process fixtures (a cluster that saw one keeps its data).
const named = process.argv.slice(2).some((a, k, all) => a === '--spec' || a.startsWith('--spec=') || (/\.(test|upgrade)\.[cm]?[jt]s$/.test(a) && all[k - 1] !== '--spec'));
// The rolling upgrade test (test/upgrade/*.upgrade.ts) builds the previous release first (minutes):
// in the default run only with LOCKD_UPGRADE_TEST=1, which .ci/run sets.
const upgrade = process.env.LOCKD_UPGRADE_TEST === '1' ? ['test/upgrade/*.upgrade.ts'] : [];

module.exports = {
  import: 'tsx',
  ...(named ? {} : { spec: ['test/**/*.test.ts', ...upgrade] }),
  reporter: 'test/support/summary-reporter.cjs',
  timeout: 60000,
  'forbid-only': true,
  'forbid-pending': true,
  exit: true,
};
