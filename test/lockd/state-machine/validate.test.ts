import { expect } from 'chai';
import type { Command, Problem } from '../../../src/lockd/state-machine/index.js';
import {
  MAX_FENCE_VALUE_BYTES,
  MAX_NAME_BYTES,
  MAX_REQUEST_ID_BYTES,
  MAX_TTL_MS,
  MIN_TTL_MS,
  validateCommand,
  validateElapsedMs,
  validateFenceKey,
  validateFenceValue,
  validateLeaseId,
  validateLockName,
  validateMarginMs,
  validateRequestId,
  validateToken,
  validateTtlMs,
} from '../../../src/lockd/state-machine/index.js';
import { Harness } from './harness.js';

type Case = [string, unknown, RegExp | undefined];

function table(what: string, fn: (v: unknown) => Problem | undefined, cases: Case[]) {
  describe(what, () => {
    for (const [label, input, msg] of cases) {
      it(`${msg ? 'refuses' : 'accepts'} ${label}`, () => {
        const p = fn(input);
        if (!msg) return expect(p).to.equal(undefined);
        expect(p?.error).to.equal('INVALID_ARGUMENT');
        expect(p?.message).to.match(msg);
      });
    }
  });
}

describe('state machine: input validation (pure, callable before proposing)', () => {
  table('lock names', validateLockName, [
    ['a plain name', 'jobs/nightly', undefined],
    ['unicode', 'verrou-é-✓-𝄞', undefined],
    [`exactly ${MAX_NAME_BYTES} bytes`, 'a'.repeat(MAX_NAME_BYTES), undefined],
    ['the empty string', '', /must not be empty/],
    [`${MAX_NAME_BYTES + 1} bytes`, 'a'.repeat(MAX_NAME_BYTES + 1), /513 bytes.*limit is 512/],
    ['171 three-byte characters (513 bytes, 171 chars)', '€'.repeat(171), /513 bytes/],
    ['a newline', 'a\nb', /control character \(U\+000A\) at offset 1/],
    ['NUL', '\u0000', /control character/],
    ['DEL', 'x\u007f', /control character \(U\+007F\)/],
    ['a C1 control (NEL)', 'x\u0085', /control character \(U\+0085\)/],
    ['a lone surrogate', 'x\ud800y', /lone surrogate/],
    ['a number', 5, /must be a string/],
  ]);

  table('fence keys (same rules, own wording)', validateFenceKey, [
    ['a key', 'k', undefined],
    ['the empty string', '', /fence key must not be empty/],
    ['a tab', 'a\tb', /fence key contains a control character/],
  ]);

  table('TTLs', validateTtlMs, [
    [`${MIN_TTL_MS} ms`, MIN_TTL_MS, undefined],
    [`${MAX_TTL_MS} ms`, MAX_TTL_MS, undefined],
    [`${MIN_TTL_MS - 1} ms`, MIN_TTL_MS - 1, /out of range \[100, 3600000\]/],
    [`${MAX_TTL_MS + 1} ms`, MAX_TTL_MS + 1, /out of range/],
    ['0', 0, /out of range/],
    ['a negative TTL', -5000, /out of range/],
    ['a fraction', 1500.5, /integer/],
    ['NaN', NaN, /integer/],
  ]);

  table('margins', validateMarginMs, [
    ['0', 0, undefined],
    ['200', 200, undefined],
    ['-1', -1, /out of range/],
  ]);

  table('tick elapsed', validateElapsedMs, [
    ['0', 0, undefined],
    ['-1', -1, /out of range/],
    ['an hour', 3_600_000, /out of range/],
  ]);

  table('lease ids', validateLeaseId, [
    ['1', 1, undefined],
    ['2^53-1', Number.MAX_SAFE_INTEGER, undefined],
    ['0', 0, /lease id must be positive/],
    ['-1', -1, /positive/],
    ['2^53', 2 ** 53, /^lease id 9007199254740992 is out of range/],
    ['2^64-1 as a JS number', 2 ** 64, /out of range/],
    ['a string', '7', /integer/],
  ]);

  table('fencing tokens', validateToken, [
    ['1', 1, undefined],
    ['0 (zero token)', 0, /fencing token must be positive/],
  ]);

  table('fence values', validateFenceValue, [
    ['empty bytes', new Uint8Array(0), undefined],
    [`${MAX_FENCE_VALUE_BYTES} bytes`, new Uint8Array(MAX_FENCE_VALUE_BYTES), undefined],
    [`${MAX_FENCE_VALUE_BYTES + 1} bytes`, new Uint8Array(MAX_FENCE_VALUE_BYTES + 1), /65537 bytes; the limit is 65536/],
    ['a string', 'abc', /must be bytes/],
  ]);

  table('request ids', validateRequestId, [
    ['absent', undefined, undefined],
    ['empty (= absent)', '', undefined],
    ['a uuid', '3f2b8c1e-4a5d-4e6f-8a9b-0c1d2e3f4a5b', undefined],
    [`${MAX_REQUEST_ID_BYTES + 1} bytes`, 'r'.repeat(MAX_REQUEST_ID_BYTES + 1), /limit is 128/],
    ['a control character', 'r\n', /control/],
  ]);

  describe('validateCommand checks every field of every command', () => {
    const cases: [Command, RegExp | undefined][] = [
      [{ type: 'Grant', ttlMs: 1000, marginMs: 200, requestId: 'x' }, undefined],
      [{ type: 'Grant', ttlMs: 50, marginMs: 200 }, /ttl_ms/],
      [{ type: 'Grant', ttlMs: 1000, marginMs: 999_999 }, /margin_ms/],
      [{ type: 'Revoke', leaseId: 0 }, /lease id/],
      [{ type: 'Tick', elapsedMs: 100, marginMs: 200, renewed: [1, 2] }, undefined],
      [{ type: 'Tick', elapsedMs: -1, marginMs: 200, renewed: [] }, /elapsed_ms/],
      [{ type: 'Tick', elapsedMs: 100, marginMs: 200, renewed: [1, 0] }, /lease id/],
      [{ type: 'Acquire', name: 'a', leaseId: 1, wait: true }, undefined],
      [{ type: 'Acquire', name: '', leaseId: 1, wait: true }, /lock name/],
      [{ type: 'Acquire', name: 'a', leaseId: 0, wait: true }, /lease id/],
      [{ type: 'Acquire', name: 'a', leaseId: 1, wait: true, requestId: 'x'.repeat(200) }, /request_id/],
      [{ type: 'Release', name: 'a', token: 0 }, /fencing token/],
      [{ type: 'FenceWrite', key: 'k', value: new Uint8Array(1), token: 0 }, /fencing token/],
      [{ type: 'FenceWrite', key: '', value: new Uint8Array(1), token: 1 }, /fence key/],
      [{ type: 'FenceWrite', key: 'k', value: new Uint8Array(MAX_FENCE_VALUE_BYTES + 1), token: 1 }, /fence value/],
      [{ type: 'CancelWait', name: 'a\u0000', leaseId: 1 }, /control/],
      [{ type: 'CancelWait', name: 'a', leaseId: 1, abandonedAtIndex: 0 }, undefined],
      [{ type: 'CancelWait', name: 'a', leaseId: 1, abandonedAtIndex: 7 }, undefined],
      [{ type: 'CancelWait', name: 'a', leaseId: 1, abandonedAtIndex: -1 }, /abandoned_at_index/],
      [{ type: 'Revoke', leaseId: 1, requestId: 'r\n' }, /request_id/],
      [{ type: 'Release', name: 'a', token: 1, requestId: 'x'.repeat(200) }, /request_id/],
      [{ type: 'CancelWait', name: 'a', leaseId: 1, requestId: 'x'.repeat(200) }, /request_id/],
      [{ type: 'FenceWrite', key: 'k', value: new Uint8Array(1), token: 1, lock: 'job', requestId: 'r' }, undefined],
      [{ type: 'FenceWrite', key: 'k', value: new Uint8Array(1), token: 1, lock: '' }, undefined],
      [{ type: 'FenceWrite', key: 'k', value: new Uint8Array(1), token: 1, lock: 'x'.repeat(600) }, /lock name/],
      [{ type: 'FenceWrite', key: 'k', value: new Uint8Array(1), token: 1, requestId: 'x'.repeat(200) }, /request_id/],
      [{ type: 'FenceDelete', key: 'k', token: 1 }, undefined],
      [{ type: 'FenceDelete', key: 'k', token: 0 }, /fencing token/],
      [{ type: 'FenceDelete', key: '', token: 1 }, /fence key/],
      [{ type: 'FenceDelete', key: 'k', token: 1, lock: 'a\u0001' }, /control/],
      [{ type: 'FenceDelete', key: 'k', token: 1, requestId: 'x'.repeat(200) }, /request_id/],
    ];
    for (const [cmd, msg] of cases) {
      it(`${msg ? 'refuses' : 'accepts'} ${cmd.type} ${msg ?? ''}`, () => {
        const p = validateCommand(cmd);
        if (!msg) return expect(p).to.equal(undefined);
        expect(p?.message).to.match(msg);
      });
    }
  });

  describe('the same rules hold at apply time, deterministically, changing nothing', () => {
    const bad: [string, Command][] = [
      ['Grant with a 99 ms TTL', { type: 'Grant', ttlMs: 99, marginMs: 0 }],
      ['Grant with an oversize request id', { type: 'Grant', ttlMs: 1000, marginMs: 0, requestId: 'r'.repeat(129) }],
      ['Acquire with a 513-byte name', { type: 'Acquire', name: 'x'.repeat(513), leaseId: 1, wait: false }],
      ['Acquire with lease 0', { type: 'Acquire', name: 'ok', leaseId: 0, wait: false }],
      ['Release with token 0', { type: 'Release', name: 'ok', token: 0 }],
      ['FenceWrite with an oversize value', { type: 'FenceWrite', key: 'k', value: new Uint8Array(MAX_FENCE_VALUE_BYTES + 1), token: 1 }],
      ['Tick with negative elapsed', { type: 'Tick', elapsedMs: -5, marginMs: 0, renewed: [] }],
      ['Revoke with a fractional id', { type: 'Revoke', leaseId: 1.5 }],
    ];
    for (const [label, cmd] of bad) {
      it(`${label}: INVALID_ARGUMENT, state untouched, index consumed`, () => {
        const h = new Harness();
        const lease = h.grant();
        h.acquire('ok', lease);
        const before = h.sm.snapshot();
        const digest = h.sm.stateDigest();
        const out = h.apply(cmd);
        expect(out.result).to.include({ ok: false, type: cmd.type, error: 'INVALID_ARGUMENT' });
        expect(out.events).to.deep.equal([]);
        expect(h.sm.appliedIndex).to.equal(3);
        // Only appliedIndex moved: restore the old bytes, bump the index by a no-op, compare.
        const ref = new Harness();
        ref.sm.restore(before);
        ref.noop();
        expect(h.sm.stateDigest()).to.equal(ref.sm.stateDigest()).and.not.equal(digest);
      });
    }
  });
});
