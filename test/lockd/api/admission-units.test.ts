// The parts of admission control alone (no sockets): the flags, the outbound budget's accounts and
// evictions, the inbound budget and a stream's requests charged to it, the per-principal and
// per-address counts, the message size estimate, and the refusal log's counts per interval.
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { ConfigError, parseConfig } from '../../../src/lockd/node/config.js';
import { DEFAULT_ADMISSION } from '../../../src/lockd/node/admission-settings.js';
import { OutboundBudget } from '../../../src/lockd/api/admission/outbound-budget.js';
import { InboundBudget } from '../../../src/lockd/api/admission/inbound-budget.js';
import { ServerStreams } from '../../../src/lockd/api/server-stream.js';
import { Admission } from '../../../src/lockd/api/admission/admission.js';
import { CallLimits } from '../../../src/lockd/api/admission/call-limits.js';
import { ConnectionLimits } from '../../../src/lockd/api/admission/connection-limits.js';
import { LimitUse } from '../../../src/lockd/api/admission/limit-use.js';
import { MESSAGE_OVERHEAD_BYTES, messageBytes } from '../../../src/lockd/api/admission/message-size.js';
import { REFUSAL_LOG_INTERVAL_MS, RefusalLog } from '../../../src/lockd/api/admission/refusal-log.js';
import type { ApiError } from '../../../src/lockd/api/api-error.js';

const BASE = [
  '--id',
  'n1',
  '--listen',
  '127.0.0.1:7001',
  '--peer-listen',
  '127.0.0.1:7101',
  '--peers',
  'n1=127.0.0.1:7101',
  '--data-dir',
  '/tmp/x',
  '--cluster-id',
  'c',
];

