// LockClient.saveSnapshot's file handling against scripted streams (no server): a whole backup is
// written to FILE only after its size and checksum check out; a short, oversized, damaged or failed
// stream leaves FILE as it was and no FILE.part behind; a follower's UNAVAILABLE is retried at the
// leader it names.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { saveSnapshot } from '../../src/client/snapshot-save.js';
import type { Router } from '../../src/client/router.js';
import { monoNow } from '../../src/client/deadlines.js';

type Msg = { info?: Record<string, unknown> | null; data?: Buffer };

function backupBytes(n: number): Buffer {
  const body = Buffer.alloc(n, 7);
  return Buffer.concat([body, createHash('sha256').update(body).digest()]);
}

/** A stream that sends `messages` then ends with `code` (and `leader` in the lockd-leader trailer). */
function scripted(messages: Msg[], code = grpc.status.OK, details = '', leader?: string) {
  const s = new EventEmitter() as EventEmitter & { cancel(): void };
  s.cancel = () => {};
  setImmediate(() => {
    for (const m of messages) s.emit('data', { info: m.info ?? null, data: m.data ?? Buffer.alloc(0) });
    const metadata = new grpc.Metadata();
    if (leader) metadata.set('lockd-leader', leader);
    s.emit('status', { code, details, metadata });
  });
  return s;
}

function info(size: number) {
  return {
    index: 9,
    term: 2,
    sizeBytes: size,
    voters: ['n1'],
    learners: [],
    leaderId: 'n1',
    fileFormat: 1,
    stateFormat: 8,
    logicalNowMs: 0,
    leases: 0,
    locks: 0,
    fencedKeys: 0,
    aclRules: 0,
  };
}

function chunks(b: Buffer, size = 65_536): Msg[] {
  const out: Msg[] = [];
  for (let at = 0; at < b.length; at += size) out.push({ data: b.subarray(at, at + size) });
  return out;
}

/** A router whose endpoints answer from `streams` in turn; it follows a leader hint as the real one does. */
function fakeRouter(streams: Array<() => ReturnType<typeof scripted>>): { router: Router; asked: string[] } {
  const asked: string[] = [];
  let leader = 'a:1';
  let k = 0;
  const router = {
    pick: async () => ({ address: leader, maintenance: { Snapshot: () => (asked.push(leader), streams[k++]!()) } }),
    onFailure: (_address: string, st: { code: number; metadata?: grpc.Metadata }) => {
      const hint = st.metadata?.get('lockd-leader')[0];
      if (st.code === grpc.status.UNAVAILABLE && typeof hint === 'string') {
        leader = hint;
        return { retry: true, redirected: true };
      }
      return { retry: st.code === grpc.status.UNAVAILABLE, redirected: false };
    },
  } as unknown as Router;
  return { router, asked };
}

describe('saveSnapshot (scripted streams)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockd-save-'));
    file = join(dir, 'b.lockd');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const ctl = () => ({ deadline: monoNow() + 5000 });

  it('writes a whole, checked backup (after following a leader hint) and nothing else', async () => {
    const b = backupBytes(200_000);
    const { router, asked } = fakeRouter([
      () => scripted([], grpc.status.UNAVAILABLE, 'n2 is not the leader', 'b:2'),
      () => scripted([{ info: info(b.length) }, ...chunks(b)]),
    ]);
    const saved = await saveSnapshot(router, file, ctl());
    expect(asked).to.deep.equal(['a:1', 'b:2']);
    expect(saved).to.include({ bytes: b.length, sha256: b.subarray(b.length - 32).toString('hex') });
    expect(readFileSync(file).equals(b)).to.equal(true);
    expect(existsSync(`${file}.part`)).to.equal(false);
  });

  it("never writes through a FILE.part symlink, nor keeps a leftover FILE.part's mode: unlinked, made afresh 0600", async () => {
    const b = backupBytes(1000);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, `${file}.part`);
    const { router } = fakeRouter([() => scripted([{ info: info(b.length) }, ...chunks(b)])]);
    await saveSnapshot(router, file, ctl());
    expect(readFileSync(victim, 'utf8')).to.equal('keep me');
    expect(readFileSync(file).equals(b)).to.equal(true);
    expect(lstatSync(file).isSymbolicLink()).to.equal(false);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    writeFileSync(`${file}.part`, 'old', { mode: 0o644 });
    chmodSync(`${file}.part`, 0o644);
    rmSync(file);
    const again = fakeRouter([() => scripted([{ info: info(b.length) }, ...chunks(b)])]);
    await saveSnapshot(again.router, file, ctl());
    expect(statSync(file).mode & 0o777).to.equal(0o600);
  });

  for (const [what, make, why] of [
    [
      'a damaged byte',
      () => {
        const b = backupBytes(1000);
        const d = Buffer.from(b);
        d[10] ^= 1;
        return [{ info: info(b.length) }, ...chunks(d)];
      },
      /does not match its checksum/,
    ],
    [
      'a short stream',
      () => {
        const b = backupBytes(1000);
        return [{ info: info(b.length + 5) }, ...chunks(b)];
      },
      /ended after 1032 of 1037 bytes/,
    ],
    [
      'more than announced',
      () => {
        const b = backupBytes(1000);
        return [{ info: info(b.length - 1) }, ...chunks(b)];
      },
      /more than the 1031 bytes/,
    ],
    ['an oversized announcement', () => [{ info: info(2 * 1024 ** 3) }], /announced a backup of/],
    ['data before info', () => [{ data: Buffer.from('x') }], /before the backup info/],
  ] as const) {
    it(`refuses ${what}, leaving FILE as it was`, async () => {
      writeFileSync(file, 'previous');
      const { router } = fakeRouter([() => scripted(make() as Msg[])]);
      const e = await saveSnapshot(router, file, ctl()).then(
        () => undefined,
        (x: Error) => x,
      );
      expect(e?.message).to.match(why);
      expect(readFileSync(file, 'utf8')).to.equal('previous');
      expect(existsSync(`${file}.part`)).to.equal(false);
    });
  }

  it('a stream that fails after data arrived is not retried: its status is the answer', async () => {
    const b = backupBytes(1000);
    const { router, asked } = fakeRouter([
      () => scripted([{ info: info(b.length) }, ...chunks(b.subarray(0, 500))], grpc.status.UNAVAILABLE, 'leader stepped down'),
    ]);
    const e = await saveSnapshot(router, file, ctl()).then(
      () => undefined,
      (x: Error) => x,
    );
    expect(e?.message).to.match(/UNAVAILABLE: leader stepped down/);
    expect(asked).to.have.length(1);
    expect(existsSync(file) || existsSync(`${file}.part`)).to.equal(false);
  });
});
