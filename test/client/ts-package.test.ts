// The TypeScript client as users get it (clients/typescript): `npm pack` builds the
// tarball, a scratch project in a temp dir outside the repo `npm install`s it — fetching only its
// declared dependencies, from npm's cache when it has them — and then uses it: types through
// `exports`, require() from CommonJS, and the paused-holder story against a real 3-node cluster.
import { expect } from 'chai';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/build.js';
import { pausedHolderStory } from '../support/paused-holder-story.js';
import { ProcessCluster } from '../support/process-cluster.js';
import { runOk } from '../support/run-bounded.js';
import { ScratchDir, scratchEnv } from '../support/scratch-dir.js';

const PKG_DIR = join(ROOT, 'clients', 'typescript');
const PROGRAMS = join(ROOT, 'test', 'client', 'package-programs');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The server's dependencies: none may come with the client. */
const SERVER_ONLY = ['level', 'pino', 'prom-client', '@grpc/reflection', 'grpc-health-check'];

describe('the TypeScript client as a package: npm pack, npm install in a scratch project', function () {
  let scratch: ScratchDir;
  let app: string;
  let packed: string[];
  let hookFailed = true;

  before(async function () {
    this.timeout(300_000);
    scratch = new ScratchDir('lockd-ts-package-');
    // prepack builds dist/ from src/client and src/proto, and copies proto/lockd.proto.
    const { stdout } = await runOk('npm', ['pack', '--json', '--pack-destination', scratch.path], { cwd: PKG_DIR, env: scratchEnv(), timeoutMs: 120_000 });
    // The JSON comes last on stdout, after what the prepack scripts printed.
    const [info] = JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { filename: string; files: { path: string }[] }[];
    packed = info.files.map((f) => f.path);
    app = join(scratch.path, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }, null, 2));
    for (const f of ['paused-holder.mjs', 'types-check.ts', 'require.cjs']) cpSync(join(PROGRAMS, f), join(app, f));
    await runOk('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `../${info.filename}`], { cwd: app, env: scratchEnv(), timeoutMs: 180_000 });
    hookFailed = false;
  });
  afterEach(function () {
    scratch?.note(this.currentTest);
  });
  after(() => scratch?.finish(hookFailed));

  it('the tarball holds the built client, its declarations and proto/lockd.proto, and nothing of the server or lockctl', () => {
    for (const f of [
      'package.json',
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/proto/load.js',
      'dist/proto/lockd-package.js',
      'proto/lockd.proto',
    ])
      expect(packed).to.include(f);
    const stray = packed.filter(
      (p) => !/^(package\.json|README\.md|proto\/lockd\.proto|dist\/(client|proto)\/.*\.(js|d\.ts))$/.test(p) || /lockctl|raft/.test(p),
    );
    expect(stray, 'files outside the client library').to.deep.equal([]);
  });

  it('installs with only its declared dependencies (@grpc/grpc-js, @grpc/proto-loader)', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', 'lockd-client', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).to.deep.equal(['@grpc/grpc-js', '@grpc/proto-loader']);
    for (const dep of SERVER_ONLY) expect(existsSync(join(app, 'node_modules', dep)), `${dep} was installed`).to.equal(false);
  });

  it('its types resolve through `exports` (tsc --strict, NodeNext, the declarations checked too)', async function () {
    this.timeout(120_000); // a whole tsc run: 20 s on a loaded machine
    // @types/node from the repo: the scratch project's own would be the same package.
    await runOk(
      process.execPath,
      [
        TSC,
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--typeRoots',
        join(ROOT, 'node_modules', '@types'),
        '--types',
        'node',
        'types-check.ts',
      ],
      { cwd: app, env: scratchEnv(), timeoutMs: 110_000 },
    );
  });

  it('CommonJS can require() it', async () => {
    const { stdout } = await runOk(process.execPath, ['require.cjs'], { cwd: app, env: scratchEnv(), timeoutMs: 30_000 });
    expect(stdout.trim()).to.equal('function');
  });

  it('against a real 3-node cluster: a lock, a fenced write with its token, the lease lost while paused (SIGSTOP), lock.signal aborts, the late write refused', async function () {
    this.timeout(180_000);
    const cluster = await ProcessCluster.start({ size: 3 });
    try {
      await cluster.waitForLeader();
      await pausedHolderStory(
        cluster,
        (args) => ({ command: process.execPath, args: ['paused-holder.mjs', ...args], cwd: app, env: scratchEnv() }),
        join(app, 'node_modules', 'lockd-client'),
        ['lease', 'expired', 'superseded'],
      );
    } finally {
      await cluster.stop();
    }
  });
});
