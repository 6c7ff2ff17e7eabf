// lockctl end to end: real lockctl processes (the build, dist/) against a real 3-node cluster.
// Each lockctl runs detached, leading its own process group, and every group a test started is
// killed after it (a `run` command leads a group of its own: the test learns it from the command).
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LockClient } from '../../src/client/index.js';
import { ProcessCluster, waitFor } from '../support/process-cluster.js';
import { LOCKCTL_MAIN } from '../support/build.js';
import { LOCKD_VERSION, buildLine } from '../../src/lockd/node/versions.js';
import { failuresSoFar } from '../support/failures.js';
import { killNow, reapOnExit } from '../support/reaper.js';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A positive integer written to `file` (a pid, a lease id), or undefined while it is missing, empty or partial. */
function readId(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  if (!/^\d+\n$/.test(text)) return undefined; // written whole with `echo`: the newline ends it
  const n = Number(text);
  return n > 0 ? n : undefined;
}

/** Whether process `pid` still runs (a zombie, dead but not yet reaped, does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A shell loop waiting for `file`, bounded (30 s) so it cannot outlive a failed test for long. */
const awaitFile = (file: string): string => `i=0; while [ ! -f ${file} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`;

describe('lockctl on a 3-node cluster', function () {
  this.timeout(60_000);
  let cluster: ProcessCluster;
  let endpoints: string;
  let dir: string;
  let client: LockClient;
  let failuresAtStart = 0;
  const procs = new Set<ChildProcess>();
  /** Process groups of `run` commands (their leaders' pids), killed after each test. */
  const commandGroups = new Set<number>();

  const stderrs = new WeakMap<object, () => string>();
  const stderrOf = (h: object): string => stderrs.get(h)?.() ?? '';

  function start(args: string[], env: Record<string, string> = {}): { proc: ChildProcess; done: Promise<Result> } {
    const proc = spawn(process.execPath, [LOCKCTL_MAIN, ...args], {
      env: { ...process.env, LOCKD_ENDPOINTS: endpoints, ...env },
      // Not the checkout: lockctl would pick up a ./cluster.sh start --tls cluster's .cluster/tls/.
      cwd: tmpdir(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    reapOnExit(proc, true);
    procs.add(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (d) => (stdout += d));
    proc.stderr!.on('data', (d) => (stderr += d));
    const done = new Promise<Result>((resolve) =>
      proc.on('exit', (code) => {
        procs.delete(proc);
        // Let the pipes drain what was written before exit.
        setImmediate(() => resolve({ code, stdout, stderr }));
      }),
    );
    const handle = { proc, done };
    stderrs.set(handle, () => stderr);
    return handle;
  }

  async function lockctl(...args: string[]): Promise<Result> {
    const { proc, done } = start(args);
    const timer = setTimeout(() => killNow(proc, true), 20_000);
    const r = await done;
    clearTimeout(timer);
    return r;
  }

  /** The pid a `run` command wrote to `file` (its `$$`: the leader of its process group), tracked for cleanup. */
  const commandPid = async (file: string): Promise<number> => {
    const pid = await waitFor(`the command's pid in ${file}`, () => readId(file), 15_000);
    commandGroups.add(pid);
    return pid;
  };

  before(async () => {
    failuresAtStart = failuresSoFar();
    cluster = await ProcessCluster.start({ size: 3 });
    await cluster.waitForLeader();
    endpoints = cluster.nodes.map((n) => n.address).join(',');
    dir = mkdtempSync(join(tmpdir(), 'lockctl-test-'));
    client = new LockClient({ endpoints: endpoints.split(',') });
  });
  afterEach(() => {
    for (const p of procs) killNow(p, true);
    for (const pgid of commandGroups) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    commandGroups.clear();
  });
  after(async () => {
    client?.close();
    await cluster?.stop();
    if (!dir) return;
    if (failuresSoFar() > failuresAtStart) process.stderr.write(`lockctl test files kept at ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  });

  const json = (r: Result): Record<string, unknown> => JSON.parse(r.stdout) as Record<string, unknown>;

  it('status shows every node with its role, term and indexes (table and --json)', async () => {
    const leader = await cluster.waitForLeader();
    const table = await lockctl('status');
    expect(table.code, table.stderr).to.equal(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0].split(/\s+/)).to.deep.equal(['ID', 'ADDRESS', 'ROLE', 'TERM', 'LEADER', 'COMMIT', 'APPLIED', 'VERSION', 'CLUSTER']);
    expect(lines).to.have.length(4);
    for (const n of cluster.nodes) expect(table.stdout).to.contain(n.address);

    const r = await lockctl('status', '--json');
    expect(r.code).to.equal(0);
    const rows = JSON.parse(r.stdout) as Array<{ nodeId: string; role: string; leaderId: string; address: string; version: string; build: string }>;
    expect(rows.map((x) => x.nodeId).sort()).to.deep.equal(['n1', 'n2', 'n3']);
    expect(rows.map((x) => x.version)).to.deep.equal([LOCKD_VERSION, LOCKD_VERSION, LOCKD_VERSION]);
    expect(rows.every((x) => x.build === buildLine())).to.equal(true);
    expect(rows.filter((x) => x.role === 'leader').map((x) => x.nodeId)).to.deep.equal([leader]);
    expect(rows.every((x) => x.leaderId === leader)).to.equal(true);
  });

  it("fence write --lock refuses a token that is not the lock's current grant; fence delete is fenced too", async () => {
    const lease = await client.grantLease(10_000);
    try {
      const first = await client.acquire('ctl/seq', { lease });
      const w = await lockctl('--json', 'fence', 'write', 'ctl/seq-key', 'one', '--token', String(first.token), '--lock', 'ctl/seq');
      expect(w.code, w.stderr).to.equal(0);
      expect(json(w)).to.include({ key: 'ctl/seq-key', lock: 'ctl/seq', highestToken: first.token });
      await first.release();
      const second = await client.acquire('ctl/seq', { lease });
      // The old grant is refused by the lock check although nobody has written with the new one.
      const stale = await lockctl('fence', 'write', 'ctl/seq-key', 'old', '--token', String(first.token), '--lock', 'ctl/seq');
      expect(stale.code).to.equal(1);
      expect(stale.stderr).to.contain(
        `FAILED_PRECONDITION: fencing token ${first.token} is not the current grant of lock ctl/seq: it is held under token ${second.token}`,
      );
      const del = await lockctl('--json', 'fence', 'delete', 'ctl/seq-key', '--token', String(second.token), '--lock', 'ctl/seq');
      expect(del.code, del.stderr).to.equal(0);
      expect(json(del)).to.include({ key: 'ctl/seq-key', deleted: true, highestToken: second.token });
      expect((await client.fenceRead('ctl/seq-key')).fencingToken).to.equal(0);
      const zombie = await lockctl('fence', 'write', 'ctl/seq-key', 'zombie', '--token', String(first.token));
      expect(zombie.stderr).to.contain(`a delete with token ${second.token} was already accepted`);
      expect((await lockctl('fence', 'delete', 'k', '--token', '1', '--lock', '')).stderr).to.contain('--lock must name a lock');
      await second.release();
    } finally {
      await lease.revoke().catch(() => {});
    }
  });

  it('lease grant / ttl / list / revoke', async () => {
    // Not kept alive: the TTL must outlast four lockctl start-ups on a loaded machine.
    const g = await lockctl('--json', 'lease', 'grant', '60s');
    expect(g.code, g.stderr).to.equal(0);
    const { leaseId, ttlMs } = json(g) as { leaseId: number; ttlMs: number };
    expect(ttlMs).to.equal(60_000);
    const t = json(await lockctl('--json', 'lease', 'ttl', String(leaseId)));
    expect(t).to.include({ leaseId, grantedTtlMs: 60_000 });
    expect(t.remainingMs).to.be.within(1, 60_000 + 1000);
    const list = JSON.parse((await lockctl('lease', 'list', '--json')).stdout) as Array<{ leaseId: number }>;
    expect(list.map((l) => l.leaseId)).to.include(leaseId);
    expect((await lockctl('lease', 'revoke', String(leaseId))).code).to.equal(0);
    const gone = await lockctl('lease', 'ttl', String(leaseId));
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.match(/NOT_FOUND/);
  });

  it('lock acquire / try / inspect / release, and the fenced store refuses a stale token', async () => {
    const lease = await client.grantLease(10_000);
    try {
      const a = await lockctl('--json', 'lock', 'acquire', 'ctl/lock', '--lease', String(lease.id));
      expect(a.code, a.stderr).to.equal(0);
      const { fencingToken: token, shared } = json(a) as { fencingToken: number; shared: boolean };
      expect(shared).to.equal(false);
      expect(token).to.be.greaterThan(0);

      const held = await lockctl('lock', 'try', 'ctl/lock');
      expect(held.code).to.equal(75);
      expect(held.stdout).to.contain(`held by lease ${lease.id}`);

      const i = json(await lockctl('--json', 'lock', 'inspect', 'ctl/lock'));
      expect(i).to.include({ held: true, fencingToken: token, holderLeaseId: lease.id });

      const w = await lockctl('fence', 'write', 'ctl/key', 'hello', '--token', String(token));
      expect(w.code, w.stderr).to.equal(0);
      const stale = await lockctl('fence', 'write', 'ctl/key', 'old', '--token', String(token - 1));
      expect(stale.code).to.equal(1);
      expect(stale.stderr).to.match(/FAILED_PRECONDITION/);
      expect(json(await lockctl('--json', 'fence', 'read', 'ctl/key'))).to.deep.equal({ key: 'ctl/key', value: 'hello', fencingToken: token });

      const r = await lockctl('--json', 'lock', 'release', 'ctl/lock', String(token));
      expect(r.code, r.stderr).to.equal(0);
      expect(json(r)).to.include({ released: true });
      expect((await client.inspect('ctl/lock')).held).to.equal(false);
    } finally {
      await lease.revoke();
    }
  });

  it('recipes: --permits, set-permits, --shared (upgrade refused), --lock-delay, and inspect shows every holder', async () => {
    const leases = await Promise.all([1, 2, 3].map(() => client.grantLease(20_000)));
    const [l1, l2, l3] = leases.map((l) => String(l.id));
    try {
      for (const l of [l1, l2]) expect((await lockctl('lock', 'acquire', 'ctl/sem', '--permits', '2', '--lease', l)).code).to.equal(0);
      expect((await lockctl('lock', 'try', 'ctl/sem', '--permits', '2', '--lease', l3)).code).to.equal(75);
      const disagree = await lockctl('lock', 'try', 'ctl/sem', '--lease', l3);
      expect(disagree.code).to.equal(1);
      expect(disagree.stderr).to.contain('has permits 2, this Acquire asks for permits 1');
      const set = json(await lockctl('--json', 'lock', 'set-permits', 'ctl/sem', '3'));
      expect(set).to.include({ previous: 2, granted: 0 });
      expect((await lockctl('lock', 'acquire', 'ctl/sem', '--permits', '3', '--lease', l3)).code).to.equal(0);
      const sem = json(await lockctl('--json', 'lock', 'inspect', 'ctl/sem')) as { permits: number; holders: { leaseId: number }[] };
      expect(sem.permits).to.equal(3);
      expect(sem.holders.map((h) => String(h.leaseId))).to.deep.equal([l1, l2, l3]);

      const r1 = await lockctl('lock', 'acquire', 'ctl/rw', '--shared', '--lease', l1);
      expect(r1.code, r1.stderr).to.equal(0);
      expect(r1.stdout).to.contain('acquired lock ctl/rw (shared): fencing token');
      expect(json(await lockctl('--json', 'lock', 'acquire', 'ctl/rw', '--shared', '--lease', l2))).to.include({ acquired: true, shared: true });
      expect((await lockctl('lock', 'inspect', 'ctl/rw')).stdout)
        .to.contain(`lease ${l1} token`)
        .and.contain('shared');
      const up = await lockctl('lock', 'acquire', 'ctl/rw', '--lease', l1);
      expect(up.code).to.equal(1);
      expect(up.stderr).to.contain('upgrading to exclusive is refused');

      expect((await lockctl('lock', 'acquire', 'ctl/delay', '--lock-delay', '30s', '--lease', l3)).code).to.equal(0);
      await leases[2].revoke();
      const tried = await lockctl('lock', 'try', 'ctl/delay', '--ttl', '5s');
      expect(tried.code).to.equal(75);
      expect(tried.stdout).to.contain('under a lock-delay for another');
      const d = json(await lockctl('--json', 'lock', 'inspect', 'ctl/delay')) as { lockDelayRemainingMs: number };
      expect(d.lockDelayRemainingMs).to.be.greaterThan(0).and.at.most(30_000);
      expect((await lockctl('lock', 'acquire', 'ctl/x', '--shared', '--permits', '2')).code).to.equal(1); // INVALID_ARGUMENT
    } finally {
      for (const l of leases) await l.revoke().catch(() => {});
    }
  });

  it('elect leads until interrupted, then resigns; elect --observe prints each leadership', async () => {
    const observer = start(['--json', 'elect', '--observe', 'ctl/el', '--count', '2']);
    await waitFor('subscription', () => (/observing/.test(stderrOf(observer)) ? true : undefined), 15_000);
    const leader = start(['elect', 'ctl/el', 'node-a', '--ttl', '5s']);
    const led = await waitFor('the campaign to win', async () => ((await client.leader('ctl/el')).leader ? true : undefined), 15_000);
    expect(led).to.equal(true);
    expect((await client.leader('ctl/el')).value).to.equal('node-a');
    leader.proc.kill('SIGINT');
    const l = await leader.done;
    expect(l.code, l.stderr).to.equal(0);
    expect(l.stdout).to.match(/^leading ctl\/el as "node-a": fencing token \d+, lease \d+/);
    expect((await client.leader('ctl/el')).leader).to.equal(undefined);
    const o = await observer.done;
    expect(o.code, o.stderr).to.equal(0);
    const lines = o.stdout
      .trim()
      .split('\n')
      .map((x) => JSON.parse(x) as { leader: { leaseId: number } | null; value: string });
    expect(lines.map((x) => [x.leader !== null, x.value])).to.deep.equal([
      [true, 'node-a'],
      [false, ''],
    ]);
  });

  it('lock observe prints events once subscribed; lease keepalive renews', async () => {
    const obs = start(['--json', 'lock', 'observe', 'ctl/obs', '--count', '2']);
    await waitFor('subscription', () => (/observing/.test(stderrOf(obs)) ? true : undefined), 15_000);
    const lock = await client.acquire('ctl/obs', { ttlMs: 5000 });
    await lock.release();
    const r = await obs.done;
    expect(r.code, r.stderr).to.equal(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; fencingToken: number });
    expect(events.map((e) => e.type)).to.deep.equal(['ACQUIRED', 'RELEASED']);
    expect(events.every((e) => e.fencingToken === lock.token)).to.equal(true);

    // Long enough that lockctl's own start-up (tsx, a loaded machine) cannot outlast it.
    const lease = await client.grantLease(20_000, { renewNow: false, keepAliveIntervalMs: 60_000 });
    lease.close(); // stop this client's keepalives: lockctl takes over
    const ka = await lockctl('lease', 'keepalive', String(lease.id), '--count', '2');
    expect(ka.code, ka.stderr).to.equal(0);
    expect(ka.stdout.trim().split('\n')).to.deep.equal([`lease ${lease.id} renewed, ttl 20000 ms`, `lease ${lease.id} renewed, ttl 20000 ms`]);
    await client.revokeLease(lease.id);
  });

  it('usage errors exit 2 with a usage line; --help exits 0', async () => {
    const r = await lockctl('lease', 'grant');
    expect(r.code).to.equal(2);
    expect(r.stderr).to.contain('usage: lockctl lease grant TTL');
    const bad = await lockctl('lock', 'release', 'x', 'nope');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/TOKEN must be a positive integer/);
    expect((await lockctl('--bogus', 'status')).code).to.equal(2);
    expect((await lockctl('fence', 'write', 'k', 'v')).stderr).to.contain('--token is required');
    const help = await lockctl('--help');
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('lockctl run NAME');
  });

  it('run gives the command the fencing token and lease, exits with its status, and releases; what the command left running dies with it', async () => {
    const out = join(dir, 'env.txt');
    const leftPid = join(dir, 'left.pid');
    // A background child left behind would go on running without the lock.
    const r = await lockctl(
      'run',
      'ctl/run',
      '--',
      'sh',
      '-c',
      `sleep 60 & echo $! > ${leftPid}; echo "$LOCKD_FENCING_TOKEN $LOCKD_LEASE_ID $LOCKD_LOCK_NAME" > ${out}; exit 7`,
    );
    expect(r.code, r.stderr).to.equal(7);
    const [token, leaseId, name] = readFileSync(out, 'utf8').trim().split(' ');
    expect(Number(token)).to.be.greaterThan(0);
    expect(Number(leaseId)).to.be.greaterThan(0);
    expect(name).to.equal('ctl/run');
    const left = readId(leftPid)!;
    expect(left, 'the background child wrote its pid').to.be.greaterThan(0);
    expect(alive(left), 'the background child outlived lockctl').to.equal(false);
    expect((await client.inspect('ctl/run')).held).to.equal(false);
    // Its lease was revoked, not left to expire.
    expect((await client.listLeases()).map((l) => l.leaseId)).to.not.include(Number(leaseId));
  });

  it('a second run on the same name waits until the first finishes', async () => {
    const go = join(dir, 'go');
    const aToken = join(dir, 'a.token');
    const bToken = join(dir, 'b.token');
    const first = start(['run', 'ctl/serial', '--', 'sh', '-c', `echo $LOCKD_FENCING_TOKEN > ${aToken}; ${awaitFile(go)}`]);
    await waitFor('first command running', () => readId(aToken), 15_000);
    const second = start(['run', 'ctl/serial', '--wait', '--', 'sh', '-c', `echo $LOCKD_FENCING_TOKEN > ${bToken}`]);
    // The second is queued behind the first in the cluster, and its command has not started.
    await waitFor('second queued', async () => ((await client.inspect('ctl/serial')).waitingLeaseIds.length === 1 ? true : undefined), 15_000);
    expect(existsSync(bToken)).to.equal(false);
    writeFileSync(go, '');
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a.code, a.stderr).to.equal(0);
    expect(b.code, b.stderr).to.equal(0);
    expect(readId(bToken)).to.be.greaterThan(readId(aToken)!);

    // Without --wait a held lock is not taken and the command does not run.
    const blocker = await client.acquire('ctl/serial', { ttlMs: 5000 });
    const refused = await lockctl('run', 'ctl/serial', '--', 'sh', '-c', `touch ${join(dir, 'never')}`);
    await blocker.release();
    expect(refused.code).to.equal(75);
    expect(refused.stderr).to.contain('held by lease');
    expect(existsSync(join(dir, 'never'))).to.equal(false);
  });

  /** A command that ignores SIGTERM and starts a grandchild (which inherits that): the pid files it writes. */
  const stubborn = (tag: string) => {
    const files = { cmd: join(dir, `${tag}.pid`), grandchild: join(dir, `${tag}.gc.pid`), lease: join(dir, `${tag}.lease`) };
    const script = `trap '' TERM; sleep 60 & echo $! > ${files.grandchild}; echo $LOCKD_LEASE_ID > ${files.lease}; echo $$ > ${files.cmd}; wait`;
    return { files, script };
  };

  it('run stops the command and exits 76 when the cluster ends the grant: its whole group, by --grace', async () => {
    const { files, script } = stubborn('lost');
    const run = start(['run', 'ctl/lost', '--grace', '1000', '--', 'sh', '-c', script]);
    await commandPid(files.cmd);
    const leaseId = await waitFor('the lease id', () => readId(files.lease), 15_000);
    const grandchild = readId(files.grandchild)!;
    expect(alive(grandchild)).to.equal(true);
    const revokedAt = Date.now();
    await client.revokeLease(leaseId);
    const goneAt = await waitFor('the grandchild gone', () => (alive(grandchild) ? undefined : Date.now()), 10_000, 10);
    // SIGTERM (ignored) at once, SIGKILL of the group --grace later: timer and poll slack only.
    expect(goneAt - revokedAt).to.be.below(1000 + 500);
    const r = await run.done;
    expect(r.code).to.equal(76);
    expect(r.stderr).to.match(/lost lock ctl\/lost/);
  });

  it("run ends the command's whole process group by the lease's trust deadline when keepalives stall", async () => {
    const ttlMs = 2000;
    const { files, script } = stubborn('stall');
    const run = start(['run', 'ctl/stall', '--ttl', String(ttlMs), '--grace', '500', '--', 'sh', '-c', script]);
    const cmd = await commandPid(files.cmd);
    const grandchild = readId(files.grandchild)!;
    const ids = cluster.nodes.map((n) => n.id);
    // No node answers from here: every keepalive lockctl has had acknowledged was sent before now,
    // so its deadline — sendTime(last acknowledged) + ttl — is at most ttl from now.
    for (const id of ids) cluster.signal(id, 'SIGSTOP');
    const stalledAt = Date.now();
    let goneAt: number;
    try {
      goneAt = await waitFor('the grandchild gone', () => (alive(grandchild) ? undefined : Date.now()), ttlMs + 5000, 10);
    } finally {
      for (const id of ids) cluster.signal(id, 'SIGCONT');
    }
    // By the deadline (timer and poll slack of a loaded machine only): the next holder never overlaps it.
    expect(goneAt - stalledAt).to.be.at.most(ttlMs + 200);
    expect(alive(cmd)).to.equal(false);
    const r = await run.done;
    expect(r.code, r.stderr).to.equal(76);
    expect(r.stderr).to.match(/lost lock ctl\/stall: no keepalive acknowledged/);
    await cluster.waitForLeader();
  });

  it('run refuses a --grace above half the TTL', async () => {
    const r = await lockctl('run', 'ctl/grace', '--ttl', '2000', '--grace', '1500', '--', 'true');
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/--grace 1500 ms must be at most half the lease TTL \(2000 ms\)/);
  });
});
