// Runs every transcript in test/raft/transcripts/ (format: that folder's README.md). A mismatch
// fails with a diff of each block whose output changed; REWRITE_TRANSCRIPTS=1 writes the actual
// output into the files instead (review the change with git diff before committing it).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { TranscriptError, parse, render, run } from './transcript.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'transcripts');
const rewrite = process.env.REWRITE_TRANSCRIPTS === '1';

describe('raft transcripts (test/raft/transcripts/*.txt)', () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort();

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

describe('transcript runner', () => {
  const text = '# two nodes\ncluster a b\n----\nok\n\npropose a x\n----\n1@1\n\n# trailing comment\n';

  it('runs commands, and renders a file back unchanged when the outputs match', () => {
    const { blocks, trailer } = parse(text);
    const outputs = run(blocks);
    expect(outputs).to.deep.equal([['ok'], ['refused']]); // a is not the leader: the expectation is stale
    expect(render(blocks, [['ok'], ['1@1']], trailer)).to.equal(text);
    expect(render(blocks, outputs, trailer)).to.equal(text.replace('1@1', 'refused'));
  });

  it('refuses a malformed transcript instead of recording it', () => {
    expect(() => parse('status a\nok\n')).to.throw(TranscriptError, /line 1: command "status a" is not followed by a "----" line/);
    expect(() => run(parse('cluster a b\n----\n\ntick a nn=2\n----\n').blocks)).to.throw(TranscriptError, /line 4: tick a nn=2: unknown argument nn=/);
    expect(() => run(parse('frobnicate\n----\n').blocks)).to.throw(TranscriptError, /unknown command "frobnicate"/);
  });

  it('refuses the steps of a taken Ready out of order', () => {
    const steps = (cmds: string[]) => () => run(parse(cmds.map((c) => `${c}\n----\n`).join('\n')).blocks);
    const start = ['cluster a b', 'campaign a']; // a's first Ready: PreVotes to b
    expect(steps([...start, 'persist a'])).to.throw(TranscriptError, /a has no taken Ready/);
    expect(steps([...start, 'take a', 'take a'])).to.throw(TranscriptError, /a has a taken Ready/);
    expect(steps([...start, 'take a', 'ready a'])).to.throw(TranscriptError, /a has a taken Ready/);
    expect(steps([...start, 'take a', 'stabilize'])).to.throw(TranscriptError, /a has a taken Ready/);
    expect(steps([...start, 'take a', 'advance a'])).to.throw(TranscriptError, /not persisted yet/);
    expect(steps([...start, 'take a', 'persist a', 'advance a'])).to.throw(TranscriptError, /not all sent yet/);
    expect(steps([...start, 'take a', 'persist a', 'persist a'])).to.throw(TranscriptError, /persisted already/);
    // In order, and a restart in the middle of a taken Ready, are fine.
    expect(steps([...start, 'take a', 'persist a', 'release a', 'advance a', 'take a', 'restart a', 'take a'])()).to.have.length(9);
  });
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
