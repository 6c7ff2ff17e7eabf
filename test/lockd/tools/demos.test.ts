// Every `lockctl demo` is a test: the real lockctl (the build) against a real cluster started by
// ./cluster.sh in a temp dir on free ports, with the test-only faults on. A demo exits 0 only when
// it observed its expected outcome; it must also leave the cluster whole (every node up, one leader).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCKCTL_MAIN, ROOT } from '../../support/build.js';
import { reapOnExit } from '../../support/reaper.js';
import { waitFor } from '../../support/process-cluster.js';
import { ScriptCluster } from '../../support/script-cluster.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `lockctl ARGS` to its end (bounded: the demo's own 120 s bound, plus a margin). */
function lockctl(args: readonly string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [LOCKCTL_MAIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    reapOnExit(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 140_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Run `lockctl demo NAME` on `cluster`; expect OK and the cluster left whole (every node alive, one leader). */
async function runDemoOn(cluster: ScriptCluster, name: string): Promise<string> {
  const r = await lockctl(['demo', name], cluster.env);
  const shown = `exit ${r.code}\n${r.stdout}${r.stderr}`;
  expect(r.code, shown).to.equal(0);
  expect(r.stdout, shown).to.match(/^OK: /m);
  const status = await cluster.sh(['status']);
  expect(status.code, status.output).to.equal(0);
  const rows = status.output
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => row.split(/\s+/)); // ID ADDRESS PID ALIVE ROLE TERM LEADER ...
  expect(
    rows.filter((row) => row[3] === 'yes'),
    status.output,
  ).to.have.length(cluster.size);
  expect(
    rows.filter((row) => row[4] === 'leader'),
    status.output,
  ).to.have.length(1);
  return r.stdout;
}

describe('lockctl demo on a ./cluster.sh cluster', function () {
  this.timeout(150_000);
  let cluster: ScriptCluster;

  before(async () => {
    cluster = await ScriptCluster.start(3);
  });
  after(async () => {
    await cluster?.stop();
  });

  const demo = (name: string): Promise<string> => runDemoOn(cluster, name);

  /** The timeline's lines: term, index and what. */
  const lines = (out: string): Array<{ term?: number; index?: number; what: string }> =>
    out.split('\n').flatMap((l) => {
      const m = /^\s*(\d+|·)\s+(#\d+|·)\s{2}(.*)$/.exec(l);
      return m ? [{ ...(m[1] === '·' ? {} : { term: Number(m[1]) }), ...(m[2] === '·' ? {} : { index: Number(m[2].slice(1)) }), what: m[3] }] : [];
    });

  it("gc-pause: the paused holder's late write is refused, with a token below the next holder's", async () => {
    const out = await demo('gc-pause');
    const refused = lines(out).find((l) => /REFUSED \((\d+) < (\d+)\)/.test(l.what));
    expect(refused, out).to.not.equal(undefined);
    const [, stale, highest] = /REFUSED \((\d+) < (\d+)\)/.exec(refused!.what)!.map(Number);
    expect(stale).to.be.below(highest);
    expect(refused!.term, out).to.be.a('number');
  });

  it("holder-crash: the waiter's token names the Tick that expired the killed holder's lease", async () => {
    const out = await demo('holder-crash');
    const tick = lines(out).find((l) => l.what.startsWith('Tick:'));
    expect(tick?.index, out).to.be.a('number');
    expect(out).to.contain(`granted by the Tick (index ${tick!.index})`);
  });

  it('slow-release: the stale release is refused and the new holder keeps the lock', async () => {
    const out = await demo('slow-release');
    expect(out).to.match(/releases .* with token \d+: REFUSED \(compare-and-delete/);
    expect(out).to.match(/B's lock was not freed/);
  });

  it('leader-failover: the same token holds under the new leader, the lease not shortened', async () => {
    const out = await demo('leader-failover');
    const elected = lines(out).find((l) => / elected leader in term /.test(l.what));
    expect(elected?.term, out).to.be.above(0);
    expect(out).to.match(/not shortened/);
  });

  it('partitioned-leader: the isolated leader commits nothing while the majority elects a leader and expires the lease', async () => {
    const out = await demo('partitioned-leader');
    expect(out).to.match(/commit index \d+ \(frozen\)/);
    expect(out).to.match(/rejoins as a follower/);
  });

  it("whole-cluster-crash: the grant, its token and the lease's remaining time survive kill -9 of every node", async () => {
    const out = await demo('whole-cluster-crash');
    const m = /lease \d+ has (\d+) ms left \((\d+) before the crash/.exec(out);
    expect(m, out).to.not.equal(null);
    expect(Number(m![1])).to.be.above(0).and.at.most(Number(m![2]));
  });

  it("clock-jump: a 60 s leap of the leader's clock moves logical time by one capped Tick, whose measured time it prints; the printed sums add up; the lease expires on time", async () => {
    const out = await demo('clock-jump');
    const tl = lines(out);
    const k = tl.findIndex((l) => /^Tick: n\d+ measured \d+ ms since #/.test(l.what));
    expect(k, out).to.be.above(0);
    // The Tick before the leap's, printed right above it: what logical time the leap's Tick adds to.
    const before = /^Tick: (?:n\d+ measured (\d+) ms, )?counted (\d+) ms: logical now (\d+) ms/.exec(tl[k - 1].what);
    const leap = /^Tick: (n\d+) measured (\d+) ms since #(\d+), counted (\d+) ms \(the cap\): logical now (\d+) \+ (\d+) = (\d+) ms$/.exec(tl[k].what);
    expect(before, out).to.not.equal(null);
    expect(leap, out).to.not.equal(null);
    const [, , measured, since, counted, from, plus, sum] = leap!.map(Number);
    expect(measured, 'the leader measured the whole leap').to.be.at.least(60_000);
    expect(counted).to.equal(200);
    expect(since, "the leap's Tick counts from the Tick printed above it").to.equal(tl[k - 1].index);
    expect(tl[k].index, out).to.be.above(since);
    expect(from, "it adds to that Tick's logical now: no Tick skipped").to.equal(Number(before![3]));
    expect(plus).to.equal(counted);
    expect(from + plus, 'the printed sum').to.equal(sum);
    if (before![1] !== undefined) expect(Number(before![1])).to.be.below(1_000); // the Tick before: an ordinary ~100 ms
    const expiry = /expires at logical now (\d+) ms \(its deadline (\d+) ms\).*on time, not 60 s early/.exec(out);
    expect(expiry, out).to.not.equal(null);
    expect(Number(expiry![1])).to.be.at.least(Number(expiry![2])).and.above(sum);
  });

  it('piped into a reader that stops early (| head), a demo ends quietly with exit 0 and still undoes its faults (heals the isolated leader)', async () => {
    const proc = spawn(process.execPath, [LOCKCTL_MAIN, 'demo', 'partitioned-leader'], {
      cwd: ROOT,
      env: { ...process.env, ...cluster.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    reapOnExit(proc);
    let stderr = '';
    proc.stderr.on('data', (d) => (stderr += d));
    // The reader goes away once the leader is isolated: the demo's next line has nobody to read it.
    let seen = '';
    proc.stdout.on('data', (d) => {
      seen += d;
      if (seen.includes('isolate the leader')) proc.stdout.destroy();
    });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => resolve(c)));
    clearTimeout(timer);
    expect(seen).to.contain('isolate the leader');
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    // Healed: every node alive, and one leader once the old one has heard the new term (bounded).
    await waitFor(
      'one leader, every node alive',
      async () => {
        const rows = (await cluster.sh(['status'])).output
          .trim()
          .split('\n')
          .slice(1)
          .map((row) => row.split(/\s+/));
        return rows.filter((row) => row[3] === 'yes').length === 3 && rows.filter((row) => row[4] === 'leader').length === 1 ? true : undefined;
      },
      15_000,
      200,
    );
  });

  it('lists the demos and refuses an unknown one (exit 2)', async () => {
    const list = await lockctl(['demo', 'list'], cluster.env);
    expect(list.code).to.equal(0);
    for (const n of ['gc-pause', 'holder-crash', 'slow-release', 'leader-failover', 'partitioned-leader', 'whole-cluster-crash', 'clock-jump'])
      expect(list.stdout).to.contain(n);
    const bad = await lockctl(['demo', 'no-such-demo'], cluster.env);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('unknown demo "no-such-demo"');
  });

  it('says there is no cluster when the cluster dir holds none (exit 1)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'lockd-nocluster-'));
    try {
      const r = await lockctl(['demo', 'gc-pause'], { ...cluster.env, LOCKD_CLUSTER_DIR: empty });
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain('no cluster.sh cluster in');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('test-only faults are off unless the cluster was started with them', function () {
  this.timeout(90_000);
  let cluster: ScriptCluster;

  before(async () => {
    cluster = await ScriptCluster.start(3, { testFaults: false });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('cluster.sh refuses isolate and clock-jump, and the node is untouched', async () => {
    const pid = cluster.pid(1)!;
    for (const args of [
      ['isolate', '1'],
      ['clock-jump', '1', '60000'],
    ]) {
      const r = await cluster.sh(args);
      expect(r.code, r.output).to.equal(1);
      expect(r.output).to.contain('runs without test faults');
    }
    expect(() => process.kill(pid, 0)).to.not.throw();
  });

  it('the fault demos fail with what to do (exit 1)', async () => {
    for (const name of ['partitioned-leader', 'clock-jump']) {
      const r = await lockctl(['demo', name], cluster.env);
      expect(r.code, r.stdout + r.stderr).to.equal(1);
      expect(r.stdout).to.match(/^FAILED: .*LOCKD_TEST_FAULTS=1 \.\/cluster\.sh start/m);
    }
  });

  it('cluster.sh status: a node alive but not answering has ROLE "no answer", and why is below the table, not in a column', async () => {
    expect((await cluster.sh(['pause', '3'])).code).to.equal(0);
    try {
      const r = await cluster.sh(['status']);
      const lines = r.output.split('\n');
      const row = lines.find((l) => l.startsWith('n3 '))!.split(/\s{2,}/); // ID ADDRESS PID ALIVE ROLE ...
      expect(row[3], r.output).to.equal('yes');
      expect(row[4], r.output).to.equal('no answer');
      expect(
        lines.some((l) => /^ {2}n3: no answer/.test(l)),
        r.output,
      ).to.equal(true);
    } finally {
      await cluster.sh(['resume', '3']);
    }
  });

  it('LOCKD_TEST_FAULTS=1 ./cluster.sh start on it restarts the running nodes with test faults (a demo before says which lack them)', async () => {
    // The state an older cluster.sh left: faults asked for, nodes still running without them.
    writeFileSync(join(cluster.dir, 'test-faults'), '');
    const before = await lockctl(['demo', 'clock-jump'], cluster.env);
    expect(before.code, before.stdout + before.stderr).to.equal(1);
    expect(before.stdout).to.match(/^FAILED: .*n1, n2, n3 run without them .*LOCKD_TEST_FAULTS=1 \.\/cluster\.sh start/m);
    expect(before.stdout + before.stderr).to.not.contain('    at ');
    const pids = [1, 2, 3].map((i) => cluster.pid(i));
    const r = await cluster.sh(['start', '3'], { LOCKD_TEST_FAULTS: '1' });
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.contain('restarting n1');
    expect([1, 2, 3].map((i) => cluster.pid(i)).filter((p, k) => p !== pids[k])).to.have.length(3);
    const iso = await cluster.sh(['isolate', '2']);
    expect(iso.code, iso.output).to.equal(0);
    expect((await cluster.sh(['heal', '2'])).code).to.equal(0);
  });
});

describe('lockctl demo on a ./cluster.sh start --tls cluster (HTTPS event streams, mutual TLS, ACLs on)', function () {
  this.timeout(150_000);
  let cluster: ScriptCluster;

  before(async () => {
    cluster = await ScriptCluster.start(3, { tls: true });
  });
  after(async () => {
    await cluster?.stop();
  });

  it("gc-pause reads every node's /events over HTTPS as root and sees the late write refused", async () => {
    const out = await runDemoOn(cluster, 'gc-pause');
    expect(out).to.match(/REFUSED \(\d+ < \d+\)/);
  });

  it('cluster.sh cert viewer --read-only: viewer may read (lock inspect) but not lock; a plaintext lockctl is told "TLS cluster: pass --cacert"', async () => {
    const r = await cluster.sh(['cert', 'viewer', '--read-only']);
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.contain("granted viewer read on ''");
    const tls = join(cluster.dir, 'tls');
    const as = [
      '--endpoints',
      cluster.endpoints.join(','),
      '--cacert',
      join(tls, 'ca.crt'),
      '--cert',
      join(tls, 'viewer.crt'),
      '--key',
      join(tls, 'viewer.key'),
    ];
    const read = await lockctl([...as, 'lock', 'inspect', 'viewer/x'], {});
    expect(read.code, read.stderr).to.equal(0);
    const write = await lockctl([...as, 'lock', 'try', 'viewer/x', '--ttl', '5s'], {});
    expect(write.code).to.equal(1);
    expect(write.stderr).to.contain('PERMISSION_DENIED');
    const plain = await lockctl(['--endpoints', cluster.endpoints.join(','), '--timeout', '2000', 'status'], {
      LOCKD_CLUSTER_DIR: join(cluster.dir, 'no-such-dir'),
    });
    expect(plain.code).to.equal(1);
    expect(plain.stderr).to.match(/TLS cluster: .* TLS and this call was plaintext; pass --cacert/);
  });

  it('the lockctl command cluster.sh start prints works as printed, from anywhere (the cluster dir and its certificates found by LOCKD_CLUSTER_DIR)', async () => {
    const r = await cluster.sh(['start', '3']); // running already: it waits for the leader and prints the same
    expect(r.code, r.output).to.equal(0);
    const line = /^Try: (.*)$/m.exec(r.output)?.[1];
    expect(line, r.output).to.match(/^LOCKD_CLUSTER_DIR=\S+ LOCKD_BASE_PORT=\d+ node \S+lockctl\.js status$/);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('LOCKD_')));
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const proc = spawn('bash', ['-c', line!], { cwd: tmpdir(), env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
      reapOnExit(proc);
      let text = '';
      proc.stdout.on('data', (d) => (text += d));
      proc.stderr.on('data', (d) => (text += d));
      proc.on('exit', (code) => resolve({ code, text }));
    });
    expect(out.code, out.text).to.equal(0);
    expect(out.text).to.match(/\bleader\b/);
    expect(out.text).to.not.contain('unreachable');
  });

  it("holder-crash: its holder, a child lockctl, connects with the cluster's certificates too", async () => {
    const out = await runDemoOn(cluster, 'holder-crash');
    expect(out).to.match(/fencing token \d+, granted by the Tick \(index \d+\)/);
  });
});
