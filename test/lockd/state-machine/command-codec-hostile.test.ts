// The binary command codec (format 2) against the defects a hostile review found in its first version:
// each test failed on that version (a leading U+FEFF stripped, a Buffer view kept, non-canonical input
// accepted, out-of-range permits erased, an oversized buffer pinned).
import { expect } from 'chai';
import {
  type Command,
  CommandDecodeError,
  COMMAND_FORMAT_VERSION,
  decodeCommand,
  encodeCommand,
  validateCommand,
} from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

const V = COMMAND_FORMAT_VERSION;
const BOM = '\uFEFF';

describe('command codec: defects found by a hostile review', () => {
  it('keeps a leading U+FEFF in every string field (TextDecoder strips a BOM unless ignoreBOM)', () => {
    // U+FEFF is a format character (Cf), not a control character: validateCommand accepts it in a name.
    const cmds: Command[] = [
      { type: 'Acquire', name: `${BOM}db`, leaseId: 5, wait: false, value: `${BOM}v`, requestId: `${BOM}r`, principal: `${BOM}alice` },
      { type: 'FenceWrite', key: `${BOM}k`, value: new Uint8Array([1]), token: 3, lock: `${BOM}db` },
      { type: 'AclGrant', subject: 'bob', prefix: BOM, verb: 'lock', requestId: 'r' },
    ];
    for (const cmd of cmds) {
      expect(validateCommand(cmd), cmd.type).to.equal(undefined);
      expect(decodeCommand(encodeCommand(cmd)), cmd.type).to.deep.equal(cmd);
    }
  });

  it('applies an Acquire of "\\uFEFFdb" to that lock, not to the lock "db" another lease holds', () => {
    const h = new Harness();
    const a = h.grant();
    const b = h.grant();
    expect(h.acquire('db', a).status).to.equal('acquired');
    // A different name, free: B gets it at once (under format 2 it lands on "db", held by A).
    expect(h.acquire(`${BOM}db`, b).status).to.equal('acquired');
    expect(h.sm.inspectLock(`${BOM}db`).held).to.equal(true);
  });

  it('a fenced write to key "\\uFEFFk" does not overwrite key "k" nor raise its token', () => {
    const h = new Harness();
    const a = h.grant();
    const t1 = h.acquire('l', a).token;
    h.ok({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1]), token: t1 });
    const t2 = h.acquire('m', a).token; // a newer token than t1
    h.ok({ type: 'FenceWrite', key: `${BOM}k`, value: new Uint8Array([2]), token: t2 });
    expect(h.sm.fenceRead('k')).to.deep.equal({ found: true, value: new Uint8Array([1]), token: t1 });
    expect(h.sm.fenceRead(`${BOM}k`).found).to.equal(true);
  });

  it('decodes a fence value as a plain Uint8Array copy also from a Buffer (Buffer#slice is a view, not a copy)', () => {
    // LevelDB and gRPC hand out Buffers; the fenced store keeps the decoded value for good.
    const entry = Buffer.from(encodeCommand({ type: 'FenceWrite', key: 'k', value: new Uint8Array([1, 2, 3]), token: 9 }));
    const cmd = decodeCommand(entry) as { value: Uint8Array };
    entry.fill(0); // the entry's buffer reused or released
    expect([...cmd.value]).to.deep.equal([1, 2, 3]);
    expect(Buffer.isBuffer(cmd.value), 'a Buffer, unlike what a replica decodes from a Uint8Array').to.equal(false);
  });

  it('an encoded command does not pin an allocation several times its size (the leader keeps it in its log until compaction)', () => {
    // A Tick renewing 1000 leases is ~1.9 KB of entry; the Writer sized it by its upper bound (16 KB).
    // Failed on 383f40d (a view of the Writer's buffer); passes since pcodec 6183970 (an exact-size copy).
    const cmds: Command[] = [
      { type: 'Tick', elapsedMs: 100, marginMs: 200, renewed: Array.from({ length: 1000 }, (_, i) => i + 1) },
      { type: 'Tick', elapsedMs: 100, marginMs: 200, renewed: Array.from({ length: 20_000 }, (_, i) => 1_000_000 + i) },
      { type: 'Acquire', name: 'n'.repeat(1500), leaseId: 5, wait: true },
    ];
    for (const cmd of cmds) {
      const bytes = encodeCommand(cmd);
      // Small ones may share Node's 8 KiB Buffer pool; anything bigger should be (about) its own size.
      expect(bytes.buffer.byteLength, `${cmd.type} of ${bytes.length} bytes`).to.be.at.most(Math.max(Buffer.poolSize, 2 * bytes.length));
    }
  });

  it('refuses a non-canonical entry: an optional field present with its default value (encodeCommand never writes one)', () => {
    const bad: [string, Uint8Array][] = [
      // CancelWait = 10, presence bit 0 (abandonedAtIndex) set, value 0 (uint 1).
      ['CancelWait.abandonedAtIndex = 0', new Uint8Array([V, 10, 0b1, 1, 0x61, 5, 1])],
      // Tick = 3, presence bit 0 (driftPpm) set, value 0.
      ['Tick.driftPpm = 0', new Uint8Array([V, 3, 0b1, 101, 7, 1, 0])],
      // Revoke = 2, presence bit 0 (requestId) set, the empty string.
      ['Revoke.requestId = ""', new Uint8Array([V, 2, 0b1, 4, 0])],
      // Acquire = 4, presence bit 0 (permits) set, permits 1 (uint 2).
      ['Acquire.permits = 1', new Uint8Array([V, 4, 0b1, 1, 0x61, 6, 1, 2])],
    ];
    const accepted = bad.filter(([, data]) => {
      try {
        decodeCommand(data);
        return true;
      } catch (e) {
        expect(e).to.be.instanceOf(CommandDecodeError);
        return false;
      }
    });
    expect(accepted.map(([what]) => what)).to.deep.equal([]);
  });

  it('an Acquire that validateCommand refuses for its permits is still refused after the codec (apply re-validates)', () => {
    for (const permits of [-3, 0.5, -Infinity]) {
      const cmd: Command = { type: 'Acquire', name: 'a', leaseId: 1, wait: false, permits };
      expect(validateCommand(cmd), `permits ${permits}`).to.not.equal(undefined);
      let decoded: Command | undefined;
      try {
        decoded = decodeCommand(encodeCommand(cmd));
      } catch {
        continue; // refusing to encode it is fine too
      }
      expect(validateCommand(decoded), `permits ${permits} after the codec`).to.not.equal(undefined);
    }
  });
});
