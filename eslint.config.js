// Lint: typescript-eslint's recommended rules, the map of src/ (every import allowed by its folder's
// row of scripts/import-map.js, the table src/README.md states), and the purity fence on the rows
// that table marks pure (src/raft, the codec, the state machine with its lease commands).
import tseslint from 'typescript-eslint';
import { importMapPlugin, pureFiles } from './scripts/import-map.js';

const impure = 'src/raft, the lock state machine and the lease commands must stay pure and deterministic (docs/design.md §1): no I/O, no clock, no randomness';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'clients/typescript/dist/**', '.cluster/**', '.faults/**', 'proto/gen/**', 'src/proto/gen/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // One rule for every fence between folders: the table in scripts/import-map.js.
    files: ['src/**/*.ts'],
    ignores: ['src/proto/gen/**'],
    plugins: { lockd: importMapPlugin },
    rules: { 'lockd/import-map': 'error' },
  },
  {
    // The study dashboard draws node-sent strings (lock names, keys, messages): as text only.
    files: ['dashboard/**/*.js'],
    languageOptions: { sourceType: 'module' },
    rules: {
      'no-restricted-properties': [
        'error',
        ...['innerHTML', 'outerHTML'].map((property) => ({
          property,
          message: 'dashboard: build DOM nodes and set textContent (view.js h()), never markup from data',
        })),
        ...['insertAdjacentHTML', 'write', 'writeln', 'createContextualFragment'].map((property) => ({
          property,
          message: 'dashboard: no HTML parsing of data',
        })),
      ],
      'no-eval': 'error',
      'no-implied-eval': 'error',
    },
  },
  {
    files: pureFiles(),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:', message: impure },
            { regex: '^(fs|net|os|path|child_process|timers|crypto|http|http2|dgram|worker_threads|perf_hooks)(/.*)?$', message: impure },
            { regex: '^@grpc/', message: impure },
            { regex: '^(level|classic-level|pino)$', message: impure },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'Date', message: impure },
        { name: 'performance', message: impure },
        { name: 'setTimeout', message: impure },
        { name: 'setInterval', message: impure },
        { name: 'setImmediate', message: impure },
        { name: 'clearTimeout', message: impure },
        { name: 'clearInterval', message: impure },
        { name: 'queueMicrotask', message: impure },
        { name: 'process', message: impure },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: impure },
        { object: 'globalThis', property: 'Date', message: impure },
        { object: 'globalThis', property: 'performance', message: impure },
      ],
    },
  },
);
