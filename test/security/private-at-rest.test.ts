// What a cluster keeps on disk and shows on the host is its own (real processes under
// ./cluster.sh, in a dir of this test's own): the cluster id is 128 random bits in a 0600 file that
// the nodes read (--cluster-id-file), not on any command line nor, hashed or not, in the logs;
// data dirs are 0700 and every file the nodes and the script write is 0600; a data dir others
// could read is made private at start, and the node says so.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { NODE_MAIN, ROOT } from '../support/build.js';
import { ScriptCluster } from '../support/script-cluster.js';

const mode = (path: string) => statSync(path).mode & 0o777;

/** Every file and directory under `dir` whose mode lets group or others in: "path 644". */
function openToOthers(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = join(e.parentPath, e.name);
    if (e.isSymbolicLink()) continue;
    if ((mode(p) & 0o077) !== 0) out.push(`${p} ${mode(p).toString(8)}`);
  }
  return out;
}

/** Run the node and expect it to exit; resolves with its exit code and output. */
function runNode(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [NODE_MAIN, ...args], { cwd: ROOT, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('the cluster id and the data at rest are private (real processes under cluster.sh)', function () {
  this.timeout(180_000);
  let cluster: ScriptCluster | undefined;
  after(async () => {
    await cluster?.stop();
  });

  it('cluster.sh: a random 128-bit id in a 0600 file, on no command line and in no log; dirs 0700, files 0600', async () => {
    cluster = await ScriptCluster.start(3, { testFaults: false });
    const idFile = join(cluster.dir, 'cluster-id');
    const id = readFileSync(idFile, 'utf8').trim();
    expect(id).to.match(/^[0-9a-f]{32}$/);
    expect(mode(idFile).toString(8)).to.equal('600');
    for (const i of [1, 2, 3]) {
      const pid = cluster.pid(i)!;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      expect(cmdline).to.contain('--cluster-id-file');
      expect(cmdline.includes(id), `n${i}'s command line carries the cluster id`).to.equal(false);
      expect(mode(join(cluster.dir, `n${i}`)).toString(8), `n${i} data dir`).to.equal('700');
      const log = readFileSync(join(cluster.dir, `n${i}.log`), 'utf8');
      expect(log).to.contain('node started');
      expect(log.includes(id), `n${i}'s log carries the cluster id`).to.equal(false);
      const hash = createHash('sha256').update(id).digest('hex');
      expect(log.includes(hash.slice(0, 12)), `n${i}'s log carries a hash of the cluster id`).to.equal(false);
    }
    expect(openToOthers(cluster.dir), 'files and dirs others may read').to.deep.equal([]);
  });

  it('a data dir others could read is made 0700 at start, and the node logs that it did', async () => {
    expect((await cluster!.sh(['stop'])).code).to.equal(0);
    const n1 = join(cluster!.dir, 'n1');
    chmodSync(n1, 0o755);
    const r = await cluster!.sh(['start', '3'], { LOCKD_TEST_FAULTS: '0' });
    expect(r.code, r.output).to.equal(0);
    expect(mode(n1).toString(8)).to.equal('700');
    expect(readFileSync(join(cluster!.dir, 'n1.log'), 'utf8')).to.contain('data dir made private');
  });

  it('--cluster-id-file: a file others may read is refused (exit 2, says chmod 600); an empty one too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockd-idfile-'));
    try {
      const file = join(dir, 'id');
      writeFileSync(file, 'a-secret\n', { mode: 0o644 });
      chmodSync(file, 0o644);
      const base = [
        '--id',
        'n1',
        '--listen',
        '127.0.0.1:1',
        '--peer-listen',
        '127.0.0.1:2',
        '--peers',
        'n1=127.0.0.1:2',
        '--data-dir',
        join(dir, 'd'),
        '--cluster-id-file',
        file,
      ];
      const open = await runNode(base);
      expect(open.code, open.output).to.equal(2);
      expect(open.output).to.contain('readable by others').and.contain('chmod 600');
      expect(open.output.includes('a-secret')).to.equal(false);
      writeFileSync(file, '  \n');
      chmodSync(file, 0o600);
      const empty = await runNode(base);
      expect(empty.code, empty.output).to.equal(2);
      expect(empty.output).to.contain('is empty');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
