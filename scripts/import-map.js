// The map of src/ as data: which folder may import which. ONE table, read by three checks so that
// the map and its fences cannot drift apart:
//  - eslint (eslint.config.js, rule lockd/import-map): every relative import in src/ is allowed by
//    its folder's row, and the pure rows get the purity fence (no I/O, clock or randomness);
//  - test/docs/import-graph.test.ts (npm test): parses every import in src/, fails on an import no
//    row allows and on any folder-level cycle, checks this table is acyclic, and that the table in
//    src/README.md states exactly these rows;
//  - src/README.md, the table a reader reads (checked against this one by that test).
// Since every import must be allowed by a row and the rows form no cycle, src/ has no folder cycle.
//
// A row is a folder (`src/x/`: everything under it, unless a longer row claims a subfolder) or the
// files directly in one (`src/lockd/*.ts`). `may` lists what its files may import besides their own
// row: a folder (`src/x/`), one file (`src/x/y.ts`), or a folder's own files (`src/x/*.ts`). Package
// imports (grpc-js, pino, ...) are not rows: the purity fence restricts them where it matters.
import { dirname, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** @type {ReadonlyArray<{ readonly path: string; readonly pure?: boolean; readonly may: readonly string[] }>} */
export const IMPORT_MAP = [
  // The loader of the .proto contracts and the generated types: the bottom of every side.
  { path: 'src/proto/', may: [] },
  // The consensus core knows nothing of lockd.
  { path: 'src/raft/', pure: true, may: [] },
  { path: 'src/lockd/codec/', pure: true, may: [] },
  // The replicated state, leases and replicated time included: entries in, results out.
  { path: 'src/lockd/state-machine/', pure: true, may: ['src/lockd/codec/', 'src/raft/'] },
  { path: 'src/lockd/storage/', may: ['src/raft/'] },
  // The peer protocol only: a public (lockd.v1) type here would let the peer port serve clients.
  { path: 'src/lockd/transport/', may: ['src/raft/', 'src/lockd/codec/', 'src/proto/raft-package.ts', 'src/proto/gen/raft/'] },
  // Below the node: it owns its settings type (security/settings.ts) rather than reading NodeConfig.
  { path: 'src/lockd/security/', may: ['src/lockd/state-machine/'] },
  // Below the node: the node publishes into it; it reads a node through its own port (node-view.ts).
  { path: 'src/lockd/observe/', may: ['src/raft/', 'src/lockd/state-machine/', 'src/lockd/security/'] },
  // The node never imports a service: main.ts hands it registrars.
  {
    path: 'src/lockd/node/',
    may: ['src/raft/', 'src/lockd/state-machine/', 'src/lockd/storage/', 'src/lockd/transport/', 'src/lockd/security/', 'src/lockd/observe/'],
  },
  // The public services: the public contract only (never raft.v1), forwarding over the transport's channel settings;
  // Maintenance.Snapshot streams the backup file's format (storage/backup-file.ts).
  {
    path: 'src/lockd/api/',
    may: [
      'src/raft/',
      'src/lockd/state-machine/',
      'src/lockd/security/',
      'src/lockd/observe/',
      'src/lockd/transport/',
      'src/lockd/node/',
      'src/lockd/storage/backup-file.ts',
      'src/proto/lockd-package.ts',
      'src/proto/load.ts',
      'src/proto/gen/lockd/',
    ],
  },
  // The compositions (main.ts, composition.ts, observability.ts): nothing in src/ imports them but main.ts.
  { path: 'src/lockd/*.ts', may: ['src/lockd/'] },
  // Operator tools speak to nodes as clients do; lockctl loads demo and log-dump by path at run time.
  { path: 'src/lockd/tools/', may: ['src/client/'] },
  { path: 'src/lockd/tools/demo/', may: ['src/client/', 'src/lockd/observe/observed-events.ts', 'src/lockd/state-machine/token.ts'] },
  { path: 'src/lockd/tools/log-dump/', may: ['src/client/', 'src/raft/', 'src/lockd/storage/', 'src/lockd/state-machine/'] },
  { path: 'src/lockd/tools/backup/', may: ['src/client/', 'src/lockd/storage/', 'src/lockd/state-machine/'] },
  // Run by main.ts before any node starts; it reads the node's flag parsers.
  {
    path: 'src/lockd/tools/restore/',
    may: ['src/client/', 'src/lockd/storage/', 'src/lockd/state-machine/', 'src/lockd/node/config.ts', 'src/lockd/node/versions.ts'],
  },
  // The client speaks only the public contract.
  { path: 'src/client/', may: ['src/proto/lockd-package.ts', 'src/proto/gen/lockd/'] },
];

/** Whether `entry` (a row's path or a `may` item) covers the repository file `file`. */
export function covers(entry, file) {
  if (entry.endsWith('/*.ts')) return posix.dirname(file) + '/*.ts' === entry;
  if (entry.endsWith('/')) return file.startsWith(entry);
  return file === entry;
}

/** The row a repository file belongs to: the longest path that covers it (undefined: not in the map). */
export function rowOf(file) {
  let best;
  for (const row of IMPORT_MAP) if (covers(row.path, file) && (!best || row.path.length > best.path.length)) best = row;
  return best;
}

/** The repository file a relative import of `from` names (`.js` as the `.ts` it is built from); undefined for a package. */
export function importTarget(from, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  return posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
}

/** Why the import of `specifier` in repository file `from` is not allowed by the map; undefined if it is. */
export function importProblem(from, specifier) {
  const target = importTarget(from, specifier);
  if (target === undefined) return undefined;
  const row = rowOf(from);
  if (!row) return `${from} is in no row of the map: add its folder to scripts/import-map.js and src/README.md`;
  const to = rowOf(target);
  if (!to) return `${specifier} (${target}) is outside every row of the map: src/ imports only src/`;
  if (to === row || row.may.some((m) => covers(m, target))) return undefined;
  return `${row.path} may not import ${to.path} (${target}): the map (src/README.md, scripts/import-map.js) lets it import ${row.may.length ? row.may.join(', ') : 'nothing in src/'}`;
}

/** The rows a `may` item reaches: for a folder every row under it and the row holding it; else the row holding the file. */
export function rowsReached(entry) {
  const reached = new Set();
  if (entry.endsWith('/')) {
    for (const r of IMPORT_MAP) if (r.path.startsWith(entry)) reached.add(r);
    const holder = rowOf(entry + 'x.ts');
    if (holder) reached.add(holder);
  } else {
    const holder = rowOf(entry.endsWith('/*.ts') ? entry.replace('*.ts', 'x.ts') : entry);
    if (holder) reached.add(holder);
  }
  return [...reached];
}

/**
 * Folder-level cycles of a graph (row path → row paths): its strongly connected components of more
 * than one row, each sorted (Tarjan's algorithm). A row importing itself is no cycle.
 */
export function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const out = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (w === v) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** The table's own graph: row → the rows its `may` items reach. */
export function tableGraph() {
  return new Map(IMPORT_MAP.map((row) => [row.path, new Set(row.may.flatMap((m) => rowsReached(m).map((r) => r.path)).filter((p) => p !== row.path))]));
}

/** eslint globs of the pure rows (the purity fence in eslint.config.js). */
export function pureFiles() {
  return IMPORT_MAP.filter((r) => r.pure).map((r) => (r.path.endsWith('/*.ts') ? r.path : `${r.path}**/*.ts`));
}

const repoPath = (filename) => relative(ROOT, filename).split(sep).join('/');

/** eslint rule: every relative import (static, dynamic with a literal, export-from, import type) allowed by the map. */
const importMapRule = {
  meta: { type: 'problem', docs: { description: 'imports follow the map of src/ (scripts/import-map.js)' }, schema: [] },
  create(context) {
    const from = repoPath(context.filename);
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const why = importProblem(from, source.value);
      if (why) context.report({ node, message: why });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source : undefined),
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};

export const importMapPlugin = { rules: { 'import-map': importMapRule } };
