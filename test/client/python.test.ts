// The Python client (clients/python) against a real 3-node cluster, from the source tree (its stubs
// are checked in; python-package.test.ts checks they match proto/ and installs the package): its unittest suite and its examples (GC pause, election) run with Debian's
// /usr/bin/python3 (python3-grpcio, python3-protobuf; scripts/test-deps.sh installs them), each
// judged by its exit code, its output shown on failure.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessCluster } from '../support/process-cluster.js';
import { ROOT } from '../support/build.js';
import { killNow, reapOnExit } from '../support/reaper.js';
import { TestPki } from '../support/test-pki.js';

const PYTHON = '/usr/bin/python3';
const PY_DIR = join(ROOT, 'clients', 'python');

/** A Python program running in clients/python, in its own process group (a helper it spawns goes with it). */
class PythonProcess {
  /** stdout and stderr, as they came. */
  output = '';
  private stdout = '';
  readonly exited: Promise<number | null>;
  private readonly proc: ChildProcess;
  private readonly listeners = new Set<() => void>();

  constructor(args: string[], env: Record<string, string>) {
    const path = [PY_DIR, join(PY_DIR, 'tests')].join(':');
    this.proc = spawn(PYTHON, args, {
      cwd: PY_DIR,
      env: { ...process.env, ...env, PYTHONPATH: path, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    reapOnExit(this.proc, true);
    const take = (d: Buffer, fromStdout: boolean) => {
      this.output += d;
      if (fromStdout) this.stdout += d;
      for (const l of [...this.listeners]) l();
    };
    this.proc.stdout!.on('data', (d: Buffer) => take(d, true));
    this.proc.stderr!.on('data', (d: Buffer) => take(d, false));
    this.exited = new Promise((resolve, reject) => {
      this.proc.on('error', reject);
      this.proc.on('exit', (code) => {
        for (const l of [...this.listeners]) l();
        resolve(code);
      });
    });
  }

  /** The first JSON line of its stdout whose `event` is one of `events`; fails on exit or after timeoutMs. */
  event(events: readonly string[], timeoutMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = () => {
        for (const line of this.stdout.split('\n').slice(0, -1)) {
          // whole lines only
          let r: Record<string, unknown>;
          try {
            r = JSON.parse(line) as Record<string, unknown>;
          } catch {
            continue; // not a report (a traceback, a warning)
          }
          if (events.includes(String(r?.event))) return done(() => resolve(r));
        }
        if (this.proc.exitCode !== null || this.proc.signalCode !== null)
          done(() => reject(new Error(`exited (${this.proc.exitCode ?? this.proc.signalCode}) before ${events.join('/')}; output:\n${this.output}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no ${events.join('/')} within ${timeoutMs} ms; output:\n${this.output}`))), timeoutMs);
      const done = (fn: () => void) => {
        clearTimeout(timer);
        this.listeners.delete(check);
        fn();
      };
      this.listeners.add(check);
      check();
    });
  }

  send(line: string): void {
    this.proc.stdin!.write(line + '\n');
  }

  kill(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) killNow(this.proc, true);
  }
}

/** Run a Python program to its end: exit code and output (stdout and stderr). */
async function python(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const p = new PythonProcess(args, env);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      p.kill();
      reject(new Error(`${args.join(' ')} did not finish within ${timeoutMs} ms; output:\n${p.output}`));
    }, timeoutMs);
  });
  try {
    const code = await Promise.race([p.exited, timedOut]);
    return { code, output: p.output };
  } finally {
    clearTimeout(timer);
  }
}

/** How many test methods the suite (or one file of it) defines: a run that ran fewer (an import that hid some) fails. */
function definedTests(file?: string): number {
  const dir = join(PY_DIR, 'tests');
  return readdirSync(dir)
    .filter((f) => (file ? f === file : /^test_.*\.py$/.test(f)))
    .reduce((n, f) => n + (readFileSync(join(dir, f), 'utf8').match(/^\s+def test_/gm)?.length ?? 0), 0);
}

