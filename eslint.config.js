// Lint: typescript-eslint's recommended rules, the purity fence around src/raft, the state machine and
// the lease commands within it, and the one-way layers
// (src/README.md): client → proto only; node ↛ api; raft ↛ anything of lockd.
import tseslint from 'typescript-eslint';

const impure = 'src/raft, the lock state machine and the lease commands must stay pure and deterministic (docs/design.md §1): no I/O, no clock, no randomness';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.cluster/**', '.faults/**', 'proto/gen/**', 'src/proto/gen/**'] },
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
    files: ['src/client/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^(\\.\\./)+lockd/', message: 'src/client speaks only the public contract (src/proto/lockd.ts and src/proto/gen/lockd): it must not import src/lockd' },
          { regex: '(^|/)proto/(raft\\.js|gen/raft)', message: 'src/client must not use the peer protocol raft.v1' },
        ],
      }],
    },
  },
  {
    // The observation layer sits below the node and the API; src/lockd/observability.ts, a
    // composition like main.ts, wires both onto one node.
    files: ['src/lockd/node/**/*.ts', 'src/lockd/storage/**/*.ts', 'src/lockd/transport/**/*.ts', 'src/lockd/observe/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '(^|/)api/', message: 'the node, storage and transport layers must not import the API layer (src/lockd/api): main.ts wires services onto the node' },
        ],
      }],
    },
  },
  {
    // The study dashboard draws node-sent strings (lock names, keys, messages): as text only.
    files: ['dashboard/**/*.js'],
    languageOptions: { sourceType: 'module' },
    rules: {
      'no-restricted-properties': ['error',
        ...['innerHTML', 'outerHTML'].map((property) => ({ property, message: 'dashboard: build DOM nodes and set textContent (view.js h()), never markup from data' })),
        ...['insertAdjacentHTML', 'write', 'writeln', 'createContextualFragment'].map((property) => ({ property, message: 'dashboard: no HTML parsing of data' })),
      ],
      'no-eval': 'error',
      'no-implied-eval': 'error',
    },
  },
  {
    files: ['src/raft/**/*.ts', 'src/lockd/state-machine/**/*.ts', 'src/lockd/codec/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { regex: '^node:', message: impure },
          { regex: '^(fs|net|os|path|child_process|timers|crypto|http|http2|dgram|worker_threads|perf_hooks)(/.*)?$', message: impure },
          { regex: '^@grpc/', message: impure },
          { regex: '^(level|classic-level|pino)$', message: impure },
          { regex: '(^|/)lockd(/|$)', message: 'src/raft must not import src/lockd' },
          { regex: '(^|/)(api|node|storage|transport|proto)/', message: 'the pure core must not import the server layers' },
        ],
      }],
      'no-restricted-globals': ['error',
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
      'no-restricted-properties': ['error',
        { object: 'Math', property: 'random', message: impure },
        { object: 'globalThis', property: 'Date', message: impure },
        { object: 'globalThis', property: 'performance', message: impure },
      ],
    },
  },
);
