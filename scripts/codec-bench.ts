// Micro-benchmark of the per-message codec CPU on the peer path and of the command codec:
// CPU ns per op (process.cpuUsage, so a loaded machine inflates it less than wall time) and bytes
// per message. The proto rows are the protobuf path lockd used before the frame (still used for
// snapshot chunks). `npx tsx scripts/codec-bench.ts [iterations]`. Each figure: the median of 5 runs.
// For figures to compare, run it compiled (tsc into a scratch dir): tsx keeps function names by
// wrapping every closure it creates, which inflates closure-heavy code (the protobuf conversion).
import { raftProto } from '../src/proto/raft-package.js';
import type { Entry, Message } from '../src/raft/types.js';
import { encodeCommand, decodeCommand, type Command } from '../src/lockd/state-machine/index.js';
import { messageFromProto, messageToProto } from '../src/lockd/transport/convert.js';
import * as frame from '../src/lockd/transport/frame-codec.js';
import type { Envelope__Output } from '../src/proto/gen/raft/v1/Envelope.js';
import { deserializeEnvelope, serializeEnvelope } from '../src/lockd/transport/envelope-codec.js';

const N = Number(process.argv[2] ?? 50_000);
const def = raftProto.raft.v1.Raft.service.Stream;
const tag = { clusterId: 'bench-cluster', senderId: 'n1' };

const acquire: Command = { type: 'Acquire', name: 'bench/lock-00042', leaseId: 1_234_567, wait: false, requestId: '0f3c6a9e-5d1b-4c7e-9a2f-8b6d4e1c0a37' };
const release: Command = { type: 'Release', name: 'bench/lock-00042', token: 1_234_890, leaseId: 1_234_567, requestId: '0f3c6a9e-5d1b-4c7e-9a2f-8b6d4e1c0a38' };
const tick: Command = { type: 'Tick', elapsedMs: 100, marginMs: 200, driftPpm: 1000, renewed: Array.from({ length: 64 }, (_, i) => 1_000_000 + i * 7) };
const fence: Command = { type: 'FenceWrite', key: 'bench/key', value: new Uint8Array(256).fill(7), token: 1_234_890, lock: 'bench/lock-00042' };

const entry = (i: number, cmd: Command): Entry => ({ term: 7, index: 1_234_000 + i, data: encodeCommand(cmd) });
const base = { from: 'n1', to: 'n2', term: 7, logTerm: 0, index: 0, entries: [] as Entry[], commit: 1_233_990, reject: false, rejectHint: 0, context: '' };
const messages: Record<string, Message> = {
  'App 1 entry': { ...base, type: 'App', logTerm: 7, index: 1_233_999, entries: [entry(0, acquire)] },
  'App 16 entries': { ...base, type: 'App', logTerm: 7, index: 1_233_999, entries: Array.from({ length: 16 }, (_, i) => entry(i, i % 2 ? release : acquire)) },
  'App empty (commit)': { ...base, type: 'App', logTerm: 7, index: 1_234_000 },
  AppResp: { ...base, type: 'AppResp', from: 'n2', to: 'n1', index: 1_234_000, commit: 0 },
  Heartbeat: { ...base, type: 'Heartbeat', context: 'ri-000123' },
};

function cpuNs(fn: () => void, n: number): number {
  for (let i = 0; i < Math.min(n, 5000); i++) fn(); // warm-up
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / n;
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function report(label: string, fn: () => void, bytes?: number): void {
  const runs = Array.from({ length: 5 }, () => cpuNs(fn, N));
  const spread = `${Math.round(Math.min(...runs))}-${Math.round(Math.max(...runs))}`;
  console.log(`${label.padEnd(44)} ${String(Math.round(median(runs))).padStart(7)} ns/op  (${spread})${bytes === undefined ? '' : `  ${bytes} B`}`);
}

let sink: unknown;
for (const [name, m] of Object.entries(messages)) {
  const wireProto = def.requestSerialize({ ...tag, message: messageToProto(m) });
  report(
    `proto   encode ${name}`,
    () => {
      sink = def.requestSerialize({ ...tag, message: messageToProto(m) });
    },
    wireProto.length,
  );
  report(`proto   decode ${name}`, () => {
    sink = messageFromProto((def.requestDeserialize(wireProto) as Envelope__Output).message!);
  });
  const wireFrame = serializeEnvelope({ clusterId: tag.clusterId, senderId: tag.senderId, frame: frame.encodeMessage(m) });
  report(
    `frame   encode ${name}`,
    () => {
      sink = serializeEnvelope({ clusterId: tag.clusterId, senderId: tag.senderId, frame: frame.encodeMessage(m) });
    },
    wireFrame.length,
  );
  report(`frame   decode ${name}`, () => {
    sink = frame.decodeMessage(deserializeEnvelope(wireFrame).frame!);
  });
}
for (const [name, cmd] of Object.entries({ Acquire: acquire, Release: release, 'Tick 64 renewed': tick, 'FenceWrite 256 B': fence })) {
  const bytes = encodeCommand(cmd);
  report(
    `command encode ${name}`,
    () => {
      sink = encodeCommand(cmd);
    },
    bytes.length,
  );
  report(`command decode ${name}`, () => {
    sink = decodeCommand(bytes);
  });
}
void sink;