describe('the Python client against a real cluster', function () {
  let cluster: ProcessCluster;
  let env: Record<string, string>;

  before(async () => {
    cluster = await ProcessCluster.start({ size: 3 });
    const leader = await cluster.waitForLeader();
    await cluster.waitForApplied(1);
    env = {
      LOCKD_ENDPOINTS: cluster.nodes.map((n) => n.address).join(','),
      LOCKD_LEADER: cluster.node(leader).address,
      LOCKD_FOLLOWER: cluster.nodes.find((n) => n.id !== leader)!.address,
    };
  });
  after(async () => {
    await cluster?.stop();
  });

  it('passes its unittest suite: lease + lock + token, contention, lost at the deadline, stale fenced writes, request-id retries, leader hints, semaphores + set_permits, downgrade, lock-delay, election, run() ended by the deadline', async () => {
    const { code, output } = await python(['-m', 'unittest', 'discover', '-s', 'tests', '-v'], env, 120_000);
    expect(code, `the Python suite failed (exit ${code}):\n${output}`).to.equal(0);
    const ran = /^Ran (\d+) tests? in/m.exec(output);
    expect(Number(ran?.[1]), `the Python suite did not run every test it defines:\n${output}`).to.equal(definedTests());
  });

  it('examples/gc_pause.py: a holder paused past its lease is refused by the fence and sees its lock lost', async () => {
    const { code, output } = await python(['examples/gc_pause.py', '--endpoints', env.LOCKD_ENDPOINTS], {}, 60_000);
    expect(code, `gc_pause.py failed (exit ${code}):\n${output}`).to.equal(0);
    expect(output).to.match(/paused holder's write: refused: FAILED_PRECONDITION/);
    expect(output).to.match(/paused holder afterwards: held=False lost=True \(lease\)/);
    expect(output).to.contain('gc-pause: OK');
  });

  it("examples/election.py: a killed leader's leadership ends with its lease and the waiting campaigner leads", async () => {
    const { code, output } = await python(['examples/election.py', '--endpoints', env.LOCKD_ENDPOINTS], {}, 60_000);
    expect(code, `election.py failed (exit ${code}):\n${output}`).to.equal(0);
    expect(output).to.match(
      /^ {2}led by lease \d+ \(token \d+\) as 'worker-1'\n {2}led by lease \d+ \(token \d+\) as 'worker-2'\n {2}led by lease \d+ \(token \d+\) as 'worker-2 \(ready\)'\n {2}nobody leads$/m,
    );
    expect(output).to.contain('election: OK');
  });

  it('a lease and its lock survive the leader being killed: the keepalive stream follows the new leader', async () => {
    const holder = new PythonProcess(['tests/failover_holder.py'], env);
    const old = await cluster.waitForLeader();
    try {
      const holding = await holder.event(['holding'], 20_000);
      expect(holding.leader).to.equal(cluster.node(old).address);
      await cluster.kill(old);
      const next = await cluster.waitForLeader(cluster.nodes.map((n) => n.id).filter((id) => id !== old));
      holder.send('failover');
      const r = await holder.event(['renewed', 'lost', 'timeout'], 30_000);
      expect(r, holder.output).to.deep.equal({ event: 'renewed', leader: cluster.node(next).address, held: true, holder: holding.lease, token: holding.token });
      expect(await holder.exited, holder.output).to.equal(0);
    } finally {
      holder.kill();
      // Put the cluster back as the other tests found it.
      if (!cluster.isRunning(old)) cluster.startNode(old);
      await cluster.waitForLeader();
    }
  });
});

describe('the Python client over TLS, against a cluster with --client-cert-auth', function () {
  let cluster: ProcessCluster | undefined;
  let pki: TestPki;
  let other: TestPki;

  before(async () => {
    pki = TestPki.create();
    other = TestPki.create();
    cluster = await ProcessCluster.start({ size: 3, tls: pki, clientCertAuth: true });
    await cluster.waitForLeader();
  });
  after(async () => {
    await cluster?.stop();
    pki?.remove();
    other?.remove();
  });

  it('ca/cert/key as paths or PEM bytes work; another CA, or no client certificate, is refused', async () => {
    const client = pki.client('python-test');
    const env = {
      LOCKD_ENDPOINTS: cluster!.nodes.map((n) => n.address).join(','),
      LOCKD_CA: pki.caCert,
      LOCKD_CERT: client.cert,
      LOCKD_KEY: client.key,
      LOCKD_OTHER_CA: other.caCert,
    };
    const { code, output } = await python(['-m', 'unittest', 'tls_cluster', '-v'], env, 60_000);
    expect(code, `the Python TLS suite failed (exit ${code}):\n${output}`).to.equal(0);
    expect(Number(/^Ran (\d+) tests? in/m.exec(output)?.[1]), output).to.equal(definedTests('tls_cluster.py'));
  });
});
