// CommonJS in the scratch project: require() of the ESM package (Node ≥ 20.19 loads ES modules
// without top-level await this way).
const { LockClient } = require('lockd-client');
process.stdout.write(typeof LockClient + '\n');
