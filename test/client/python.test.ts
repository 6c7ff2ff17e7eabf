// The Python client (clients/python) against a real 3-node cluster: its stubs generated from proto/
// (clients/python/gen.sh), its unittest suite and the GC-pause example run with Debian's
// /usr/bin/python3 (python3-grpcio, python3-protobuf; scripts/test-deps.sh installs them), each
// judged by its exit code, its output shown on failure.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProcessCluster } from '../support/process-cluster.js';
import { ROOT } from '../support/build.js';
import { killNow, reapOnExit } from '../support/reaper.js';
import { TestPki } from '../support/test-pki.js';

const PYTHON = '/usr/bin/python3';
const PY_DIR = join(ROOT, 'clients', 'python');

/** Run a Python program in clients/python (its own process group: a helper it spawns goes with it). */
function python(args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const path = [PY_DIR, join(PY_DIR, 'tests')].join(':');
    const proc = spawn(PYTHON, args, { cwd: PY_DIR, env: { ...process.env, ...env, PYTHONPATH: path, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    reapOnExit(proc, true);
    let output = '';
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      killNow(proc, true);
      reject(new Error(`${args.join(' ')} did not finish within ${timeoutMs} ms; output:\n${output}`));
    }, timeoutMs);
    proc.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** How many test methods the suite (or one file of it) defines: a run that ran fewer (an import that hid some) fails. */
function definedTests(file?: string): number {
  const dir = join(PY_DIR, 'tests');
  return readdirSync(dir)
    .filter((f) => (file ? f === file : /^test_.*\.py$/.test(f)))
    .reduce((n, f) => n + (readFileSync(join(dir, f), 'utf8').match(/^\s+def test_/gm)?.length ?? 0), 0);
}

/** Generate the stubs from proto/ (what a build of the Python client does first). */
function generateStubs(): void {
  const gen = spawnSync('bash', [join(PY_DIR, 'gen.sh')], { encoding: 'utf8' });
  expect(gen.status, `clients/python/gen.sh failed:\n${gen.stdout}${gen.stderr}`).to.equal(0);
}

describe('the Python client against a real cluster', function () {
  let cluster: ProcessCluster;
  let env: Record<string, string>;

  before(async () => {
    generateStubs();
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

  it('passes its unittest suite: lease + lock + token, contention, lost at the deadline, stale fenced writes, request-id retries, leader hints', async () => {
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
});

describe('the Python client over TLS, against a cluster with --client-cert-auth', function () {
  let cluster: ProcessCluster | undefined;
  let pki: TestPki;
  let other: TestPki;

  before(async () => {
    generateStubs();
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
    const env = { LOCKD_ENDPOINTS: cluster!.nodes.map((n) => n.address).join(','), LOCKD_CA: pki.caCert, LOCKD_CERT: client.cert, LOCKD_KEY: client.key, LOCKD_OTHER_CA: other.caCert };
    const { code, output } = await python(['-m', 'unittest', 'tls_cluster', '-v'], env, 60_000);
    expect(code, `the Python TLS suite failed (exit ${code}):\n${output}`).to.equal(0);
    expect(Number(/^Ran (\d+) tests? in/m.exec(output)?.[1]), output).to.equal(definedTests('tls_cluster.py'));
  });
});
