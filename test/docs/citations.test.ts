// Every reference in the repository must lead somewhere inside it: a `docs/<file>.md §N` citation
// names a heading `## §N …` of that file, a `docs/lessons.md N` citation a numbered lesson there, a
// Markdown link (or a bare `docs/<file>.md#anchor`) a file and heading that exist, and nothing
// cites an issue tracker or a document the repository does not hold.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'test', 'proto', 'scripts', 'bench', 'clients', 'deploy', 'compat', 'dashboard', 'docs'];
const SCANNED_FILES = ['eslint.config.js', 'README.md', 'BENCHMARKS.md', 'cluster.sh', 'package.json', '.mocharc.cjs'];
const TEXT = /\.(ts|js|cjs|mjs|proto|md|txt|py|sh|html|css|json|ya?ml|toml)$/;
/** Generated code, installed packages, and raw run outputs (recorded as printed, not edited). */
const SKIPPED = /(^|\/)(node_modules|gen|_gen|__pycache__|\.venv|dist)(\/|$)|^bench\/results\/.*\.(json|txt)$|package-lock\.json$/;

function files(path: string): string[] {
  const rel = relative(ROOT, path);
  if (SKIPPED.test(rel)) return [];
  const st = statSync(path);
  if (st.isFile()) return TEXT.test(path) ? [path] : [];
  return readdirSync(path).flatMap((name) => files(join(path, name)));
}

/** Computes once per document text: the same docs are consulted for every citation of them. */
function memo<T>(f: (doc: string) => T): (doc: string) => T {
  const seen = new Map<string, T>();
  return (doc) => {
    if (!seen.has(doc)) seen.set(doc, f(doc));
    return seen.get(doc)!;
  };
}

