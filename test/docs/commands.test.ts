// The commands the docs tell a reader to type exist: every `npm run NAME` is a script of
// package.json, every `./cluster.sh VERB` a verb cluster.sh dispatches, and every `lockctl WORDS`
// a command lockctl parses (src/client/lockctl/args.ts). Only code (inline `…` and ``` blocks) is
// read, so prose may say "lockctl is".
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { COMMANDS } from '../../src/client/lockctl/args.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = ['README.md', 'BENCHMARKS.md', 'docs', 'clients/typescript/README.md', 'clients/python/README.md', 'deploy', 'src', 'test'];
/** lockctl's global flags that take a value (GLOBAL_USAGE). */
const VALUE_FLAGS = new Set(['--endpoints', '--timeout', '--cacert', '--cert', '--key']);

function markdown(path: string): string[] {
  if (/node_modules|\/gen\//.test(path)) return [];
  if (statSync(path).isFile()) return path.endsWith('.md') ? [path] : [];
  return readdirSync(path).flatMap((name) => markdown(join(path, name)));
}

/** The code of a Markdown file: each line of a ``` block, and each inline code span. */
export function codeOf(doc: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  let fence = false;
  doc.split('\n').forEach((text, k) => {
    if (/^\s*```/.test(text)) fence = !fence;
    else if (fence) out.push({ line: k + 1, code: text });
    else for (const m of text.matchAll(/`([^`]+)`/g)) out.push({ line: k + 1, code: m[1]! });
  });
  return out;
}

export interface Known {
  readonly scripts: ReadonlySet<string>;
  readonly verbs: ReadonlySet<string>;
  readonly lockctl: readonly (readonly string[])[];
}

/** What in `code` names a command that does not exist. */
export function unknownCommands(code: string, known: Known): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/\bnpm run ([\w:-]+)/g)) if (!known.scripts.has(m[1]!)) out.push(`npm run ${m[1]}: no such script`);
  for (const m of code.matchAll(/\.\/cluster\.sh ([a-z][\w-]*)/g)) if (!known.verbs.has(m[1]!)) out.push(`./cluster.sh ${m[1]}: no such verb`);
  for (const m of code.matchAll(/(?:^|[\s$(])(?:lockctl(?:\.js)?|npm run lockctl --)((?: +[^\s|;&)#]+)+)/g)) {
    const words: string[] = [];
    const tokens = m[1]!.trim().split(/ +/);
    for (let i = 0; i < tokens.length && words.length < 2; i++) {
      const t = tokens[i]!;
      if (t.startsWith('-')) {
        if (VALUE_FLAGS.has(t)) i++;
        continue;
      }
      if (!/^[a-z][a-z-]*$/.test(t)) break;
      words.push(t);
    }
    if (words.length === 0 || words[0] === '--help' || /^(is|the|from|with|and)$/.test(words[0]!)) continue;
    const fits = known.lockctl.some((path) => path.every((w, i) => (i >= words.length ? true : words[i] === w)) || (path.length === 1 && path[0] === words[0]));
    if (!fits) out.push(`lockctl ${words.join(' ')}: no such command`);
  }
  return out;
}

describe('docs: the commands they show exist', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const sh = readFileSync(join(ROOT, 'cluster.sh'), 'utf8');
  const dispatch = sh.slice(sh.lastIndexOf('case "$cmd" in') >= 0 ? sh.lastIndexOf('case "$cmd" in') : sh.lastIndexOf('case '));
  const verbs = new Set([...dispatch.matchAll(/^\s+([a-z][\w-]*(?: \| [\w-]+)*)\)/gm)].flatMap((m) => m[1]!.split(' | ')));
  const known: Known = { scripts: new Set(Object.keys(pkg.scripts)), verbs, lockctl: COMMANDS.map((c) => c.path) };

  it('reads the verbs cluster.sh dispatches', () => {
    for (const v of ['start', 'cert', 'status', 'kill', 'clean']) expect(verbs.has(v), v).to.equal(true);
  });

  it('every npm run, ./cluster.sh and lockctl command in the docs exists', () => {
    const problems = DOCS.flatMap((p) => markdown(join(ROOT, p))).flatMap((f) =>
      codeOf(readFileSync(f, 'utf8')).flatMap(({ line, code }) => unknownCommands(code, known).map((why) => `${relative(ROOT, f)}:${line}: ${why}`)),
    );
    expect(problems).to.deep.equal([]);
  });

  it('finds a planted unknown command of each kind', () => {
    const doc = ['`npm run nope`', '```', './cluster.sh explode 3', '$ lockctl --endpoints a:1 lock smash x', 'lockctl lease grant 3s', '```'].join('\n');
    const found = codeOf(doc).flatMap(({ line, code }) => unknownCommands(code, known).map((why) => `${line}: ${why}`));
    expect(found).to.deep.equal(['1: npm run nope: no such script', '3: ./cluster.sh explode: no such verb', '4: lockctl lock smash: no such command']);
  });
});
