// Runs every transcript in test/raft/transcripts/ (format: that folder's README.md). A mismatch
// fails with a diff of each block whose output changed; REWRITE_TRANSCRIPTS=1 writes the actual
// output into the files instead (review the change with git diff before committing it).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parse, render, run } from './transcript.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'transcripts');
const rewrite = process.env.REWRITE_TRANSCRIPTS === '1';

describe('raft transcripts (test/raft/transcripts/*.txt)', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt')).sort();

  it('finds the transcripts', () => {
    expect(files.length).to.be.at.least(5);
  });

  for (const file of files) {
    it(file, () => {
      const path = join(dir, file);
      const text = readFileSync(path, 'utf8');
      const { blocks, trailer } = parse(text);
      const outputs = run(blocks);
      if (rewrite) {
        writeFileSync(path, render(blocks, outputs, trailer));
        return;
      }
      const diffs = blocks.flatMap((b, k) => {
        const want = b.expected.join('\n');
        const got = outputs[k].join('\n');
        if (want === got) return [];
        return [`${file}:${b.line}: ${b.command}\n${lineDiff(b.expected, outputs[k]).join('\n')}`];
      });
      if (diffs.length > 0) {
        expect.fail(`${diffs.length} block(s) differ (- expected, + actual); REWRITE_TRANSCRIPTS=1 rewrites them:\n\n${diffs.join('\n\n')}`);
      }
    });
  }
});

/** A line diff by longest common subsequence: "  same", "- expected only", "+ actual only". */
function lineDiff(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(`- ${a[i++]}`);
    } else {
      out.push(`+ ${b[j++]}`);
    }
  }
  return out;
}
