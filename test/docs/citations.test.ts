// Every reference in the code must lead somewhere inside the repository: a `docs/<file>.md §N`
// citation names a heading `## §N …` of that file, a `docs/lessons.md N` citation a numbered lesson
// there, and nothing cites an issue tracker or a document the repository does not hold.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'test', 'proto', 'eslint.config.js', 'README.md', 'docs'];
const TEXT = /\.(ts|js|cjs|mjs|proto|md|txt|py|sh)$/;

function files(path: string): string[] {
  const st = statSync(path);
  if (st.isFile()) return TEXT.test(path) ? [path] : [];
  return readdirSync(path).flatMap((name) => (name === 'node_modules' || name === 'gen' ? [] : files(join(path, name))));
}

/** The section numbers of `## §N` headings in a docs file. */
function sections(doc: string): Set<string> {
  return new Set([...doc.matchAll(/^## §(\d+)\b/gm)].map((m) => m[1]!));
}

/** The numbers of the lessons in docs/lessons.md (`N. **…`). */
function lessons(doc: string): Set<string> {
  return new Set([...doc.matchAll(/^(\d+)\. /gm)].map((m) => m[1]!));
}

export interface Problem { readonly file: string; readonly line: number; readonly text: string; readonly why: string }

/** Every citation in `text` that does not resolve (`read` loads a repository file, or undefined). */
export function checkCitations(file: string, text: string, read: (path: string) => string | undefined): Problem[] {
  const out: Problem[] = [];
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
    if (/\bissue[ -]#?\d+/i.test(line)) at('cites an issue number; the issue tracker is not in the repository: say what it means');
    if (/\bLESSONS\.?(md)? \d+/.test(line)) at('cites LESSONS N; cite docs/lessons.md N');
    if (/(^|[^/\w])DESIGN(\.md)?( §|\b)/.test(line)) at('cites DESIGN.md; cite docs/design.md §N');
  });
  return out;
}

describe('docs: every citation in the code resolves inside the repository', () => {
  const read = (p: string): string | undefined => {
    try {
      return readFileSync(join(ROOT, p), 'utf8');
    } catch {
      return undefined;
    }
  };

  it('every docs/<file>.md §N names a heading, every lesson exists, and no issue/LESSONS/DESIGN.md citation is left', () => {
    const problems = SCANNED.flatMap((p) => files(join(ROOT, p))).flatMap((f) => {
      const rel = relative(ROOT, f);
      return rel === 'test/docs/citations.test.ts' ? [] : checkCitations(rel, readFileSync(f, 'utf8'), read);
    });
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.why}: ${p.text}`)).to.deep.equal([]);
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
    ].join('\n');
    const why = checkCitations('planted.ts', planted, read).map((p) => `${p.line}: ${p.why}`);
    expect(why).to.deep.equal([
      '1: docs/design.md has no heading "## §99"',
      '2: docs/nowhere.md does not exist',
      '3: docs/lessons.md has no lesson 77',
      '4: cites an issue number; the issue tracker is not in the repository: say what it means',
      '5: cites LESSONS N; cite docs/lessons.md N',
      '6: cites DESIGN.md; cite docs/design.md §N',
    ]);
  });
});
