// The refusal log's limiter (src/lockd/observe/log-limiter.ts) on an injected clock: the first
// event of a kind is logged at once, the rest of its interval become one summary line, an idle
// kind is forgotten, and the number of kinds tracked is capped.
import { expect } from 'chai';
import { LogLimiter, OVERFLOW_KIND } from '../../../src/lockd/observe/log-limiter.js';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg: string;
}

function limiter(maxKinds?: number): { lim: LogLimiter; lines: Line[]; at(ms: number): void } {
  let now = 0;
  const lines: Line[] = [];
  const lim = new LogLimiter({
    now: () => now,
    intervalMs: 10_000,
    ...(maxKinds ? { maxKinds } : {}),
    emit: (level, fields, msg) => lines.push({ level, fields, msg }),
  });
  return { lim, lines, at: (ms) => void (now = ms) };
}

describe('LogLimiter: refusals as a count per interval', () => {
  it('logs the first of a kind at once and counts the rest into one summary per interval', () => {
    const { lim, lines, at } = limiter();
    for (let i = 0; i < 1000; i++) lim.note('PERMISSION_DENIED refusals of Acquire', 'info', { i }, `refused ${i}`);
    expect(lines.map((l) => l.msg)).to.deep.equal(['refused 0']);
    expect(lines[0].fields).to.include({ i: 0, kind: 'PERMISSION_DENIED refusals of Acquire' });
    at(9_999);
    lim.flush();
    expect(lines).to.have.length(1); // the interval has not ended
    at(10_000);
    lim.flush();
    expect(lines[1]).to.deep.equal({
      level: 'info',
      fields: { event: 'refusals suppressed', kind: 'PERMISSION_DENIED refusals of Acquire', count: 999, seconds: 10 },
      msg: '999 more PERMISSION_DENIED refusals of Acquire in the last 10 s',
    });
    // Still busy: counted in the next interval without a new first line.
    at(12_000);
    lim.note('PERMISSION_DENIED refusals of Acquire', 'info', {}, 'again');
    at(20_000);
    lim.flush();
    expect(lines.map((l) => l.msg).slice(2)).to.deep.equal(['1 more PERMISSION_DENIED refusals of Acquire in the last 10 s']);
  });

  it('forgets a kind that went quiet: its next event is logged at once', () => {
    const { lim, lines, at } = limiter();
    lim.note('k', 'warn', {}, 'first');
    at(10_000);
    lim.flush();
    expect(lim.size()).to.equal(0);
    expect(lines).to.have.length(1); // nothing suppressed, no summary
    at(10_001);
    lim.note('k', 'warn', {}, 'second');
    expect(lines.map((l) => l.msg)).to.deep.equal(['first', 'second']);
  });

  it('summarizes a kind whose interval ended when its next event arrives, before any flush', () => {
    const { lim, lines, at } = limiter();
    lim.note('k', 'warn', {}, 'a');
    lim.note('k', 'warn', {}, 'b');
    at(15_000);
    lim.note('k', 'warn', {}, 'c');
    expect(lines.map((l) => l.msg)).to.deep.equal(['a', '1 more k in the last 15 s']);
    lim.flush(true); // a stop: every count is written
    expect(lines.map((l) => l.msg)).to.deep.equal(['a', '1 more k in the last 15 s', '1 more k in the last 0 s']);
  });

  it('keeps kinds apart, and caps how many it tracks: the rest share one count', () => {
    const { lim, lines, at } = limiter(4);
    for (let i = 0; i < 100; i++) lim.note(`kind ${i}`, 'warn', { i }, `line ${i}`);
    expect(lim.size()).to.equal(4);
    expect(lines.map((l) => l.msg)).to.deep.equal(['line 0', 'line 1', 'line 2', 'line 3 (more refusal kinds than 4: further ones are counted together)']);
    expect(lines[3].fields).to.include({ kind: OVERFLOW_KIND, of: 'kind 3' });
    lim.note('kind 1', 'warn', {}, 'tracked'); // a tracked kind is still counted under its own name
    at(10_000);
    lim.flush();
    expect(
      lines
        .map((l) => l.msg)
        .slice(4)
        .sort(),
    ).to.deep.equal([`1 more kind 1 in the last 10 s`, `96 more ${OVERFLOW_KIND} in the last 10 s`]);
    expect(lim.size()).to.equal(2); // the busy ones (kind 1, the overflow) stay, the quiet ones are forgotten
  });
});
