// The test-only faults (node/test-faults.ts): armed only by the --unsafe-test-faults flag (never
// the environment), commands parsed strictly and bounded, a refused command changes nothing.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseConfig } from '../../../src/lockd/node/config.js';
import { MAX_BLOCK_LOOP_MS, MAX_CLOCK_JUMP_MS, TestFaults, parseFaultCommand } from '../../../src/lockd/node/test-faults.js';

const BASE = [
  '--id',
  'n1',
  '--listen',
  '127.0.0.1:7001',
  '--peer-listen',
  '127.0.0.1:7101',
  '--peers',
  'n1=127.0.0.1:7101',
  '--data-dir',
  '/tmp/x',
  '--cluster-id',
  'c',
];

describe('test faults', () => {
  it('are off by default and armed only by the flag, not by LOCKD_UNSAFE_TEST_FAULTS', () => {
    expect(parseConfig(BASE, {}).unsafeTestFaults).to.equal(undefined);
    expect(parseConfig(BASE, { LOCKD_UNSAFE_TEST_FAULTS: '/tmp/f' }).unsafeTestFaults).to.equal(undefined);
    expect(parseConfig([...BASE, '--unsafe-test-faults', '/tmp/f'], {}).unsafeTestFaults).to.equal('/tmp/f');
  });

  it('--unsafe-no-fsync (the power-cut control build) is off by default and set only by the flag, not by LOCKD_UNSAFE_NO_FSYNC', () => {
    expect(parseConfig(BASE, {}).unsafeNoFsync).to.equal(undefined);
    expect(parseConfig(BASE, { LOCKD_UNSAFE_NO_FSYNC: '1' }).unsafeNoFsync).to.equal(undefined);
    expect(parseConfig([...BASE, '--unsafe-no-fsync'], {}).unsafeNoFsync).to.equal(true);
  });

  it('parse isolate, heal and clock-jump MS within bounds, and nothing else', () => {
    expect(parseFaultCommand('isolate\n')).to.deep.equal({ kind: 'isolate' });
    expect(parseFaultCommand(' heal ')).to.deep.equal({ kind: 'heal' });
    expect(parseFaultCommand('clock-jump 60000\n')).to.deep.equal({ kind: 'clock-jump', ms: 60_000 });
    expect(parseFaultCommand(`clock-jump ${MAX_CLOCK_JUMP_MS}`)).to.deep.equal({ kind: 'clock-jump', ms: MAX_CLOCK_JUMP_MS });
    for (const bad of ['', 'isolate now', 'clock-jump', 'clock-jump 0', 'clock-jump -5', `clock-jump ${MAX_CLOCK_JUMP_MS + 1}`, 'clock-jump 1e9', 'rm -rf /']) {
      expect(parseFaultCommand(bad), bad).to.be.a('string').and.contain('not a fault command');
    }
  });

  it('parse block-loop MS within 1..MAX_BLOCK_LOOP_MS, and nothing else', () => {
    expect(parseFaultCommand('block-loop 300\n')).to.deep.equal({ kind: 'block-loop', ms: 300 });
    expect(parseFaultCommand(`block-loop ${MAX_BLOCK_LOOP_MS}`)).to.deep.equal({ kind: 'block-loop', ms: MAX_BLOCK_LOOP_MS });
    for (const bad of ['block-loop', 'block-loop 0', `block-loop ${MAX_BLOCK_LOOP_MS + 1}`, 'block-loop 5s', 'block-loop 1 2']) {
      expect(parseFaultCommand(bad), bad).to.be.a('string').and.contain('not a fault command');
    }
  });

  it('apply commands from the file; an unreadable, oversize or unknown one changes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockd-faults-'));
    try {
      const file = join(dir, 'fault');
      const f = new TestFaults(file, pino({ level: 'silent' }));
      f.runCommandFile(); // no file yet
      expect(f.isolated).to.equal(false);
      writeFileSync(file, 'isolate\n');
      f.runCommandFile();
      expect(f.isolated).to.equal(true);
      writeFileSync(file, `heal${' '.repeat(300)}`);
      f.runCommandFile(); // over 256 bytes: refused unread
      expect(f.isolated).to.equal(true);
      writeFileSync(file, 'heal\n');
      f.runCommandFile();
      expect(f.isolated).to.equal(false);
      const before = f.now();
      writeFileSync(file, 'clock-jump 5000\n');
      f.runCommandFile();
      expect(f.now() - before).to.be.at.least(5000);
      writeFileSync(file, 'clock-jump nope\n');
      const mid = f.now();
      f.runCommandFile();
      expect(f.now() - mid).to.be.below(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