describe('admission control: its parts', () => {
  describe('flags', () => {
    it('default to DEFAULT_ADMISSION, and are taken from the flags or LOCKD_MAX_* (the flags win)', () => {
      expect(parseConfig(BASE, {}).admission).to.deep.equal(DEFAULT_ADMISSION);
      const c = parseConfig([...BASE, '--max-connections', '10', '--max-unary-per-principal', '7'], {
        LOCKD_MAX_CONNECTIONS: '99',
        LOCKD_MAX_STREAMS_PER_PRINCIPAL: '5',
      });
      expect(c.admission).to.include({ maxConnections: 10, maxUnaryPerPrincipal: 7, maxStreamsPerPrincipal: 5, maxConnectionsPerAddress: 10 });
      expect(DEFAULT_ADMISSION.inboundBytes).to.equal(64 * 1024 * 1024);
      expect(parseConfig([...BASE, '--max-inbound-bytes', '100000'], {}).admission.inboundBytes).to.equal(100_000);
    });

    it('refuse what is no integer in bounds, and a per-stream or per-address limit given above its total, naming the flag', () => {
      const refused = (args: string[]) => {
        try {
          parseConfig([...BASE, ...args], {});
        } catch (e) {
          expect(e).to.be.instanceOf(ConfigError);
          return (e as Error).message;
        }
        throw new Error(`accepted ${args.join(' ')}`);
      };
      expect(refused(['--max-connections', '0'])).to.contain('--max-connections must be an integer in [1,');
      expect(refused(['--max-streams-per-principal', '1.5'])).to.contain('--max-streams-per-principal');
      expect(refused(['--max-outbound-bytes', '1000'])).to.contain('--max-outbound-bytes must be an integer in [65536,');
      expect(refused(['--max-inbound-bytes', '65535'])).to.contain('--max-inbound-bytes must be an integer in [65536,');
      expect(refused(['--max-outbound-bytes', '100000', '--max-stream-outbound-bytes', '200000'])).to.contain(
        '--max-stream-outbound-bytes (200000) must not exceed --max-outbound-bytes (100000)',
      );
      expect(refused(['--max-connections', '5', '--max-connections-per-address', '6'])).to.contain(
        '--max-connections-per-address (6) must not exceed --max-connections (5)',
      );
      // Left at their defaults, the parts shrink to a smaller whole.
      expect(parseConfig([...BASE, '--max-connections', '5', '--max-outbound-bytes', '100000'], {}).admission).to.include({
        maxConnectionsPerAddress: 5,
        streamOutboundBytes: 100_000,
      });
    });
  });

  describe('the outbound budget', () => {
    const settings = { outboundBytes: 1000, streamOutboundBytes: 400 };

    it("charges and credits each stream, ends one over its own cap naming max-stream-outbound-bytes, and returns a closed stream's balance at once", () => {
      const b = new OutboundBudget(settings);
      const a = b.open(() => expect.fail('not evicted'));
      expect(a.charge(300)).to.equal(undefined);
      a.credit(100);
      expect([a.bytes, b.bytes]).to.deep.equal([200, 200]);
      const over = a.charge(201);
      expect(over?.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect(over?.message).to.contain('max-stream-outbound-bytes limit of 400 reached');
      expect(b.streamUse.refused).to.equal(1);
      a.close();
      expect([b.bytes, b.streams]).to.deep.equal([0, 0]);
      a.credit(300); // a late write callback of a closed stream changes nothing
      expect(b.bytes).to.equal(0);
    });

    it('over the total, ends the streams holding the most (after the send), until the total fits', async () => {
      const b = new OutboundBudget(settings);
      const evicted: string[] = [];
      const open = (name: string) => b.open((e: ApiError) => evicted.push(`${name}: ${e.message.split(':')[0]}`));
      const [x, y, z] = [open('x'), open('y'), open('z')];
      x.charge(350);
      y.charge(380);
      z.charge(200);
      expect(evicted).to.deep.equal([]);
      z.charge(150); // total 1080 > 1000: z (350) is not the largest, y (380) is
      expect(evicted, 'not inside the send').to.deep.equal([]);
      await Promise.resolve();
      expect(evicted).to.deep.equal(['y: max-outbound-bytes limit of 1000 reached']);
      expect(b.bytes).to.equal(700);
      expect(b.totalUse.refused).to.equal(1);
    });
  });

  describe('the inbound budget', () => {
    it('charges and credits requests, refuses one that does not fit naming max-inbound-bytes with nothing charged, and never goes below zero', () => {
      const b = new InboundBudget({ inboundBytes: 1000 });
      const x = b.charge(600);
      const y = b.charge(300);
      expect(b.bytes).to.equal(900);
      const over = b.charge(101);
      expect('refused' in over && over.refused.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect('refused' in over && over.refused.message).to.contain(
        'max-inbound-bytes limit of 1000 reached: this node is handling 900 bytes of requests and this one needs 101 more',
      );
      expect(b.bytes, 'a refusal charges nothing').to.equal(900);
      expect(b.use.refused).to.equal(1);
      if (!('credit' in x) || !('credit' in y)) throw new Error('refused within the budget');
      x.credit();
      x.credit(); // a second credit of the same request changes nothing
      expect(b.bytes).to.equal(300);
      expect('credit' in b.charge(700), 'what was credited is free again').to.equal(true);
      const huge = b.charge(1001);
      expect('refused' in huge && huge.refused.message).to.contain('a request of 1001 bytes never fits');
      y.credit();
      expect(b.bytes).to.equal(700);
    });

    it("holds a unary call's request from its arrival until the call ends, and refuses one that does not fit with nothing held", () => {
      const a = new Admission({ ...DEFAULT_ADMISSION, inboundBytes: 64 * 1024 });
      const call = { path: '/p', streaming: false, principal: 'alice', connection: 'c1' };
      const v = a.admitCall(call);
      if ('refused' in v || !v.received) throw new Error('a unary call without its request hook');
      expect(v.received({ value: Buffer.alloc(40_000) })).to.equal(undefined);
      expect(a.inbound.bytes).to.be.above(40_000);
      const w = a.admitCall(call);
      if ('refused' in w || !w.received) throw new Error('a unary call without its request hook');
      expect(w.received({ value: Buffer.alloc(40_000) })?.details).to.contain('max-inbound-bytes limit of 65536 reached');
      w.release();
      v.release();
      v.release();
      expect([a.inbound.bytes, a.calls.of('alice').unary]).to.deep.equal([0, 0]);
      expect(v.received({ value: Buffer.alloc(10) }), 'a message after the call ended').to.equal(undefined);
      expect(a.inbound.bytes).to.equal(0);
      const stream = a.admitCall({ ...call, streaming: true });
      expect('received' in stream, "a stream's requests are charged as it reads them").to.equal(false);
    });

    /** A duplex call as ServerStreams uses it: emits requests, records what the stream sends and how it ends. */
    const fakeCall = () => {
      let paused = false;
      const sent: unknown[] = [];
      const statuses: grpc.StatusObject[] = [];
      const call = Object.assign(new EventEmitter(), {
        writableLength: 0,
        write: (m: unknown, cb?: () => void) => (sent.push(m), cb?.(), true),
        end: () => {},
        pause: () => (paused = true),
        resume: () => (paused = false),
        isPaused: () => paused,
      });
      call.on('error', (s: grpc.StatusObject) => statuses.push(s));
      return { call: call as unknown as grpc.ServerDuplexStream<unknown, unknown>, emitter: call, sent, statuses };
    };

    it("charges a stream's request while its handler runs, not while the work it began is pending; over the budget it is refused with nothing charged", () => {
      const b = new InboundBudget({ inboundBytes: 100_000 });
      const streams = new ServerStreams<{ value: Buffer }, unknown>(undefined, b);
      const { call, emitter, sent } = fakeCall();
      const settles: Array<() => void> = [];
      const during: number[] = [];
      const s = streams.serve(call, {
        onRequest: () => {
          during.push(b.bytes);
          settles.push(s.begin());
        },
        onRefused: (_req, err) => s.send({ refused: err.message }),
      });
      emitter.emit('data', { value: Buffer.alloc(30_000) });
      expect(during[0], 'charged while handled').to.be.above(30_000);
      expect(b.bytes, 'its work pending pins nothing: a waiting operation would pin its whole message').to.equal(0);
      // Over the budget (the rest held elsewhere, e.g. unary calls): refused, the handler not run, nothing charged.
      const other = b.charge(60_000);
      if ('refused' in other) throw new Error('the budget has room');
      emitter.emit('data', { value: Buffer.alloc(50_000) });
      expect(during).to.have.length(1);
      expect(sent, 'the refused request answered').to.have.length(1);
      expect((sent[0] as { refused: string }).refused).to.contain('max-inbound-bytes limit of 100000 reached');
      expect(b.bytes).to.equal(60_000);
      other.credit();
      settles[0]();
      expect(b.bytes).to.equal(0);
    });

    it('a refusal hook that throws (a malformed request) ends the stream with the refusal, and nothing escapes', () => {
      const b = new InboundBudget({ inboundBytes: 70_000 });
      const streams = new ServerStreams<{ value: Buffer }, unknown>(undefined, b);
      const { call, emitter, statuses } = fakeCall();
      streams.serve(call, {
        onRequest: () => {},
        onRefused: () => {
          throw new TypeError('no batch');
        },
      });
      expect(() => emitter.emit('data', { value: Buffer.alloc(80_000) })).to.not.throw();
      expect(statuses.map((x) => x.code)).to.deep.equal([grpc.status.RESOURCE_EXHAUSTED]);
      expect(statuses[0].details).to.contain('max-inbound-bytes limit of 70000 reached');
      expect([streams.size, b.bytes]).to.deep.equal([0, 0]);
    });

    it('ends a stream without onRefused with RESOURCE_EXHAUSTED naming the limit; a request that begins nothing is credited at once', () => {
      const b = new InboundBudget({ inboundBytes: 70_000 });
      const streams = new ServerStreams<{ value: Buffer }, unknown>(undefined, b);
      const { call, emitter, statuses } = fakeCall();
      let handled = 0;
      streams.serve(call, { onRequest: () => void handled++ });
      emitter.emit('data', { value: Buffer.alloc(60_000) });
      expect([handled, b.bytes]).to.deep.equal([1, 0]);
      emitter.emit('data', { value: Buffer.alloc(80_000) });
      expect(handled).to.equal(1);
      expect(statuses.map((x) => x.code)).to.deep.equal([grpc.status.RESOURCE_EXHAUSTED]);
      expect(statuses[0].details).to.contain('max-inbound-bytes limit of 70000 reached');
      expect(streams.size).to.equal(0);
    });
  });

  describe('calls per principal', () => {
    const call = (principal: string | undefined, streaming: boolean, connection = 'c1') => ({ path: '/p', streaming, principal, connection });

    it('counts streams and unary calls apart per principal, refuses over either naming it, and frees a slot on release', () => {
      const k = new CallLimits({ ...DEFAULT_ADMISSION, maxStreamsPerPrincipal: 2, maxUnaryPerPrincipal: 1 });
      const r1 = k.admit(call('alice', true));
      k.admit(call('alice', true, 'c2'));
      const refused = k.admit(call('alice', true));
      expect('refused' in refused && refused.refused.code).to.equal(grpc.status.RESOURCE_EXHAUSTED);
      expect('refused' in refused && refused.refused.details).to.contain('max-streams-per-principal limit of 2 reached: principal "alice"');
      expect('release' in k.admit(call('bob', true)), 'another principal').to.equal(true);
      expect('release' in k.admit(call('alice', false)), 'a unary call').to.equal(true);
      expect('refused' in k.admit(call('alice', false))).to.equal(true);
      expect(k.streamsPerConnection.used(), 'busiest connection: c1, with 2 streams and a unary call (an HTTP/2 stream too)').to.equal(3);
      if ('release' in r1) r1.release();
      expect(k.of('alice')).to.deep.equal({ streams: 1, unary: 1 });
      expect('release' in k.admit(call('alice', true))).to.equal(true);
      expect([k.streamsPerPrincipal.refused, k.unaryPerPrincipal.refused]).to.deep.equal([1, 1]);
      expect('release' in k.admit(call(undefined, true)), 'no principal: the guard refuses it, not this').to.equal(true);
    });
  });

  describe('connections', () => {
    const socket = (remoteAddress: string) => Object.assign(new EventEmitter(), { remoteAddress }) as unknown as Socket;

    it('refuses over the total and per address, and counts a connection until it closes', () => {
      const c = new ConnectionLimits({ ...DEFAULT_ADMISSION, maxConnections: 3, maxConnectionsPerAddress: 2 });
      const a1 = socket('10.0.0.1');
      expect([c.admit(a1), c.admit(socket('10.0.0.1')), c.admit(socket('10.0.0.1'))]).to.deep.equal([true, true, false]);
      expect(c.admit(socket('10.0.0.2'))).to.equal(true);
      expect(c.admit(socket('10.0.0.3'))).to.equal(false);
      expect([c.total.refused, c.byAddress.refused]).to.deep.equal([1, 1]);
      a1.emit('close');
      expect(c.from('10.0.0.1')).to.equal(1);
      expect(c.admit(socket('10.0.0.3'))).to.equal(true);
    });
  });

  it("estimates a message from its fields: bytes and strings by length, numbers at a varint's most", () => {
    expect(messageBytes({ id: 1, fenceRead: { value: Buffer.alloc(60_000), fencingToken: 5 } })).to.equal(
      MESSAGE_OVERHEAD_BYTES + 2 + 10 + (2 + 4 + 60_000 + 10),
    );
    expect(messageBytes({ id: 0, batch: [{ id: 1, error: { message: 'x'.repeat(100) } }] })).to.be.above(MESSAGE_OVERHEAD_BYTES + 100);
  });

  it('logs refusals as one line per limit per interval, with the count since the last line', () => {
    const lines: Array<Record<string, unknown>> = [];
    let now = 0;
    const logger = pino({ level: 'warn' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
    const log = new RefusalLog(logger, () => now);
    const use = new LimitUse('max-connections', 3, () => 3, log.refused);
    for (let k = 0; k < 5; k++) use.refuse('');
    now = REFUSAL_LOG_INTERVAL_MS + 1;
    use.refuse('');
    expect(lines.map((l) => [l.limit, l.refused])).to.deep.equal([
      ['max-connections', 1],
      ['max-connections', 5],
    ]);
  });
});
