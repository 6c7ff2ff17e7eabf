// mocha's settings. Files named on the command line (`npx mocha test/x.test.ts` or `--spec x`)
// replace the default spec: mocha would otherwise add them to it and run the whole suite.
// forbid-only / forbid-pending: a forgotten `.only`, an `it.skip` or a `this.skip()` fails the run.
// The reporter also counts failures for the process fixtures (a cluster that saw one keeps its data).
const named = process.argv.slice(2).some((a, k, all) => a === '--spec' || a.startsWith('--spec=') || (/\.test\.[cm]?[jt]s$/.test(a) && all[k - 1] !== '--spec'));

module.exports = {
  import: 'tsx',
  ...(named ? {} : { spec: ['test/**/*.test.ts'] }),
  reporter: 'test/support/summary-reporter.cjs',
  timeout: 60000,
  'forbid-only': true,
  'forbid-pending': true,
  exit: true,
};
