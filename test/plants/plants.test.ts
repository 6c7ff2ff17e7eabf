// The planted bugs of test/plants (docs/testing.md §4) must still apply to src/ as it is: a patch
// whose context changed would make run.sh fail, and the catch rates in the docs would silently stop
// being reproducible (shared-token.patch did, once the invariant sweep was split into parts).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const PATCHES = readdirSync(HERE)
  .filter((f) => f.endsWith('.patch'))
  .sort();

describe('test/plants: every planted bug applies to src/', () => {
  it('there are plants', () => {
    expect(PATCHES.length).to.be.greaterThan(0);
  });
  for (const p of PATCHES)
    it(`${p} applies (git apply --check) and touches only src/`, () => {
      const file = join(HERE, p);
      execFileSync('git', ['apply', '--check', file], { cwd: ROOT, stdio: 'pipe' });
      const touched = execFileSync('git', ['apply', '--numstat', file], { cwd: ROOT, encoding: 'utf8' })
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[2]);
      expect(touched.length).to.be.greaterThan(0);
      for (const f of touched) expect(f, `${p} changes ${f}`).to.match(/^src\//);
    });
});
