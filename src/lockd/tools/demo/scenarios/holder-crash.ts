// The case the TTL exists for: the holder — a real `lockctl run` process — dies mid-section
// (kill -9). Nobody releases; its lease ends when logical time passes its deadline, and the Tick
// entry that expires it is the very entry that grants the lock to the first waiter: the waiter's
// fencing token names that Tick's index (tokenIndex).
import { createInterface } from 'node:readline';
import { tokenIndex } from '../../../state-machine/token.js';
import { DemoFailure, expiryTick, pending, queued, type Demo, type Scenario } from '../framework.js';

/** The holder's command prints its shell's pid and the token lockctl run passed it, then works (sleeps). */
const SECTION = 'echo "$$ $LOCKD_FENCING_TOKEN"; exec sleep 30';

export const holderCrash: Scenario = {
  name: 'holder-crash',
  title: 'the holder is killed mid-section; its lease expires by logical time; the first waiter is granted by that very entry',
  async run(d) {
    const lock = `demo/holder-crash/${d.runId}`;
    const holder = d.lockctl(['run', lock, '--ttl', '2000', '--', 'sh', '-c', SECTION], 'holder');
    const [shellPid, token] = await firstLine(d, holder);
    const info = await d.client().inspect(lock);
    d.check(info.held && info.fencingToken === token, `${lock} held with token ${token}`, `Inspect says ${JSON.stringify(info)}`);
    await d.entry(
      tokenIndex(token),
      `holder: \`lockctl run\` (pid ${holder.pid}, lease ${info.holderLeaseId}, ttl 2000 ms, kept alive) holds ${lock}: fencing token ${token}; its command (pid ${shellPid}) is in its critical section`,
    );

    const b = d.client('B');
    const leaseB = await b.grantLease(10_000);
    const mark = d.events.mark();
    const gotB = pending(b.acquire(lock, { lease: leaseB }));
    await d.entry(await queued(d, lock, leaseB.id, mark), `client B (lease ${leaseB.id}) waits for ${lock}`);

    const crashAt = d.events.mark();
    process.kill(holder.pid!, 'SIGKILL');
    try {
      process.kill(-shellPid, 'SIGKILL'); // the section itself (lockctl run's own process group)
    } catch {
      // gone already
    }
    d.say(
      `kill -9 the holder's process group: \`lockctl run\` (pid ${holder.pid}) and its command (pid ${shellPid}), mid-section: no release, no more keepalives`,
    );
    const tick = await expiryTick(d, info.holderLeaseId, 10_000, crashAt);
    const lockB = await gotB;
    await d.entry(
      tick.index,
      `Tick: logical now ${tick.now} ms passed lease ${info.holderLeaseId}'s deadline${tick.deadline === undefined ? '' : ` ${tick.deadline} ms`}: it expires, freeing ${lock}, and this same entry grants it to B`,
    );
    d.check(tokenIndex(lockB.token) === tick.index, `B's fencing token to name the expiring Tick's index ${tick.index}`, `B got token ${lockB.token}`);
    d.check(lockB.token > token, `B's token above the crashed holder's ${token}`, `B got ${lockB.token}`);
    d.say(`client B holds ${lock}: fencing token ${lockB.token}, granted by the Tick (index ${tick.index})`);
    await lockB.release();
    await leaseB.revoke();
    return `the crashed holder's lease expired at entry #${tick.index}, which granted the waiter token ${lockB.token}`;
  },
};

/** The holder's first line: its section's pid and fencing token (or a failure with what lockctl said). */
function firstLine(d: Demo, holder: ReturnType<Demo['lockctl']>): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    holder.stderr!.on('data', (c) => (stderr += c));
    const timer = setTimeout(
      () => reject(new DemoFailure(`expected the holder to take the lock within 10 s; lockctl said: ${stderr.trim() || 'nothing'}`)),
      10_000,
    );
    holder.once('exit', (code) => reject(new DemoFailure(`expected the holder to keep running, but lockctl exited ${code}: ${stderr.trim()}`)));
    createInterface({ input: holder.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      const m = /^(\d+) (\d+)$/.exec(line.trim());
      if (m) resolve([Number(m[1]), Number(m[2])]);
      else reject(new DemoFailure(`expected "PID TOKEN" from the holder's command, got ${JSON.stringify(line)}`));
    });
  });
}
