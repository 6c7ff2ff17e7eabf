// The map of src/ is true: every import in src/ is allowed by its folder's row of the one table
// (scripts/import-map.js, which eslint also enforces), no folder-level cycle exists, and the table
// in src/README.md states exactly the table's rows.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { IMPORT_MAP, ROOT, covers, cycles, importProblem, importTarget, rowOf, tableGraph } from '../../scripts/import-map.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [relative(ROOT, p).split('\\').join('/')] : [];
  });
}

/** Every module specifier of a file: import and export-from (types too), `import('…')`, `import x = require('…')`. */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

interface Import {
  readonly from: string;
  readonly specifier: string;
}

/** The row graph of what src/ imports: row path → row paths, with one example import per edge. */
function rowGraph(imports: readonly Import[]): { graph: Map<string, Set<string>>; example: Map<string, string> } {
  const graph = new Map<string, Set<string>>();
  const example = new Map<string, string>();
  for (const { from, specifier } of imports) {
    const target = importTarget(from, specifier);
    const a = rowOf(from)?.path;
    const b = target === undefined ? undefined : rowOf(target)?.path;
    if (!a || !b || a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)!.add(b);
    if (!example.has(`${a} -> ${b}`)) example.set(`${a} -> ${b}`, `${from}: ${specifier}`);
  }
  return { graph, example };
}

/** The rows of the table in src/README.md: folder → the `src/…` names its "may import" cell lists, and whether it says Pure. */
function readmeRows(readme: string): Map<string, { may: string[]; pure: boolean }> {
  const rows = new Map<string, { may: string[]; pure: boolean }>();
  for (const line of readme.split('\n')) {
    if (!line.startsWith('| `src/')) continue;
    const cells = line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, ''));
    const names = (cell: string) => [...cell.matchAll(/`(src\/[^`]*)`/g)].map((m) => m[1]!);
    const folder = names(cells[0]!)[0]!;
    expect(rows.has(folder), `src/README.md lists ${folder} twice`).to.equal(false);
    rows.set(folder, { may: names(cells[cells.length - 1]!).sort(), pure: /\bPure\b/.test(cells[1] ?? '') });
  }
  return rows;
}

describe('docs: the import map of src/ (scripts/import-map.js) is true', () => {
  const files = sourceFiles(join(ROOT, 'src'));
  const imports: Import[] = files.flatMap((from) => specifiers(readFileSync(join(ROOT, from), 'utf8')).map((specifier) => ({ from, specifier })));

  it('every file of src/ is in a row, and every row holds a file', () => {
    expect(
      files.filter((f) => !rowOf(f)),
      'files in no row',
    ).to.deep.equal([]);
    expect(
      IMPORT_MAP.filter((r) => !files.some((f) => rowOf(f) === r)).map((r) => r.path),
      'rows without files',
    ).to.deep.equal([]);
    expect(imports.length).to.be.greaterThan(500); // the parser saw the imports
  });

  it('every import in src/ is allowed by its row', () => {
    const problems = imports.flatMap(({ from, specifier }) => {
      const why = importProblem(from, specifier);
      return why ? [`${from}: '${specifier}': ${why}`] : [];
    });
    expect(problems).to.deep.equal([]);
  });

  it('src/ has no folder-level import cycle, and neither has the table', () => {
    const { graph, example } = rowGraph(imports);
    const found = cycles(graph).map(
      (scc) => `${scc.join(' ↔ ')} (e.g. ${scc.flatMap((a) => scc.map((b) => example.get(`${a} -> ${b}`)).filter(Boolean)).join('; ')})`,
    );
    expect(found).to.deep.equal([]);
    expect(cycles(tableGraph())).to.deep.equal([]);
  });

  it('every `may` entry names a folder or file of src/', () => {
    const dangling = IMPORT_MAP.flatMap((r) => r.may.filter((m) => !files.some((f) => covers(m, f))).map((m) => `${r.path}: ${m}`));
    expect(dangling).to.deep.equal([]);
  });

  it('src/README.md states the same rows: folder, what it may import, and Pure for the pure ones', () => {
    const readme = readmeRows(readFileSync(join(ROOT, 'src', 'README.md'), 'utf8'));
    const table = new Map(IMPORT_MAP.map((r) => [r.path, { may: [...r.may].sort(), pure: !!r.pure }]));
    expect([...readme.keys()].sort()).to.deep.equal([...table.keys()].sort());
    for (const [path, row] of table) expect(readme.get(path), path).to.deep.equal(row);
  });

  it('finds a planted disallowed import and a planted cycle', () => {
    expect(importProblem('src/lockd/observe/node-source.ts', '../node/raft-driver.js')).to.match(/^src\/lockd\/observe\/ may not import src\/lockd\/node\//);
    expect(importProblem('src/client/router.ts', '../proto/raft-package.js')).to.match(/may not import src\/proto\//);
    expect(importProblem('src/lockd/api/unary.ts', '../../../test/support/x.js')).to.match(/outside every row/);
    expect(importProblem('src/lockd/newfolder/x.ts', '../node/config.js')).to.match(/in no row of the map/);
    expect(importProblem('src/lockd/node/lockd-node.ts', '../observe/bus.js')).to.equal(undefined);
    expect(importProblem('src/lockd/node/lockd-node.ts', 'pino')).to.equal(undefined);
    const planted = rowGraph([
      ...imports,
      { from: 'src/lockd/observe/node-source.ts', specifier: '../node/raft-driver.js' }, // the cycle node ↔ observe as it was
    ]);
    expect(cycles(planted.graph)).to.deep.equal([['src/lockd/node/', 'src/lockd/observe/']]);
  });
});
