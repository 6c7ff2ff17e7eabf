// The Python client as users get it (clients/python): its checked-in stubs match proto/;
// `pip install` into a fresh virtual environment outside the repo works offline (Debian's
// python3-venv, setuptools, wheel, grpcio and protobuf: a venv with --system-site-packages,
// --no-build-isolation --no-deps --no-index, as this machine reaches no Python package index);
// the installed package is typed and runs the paused-holder story against a real 3-node cluster.
import { expect } from 'chai';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/build.js';
import { pausedHolderStory } from '../support/paused-holder-story.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { runBounded, runOk } from '../support/run-bounded.js';
import { ScratchDir, scratchEnv } from '../support/scratch-dir.js';

const PYTHON = '/usr/bin/python3';
const PY_DIR = join(ROOT, 'clients', 'python');
const GEN_DIR = join(PY_DIR, 'lockd', '_gen');
const PROGRAMS = join(ROOT, 'test', 'client', 'package-programs');

describe('the Python client as a package', function () {
  it('its checked-in stubs (lockd/_gen) are what gen.sh makes from proto/ now', async () => {
    const scratch = new ScratchDir('lockd-py-gen-');
    try {
      const fresh = join(scratch.path, 'gen');
      await runOk('bash', [join(PY_DIR, 'gen.sh'), fresh], { cwd: PY_DIR, timeoutMs: 60_000 });
      const files = (dir: string) =>
        readdirSync(dir)
          .filter((f) => f !== '__pycache__')
          .sort();
      expect(files(GEN_DIR), 'the files of lockd/_gen').to.deep.equal(files(fresh));
      for (const f of files(fresh)) {
        expect(
          readFileSync(join(GEN_DIR, f), 'utf8') === readFileSync(join(fresh, f), 'utf8'),
          `lockd/_gen/${f} is stale: run clients/python/gen.sh and commit lockd/_gen`,
        ).to.equal(true);
      }
    } finally {
      scratch.finish();
    }
  });

  describe('pip install into a fresh venv outside the repo', function () {
    let scratch: ScratchDir;
    let python: string;
    let hookFailed = true;

    before(async function () {
      this.timeout(240_000);
      scratch = new ScratchDir('lockd-py-package-');
      // A copy of the package's own files: the build must need nothing else of the repo, and
      // setuptools' in-place build litter (build/, *.egg-info) stays out of the work tree.
      const src = join(scratch.path, 'src');
      for (const f of ['pyproject.toml', 'README.md', 'lockd'])
        cpSync(join(PY_DIR, f), join(src, f), { recursive: true, filter: (p) => !p.includes('__pycache__') });
      const venv = join(scratch.path, 'venv');
      await runOk(PYTHON, ['-m', 'venv', '--system-site-packages', venv], { cwd: scratch.path, env: scratchEnv(), timeoutMs: 120_000 });
      python = join(venv, 'bin', 'python');
      await runOk(python, ['-m', 'pip', 'install', '--no-build-isolation', '--no-deps', '--no-index', '--disable-pip-version-check', '--no-cache-dir', src], {
        cwd: scratch.path,
        env: scratchEnv(),
        timeoutMs: 120_000,
      });
      for (const f of ['paused_holder.py', 'types_check.py', 'types_check_bad.py']) cpSync(join(PROGRAMS, f), join(scratch.path, f));
      hookFailed = false;
    });
    afterEach(function () {
      scratch?.note(this.currentTest);
    });
    after(() => scratch?.finish(hookFailed));

    it("is importable from outside the repo as lockd-client 0.1.0, typed (py.typed, the stubs' .pyi)", async () => {
      const probe =
        'import importlib.metadata as m, json, os, lockd; d = os.path.dirname(lockd.__file__); print(json.dumps({"file": lockd.__file__, "version": m.version("lockd-client"), "typed": os.path.exists(os.path.join(d, "py.typed")), "pyi": os.path.exists(os.path.join(d, "_gen", "lockd_pb2.pyi")), "run": hasattr(lockd.Client, "run")}))';
      const { stdout } = await runOk(python, ['-c', probe], { cwd: scratch.path, env: scratchEnv(), timeoutMs: 30_000 });
      const r = JSON.parse(stdout) as Record<string, unknown>;
      expect(String(r.file)).to.satisfy((f: string) => f.startsWith(join(scratch.path, 'venv')), `imported from ${String(r.file)}`);
      expect(r).to.include({ version: '0.1.0', typed: true, pyi: true, run: true });
      expect(existsSync(join(PY_DIR, 'build')), 'the build wrote into the repo').to.equal(false);
    });

    it('mypy reads its types (py.typed): a program using it checks clean, one that misuses a token is refused', async function () {
      this.timeout(120_000);
      const mypy = (file: string) =>
        runBounded(python, ['-m', 'mypy', '--cache-dir', join(scratch.path, '.mypy_cache'), '--ignore-missing-imports', file], {
          cwd: scratch.path,
          env: scratchEnv(),
          timeoutMs: 110_000,
        });
      const good = await mypy('types_check.py');
      expect(good.code, good.output).to.equal(0);
      const bad = await mypy('types_check_bad.py');
      expect(bad.code, bad.output).to.equal(1);
      expect(bad.output).to.match(/types_check_bad\.py:7: error: Incompatible return value type \(got "int", expected "str"\)/);
    });

    it('against a real 3-node cluster: client.run() holds a lock, a fenced write with its token, the lease lost while paused (SIGSTOP), the work stopped with LockLostError, the late write refused', async function () {
      this.timeout(180_000);
      const cluster = await ProcessCluster.start({ size: 3 });
      try {
        await cluster.waitForLeader();
        await pausedHolderStory(
          cluster,
          (args) => ({ command: python, args: ['paused_holder.py', ...args], cwd: scratch.path, env: { ...scratchEnv(), PYTHONUNBUFFERED: '1' } }),
          join(scratch.path, 'venv'),
          ['lease', 'deadline'],
        );
      } finally {
        await cluster.stop();
      }
    });
  });
});
