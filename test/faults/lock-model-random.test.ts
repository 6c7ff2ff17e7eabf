// The linearizability checker on random histories generated from a sequential lock with leases that
// expire at random: every such history is linearizable by construction (each operation's interval
// contains the moment it was applied), with or without unknown outcomes — the checker must never flag
// one. Corrupting one answer must, most of the time, be caught.
import { expect } from 'chai';
import { checkLinearizable } from './linearizable-check.js';
import { generate } from './random-lock-history.js';

describe('faults: linearizability checker on random valid histories', () => {
  it('never flags a history generated from the sequential lock (200 seeds, with unknown outcomes)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { ops } = generate(seed, 150, seed % 2 ? 0.1 : 0);
      const rep = checkLinearizable(ops, 5000);
      expect(rep.verdict, `seed ${seed}: ${JSON.stringify(rep.parts.find((p) => p.verdict !== 'ok')?.failure ?? {}).slice(0, 2000)}`).to.equal('ok');
    }
  });

  it('never flags one with a third party inspecting, releasing (right and wrong tokens) and cancelling (200 seeds)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { ops } = generate(seed, 150, seed % 2 ? 0.1 : 0, true);
      expect(ops.some((o) => o.process === 'x')).to.equal(true);
      const rep = checkLinearizable(ops, 5000);
      expect(rep.verdict, `seed ${seed}: ${JSON.stringify(rep.parts.find((p) => p.verdict !== 'ok')?.failure ?? {}).slice(0, 2000)}`).to.equal('ok');
    }
  });

  it('catches a corrupted answer in most histories', () => {
    let caught = 0;
    let tried = 0;
    for (let seed = 1; seed <= 100; seed++) {
      const { ops, grants } = generate(seed, 150, 0);
      if (grants.length < 3) continue;
      tried++;
      // Report a later grant's token as an earlier one's: tokens would go backwards.
      const g = ops[grants[grants.length - 1]];
      const early = ops[grants[0]].output as { token: number };
      (g.output as { token: number }).token = early.token;
      if (checkLinearizable(ops, 5000).verdict === 'illegal') caught++;
    }
    expect(tried).to.be.greaterThan(50);
    expect(caught / tried).to.be.greaterThan(0.9);
  });
});