/** The section numbers of `## §N` headings in a docs file. */
const sections = memo((doc: string): Set<string> => new Set([...doc.matchAll(/^## §(\d+)\b/gm)].map((m) => m[1]!)));

/** The numbers of the lessons in docs/lessons.md (`N. **…`). */
const lessons = memo((doc: string): Set<string> => new Set([...doc.matchAll(/^(\d+)\. /gm)].map((m) => m[1]!)));

/** GitHub's anchor for a heading: lower case, punctuation (and `§`) dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file: its headings (outside code blocks; repeats get -1, -2…) and `<a id>`s. */
export const anchors = memo((doc: string): Set<string> => {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of doc.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const h = !fence && /^#{1,6} (.*)$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  }
  return out;
});

export interface Problem {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly why: string;
}

/** Every citation in `text` that does not resolve (`read` loads a repository file, or undefined). */
export function checkCitations(file: string, text: string, read: (path: string) => string | undefined): Problem[] {
  const out: Problem[] = [];
  /** A link target: relative to `file` in Markdown, to the repository root in a bare citation. */
  const link = (target: string, fromRoot: boolean, at: (why: string) => void): void => {
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const repoPath = path === '' ? file : fromRoot ? path : normalize(join(dirname(file), path));
    if (!repoPath.endsWith('.md') || repoPath.startsWith('..')) return;
    const doc = path === '' ? text : read(repoPath);
    if (doc === undefined) at(`${repoPath} does not exist`);
    else if (anchor !== undefined && !anchors(doc).has(anchor)) at(`${repoPath} has no heading for #${anchor}`);
  };
  text.split('\n').forEach((line, k) => {
    const at = (why: string): void => void out.push({ file, line: k + 1, text: line.trim(), why });
    for (const m of line.matchAll(/docs\/([\w-]+\.md) §(\d+)/g)) {
      const doc = read(`docs/${m[1]}`);
      if (doc === undefined) at(`docs/${m[1]} does not exist`);
      else if (!sections(doc).has(m[2]!)) at(`docs/${m[1]} has no heading "## §${m[2]}"`);
    }
    for (const m of line.matchAll(/docs\/lessons\.md (\d+(?:, \d+)*)/g)) {
      const doc = read('docs/lessons.md') ?? '';
      for (const n of m[1]!.split(', ')) if (!lessons(doc).has(n)) at(`docs/lessons.md has no lesson ${n}`);
    }
    // Markdown links to repository files (not URLs); elsewhere a bare docs/<file>.md#anchor.
    if (file.endsWith('.md')) {
      for (const m of line.matchAll(/\]\(([^)\s:]*?(?:\.md)?(?:#[\w-]+)?)\)/g)) if (m[1]) link(m[1], false, at);
    } else {
      for (const m of line.matchAll(/\b(docs\/[\w-]+\.md#[\w-]+)/g)) link(m[1]!, true, at);
    }
    if (/\bissues? #?\d+|\bissue \(#|\(#\d+\)|\b(PR|pull request|bug) #\d+|\bitems? \d+\.\d/i.test(line))
      at('cites an issue number; the issue tracker is not in the repository: say what it means');
    if (/\bLESSONS\.?(md)? \d+/.test(line)) at('cites LESSONS N; cite docs/lessons.md N');
    if (/(^|[^/\w])DESIGN(\.md)?( §|\b)/.test(line)) at('cites DESIGN.md; cite docs/design.md §N');
  });
  return out;
}

/** The repository paths (`src/…`, `test/…`, …) a text names that do not exist; `dist/…` and globs are skipped. */
export function missingPaths(text: string, exists: (path: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w./@-])((?:src|test|bench|scripts|clients|proto|deploy|dashboard|compat|docs)\/[\w./@-]+)/g)) {
    if (/[{*]/.test(text[m.index + m[0].length] ?? '')) continue; // a glob: test/sim/*.ts, run5-{a,b}.json
    const path = m[1]!.replace(/[.]+$/, '');
    if (!exists(path)) out.add(path);
  }
  return [...out];
}

describe('docs: every citation in the repository resolves inside it', () => {
  const cache = new Map<string, string | undefined>();
  const read = (p: string): string | undefined => {
    if (!cache.has(p)) {
      try {
        cache.set(p, readFileSync(join(ROOT, p), 'utf8'));
      } catch {
        cache.set(p, undefined);
      }
    }
    return cache.get(p);
  };

  it('every docs/<file>.md §N names a heading, every lesson and link target exists, no issue/LESSONS/DESIGN.md citation is left', () => {
    const all = [...SCANNED.flatMap((p) => files(join(ROOT, p))), ...SCANNED_FILES.map((f) => join(ROOT, f))];
    const problems = all.flatMap((f) => {
      const rel = relative(ROOT, f);
      return rel === 'test/docs/citations.test.ts' ? [] : checkCitations(rel, readFileSync(f, 'utf8'), read);
    });
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.why}: ${p.text}`)).to.deep.equal([]);
  });

  it('every repository path a Markdown doc names exists (dist/ paths and globs aside)', () => {
    const docs = [
      ...['README.md', 'BENCHMARKS.md'].map((f) => join(ROOT, f)),
      ...['docs', 'src', 'test', 'clients', 'deploy', 'bench'].flatMap((p) => files(join(ROOT, p))),
    ].filter((f) => f.endsWith('.md') && !relative(ROOT, f).startsWith('bench/results/'));
    const missing = docs.flatMap((f) => missingPaths(readFileSync(f, 'utf8'), (p) => existsSync(join(ROOT, p))).map((p) => `${relative(ROOT, f)}: ${p}`));
    expect(missing).to.deep.equal([]);
  });

  it('finds a planted bad citation of each kind', () => {
    const planted = [
      '// see docs/design.md §99',
      '// see docs/nowhere.md §1',
      '// docs/lessons.md 77',
      '// the fix of issue 22',
      '// LESSONS 16',
      '// DESIGN.md §4',
      '// see docs/design.md §4 and docs/lessons.md 11',
      '// a security issue (#12)',
      '// the sharper paths of item 22.4',
      '// see docs/design.md#no-such-heading and docs/design.md#4-leases-on-logical-time-the-tick-and-deadline-margins',
    ].join('\n');
    const why = checkCitations('src/planted.ts', planted, read).map((p) => `${p.line}: ${p.why}`);
    expect(why).to.deep.equal([
      '1: docs/design.md has no heading "## §99"',
      '2: docs/nowhere.md does not exist',
      '3: docs/lessons.md has no lesson 77',
      '4: cites an issue number; the issue tracker is not in the repository: say what it means',
      '5: cites LESSONS N; cite docs/lessons.md N',
      '6: cites DESIGN.md; cite docs/design.md §N',
      '8: cites an issue number; the issue tracker is not in the repository: say what it means',
      '9: cites an issue number; the issue tracker is not in the repository: say what it means',
      '10: docs/design.md has no heading for #no-such-heading',
    ]);
    expect(
      missingPaths('see `src/raft/quorum.ts`, src/raft/nowhere.ts and dist/src/lockd/main.js, test/**/x.ts, test/raft/x*.ts.', (p) =>
        existsSync(join(ROOT, p)),
      ),
    ).to.deep.equal(['src/raft/nowhere.ts']);
    const md = ['[a](docs/api.md#2-clients) [b](docs/gone.md) [c](#nowhere) [d](https://example.com/x.md#y)', '## Here', '[e](#here)'].join('\n');
    expect(checkCitations('README.md', md, read).map((p) => `${p.line}: ${p.why}`)).to.deep.equal([
      '1: docs/gone.md does not exist',
      '1: README.md has no heading for #nowhere',
    ]);
  });
});
