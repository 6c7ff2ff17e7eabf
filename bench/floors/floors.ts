// Floors: what any lock server on this machine pays per operation, measured in the same run.
//  - fsync (and fdatasync) of a 4 KiB append to a file in the temp dir (where the clusters keep
//    their data);
//  - a unary gRPC echo round trip on loopback to a separate Node process (1 caller; 64 callers);
//  - a ping-pong round trip on one bidirectional stream (the shape of lockd's peer messages).
import { closeSync, fdatasyncSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { unary } from '../lib/grpc-call.js';
import { Proc, freePort, waitFor } from '../lib/procs.js';
import { Recorder, round } from '../lib/stats.js';
import { Window, type WindowSpec } from '../lib/window.js';
import { Echo } from './echo-proto.js';

export interface Floors {
  readonly fsync_4k_p50_ms: number;
  readonly fsync_4k_p99_ms: number;
  readonly fdatasync_4k_p50_ms: number;
  readonly grpc_unary_rtt_p50_ms: number;
  readonly grpc_unary_rtt_p99_ms: number;
  readonly grpc_unary_64_calls_per_s: number;
  readonly grpc_unary_64_p50_ms: number;
  readonly grpc_unary_64_p99_ms: number;
  readonly grpc_stream_rtt_p50_ms: number;
}

function syncFloor(sync: (fd: number) => void, maxOps: number, maxMs: number): Recorder {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fsync-'));
  const fd = openSync(join(dir, 'log'), 'a');
  const block = Buffer.alloc(4096, 7);
  const rec = new Recorder();
  try {
    const end = performance.now() + maxMs;
    for (let k = 0; k < maxOps && performance.now() < end; k++) {
      const t0 = performance.now();
      writeSync(fd, block);
      sync(fd);
      if (k >= 10) rec.add(performance.now() - t0); // the first few extend a fresh file
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return rec;
}

async function closedLoop(callers: number, spec: WindowSpec, op: () => Promise<unknown>): Promise<{ rec: Recorder; w: Window }> {
  const rec = new Recorder();
  const w = new Window(spec);
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (!w.over) {
        const t0 = performance.now();
        await op();
        const t1 = performance.now();
        if (w.counts(t1)) rec.add(t1 - t0);
      }
    }),
  );
  return { rec, w };
}

export async function measureFloors(spec: WindowSpec, log: (line: string) => void): Promise<Floors> {
  const fsync = syncFloor(fsyncSync, 2000, 3000).summary(0);
  const fdatasync = syncFloor(fdatasyncSync, 2000, 3000).summary(0);
  log(`[floor] 4 KiB append + fsync: p50 ${fsync.p50Ms.toFixed(3)} ms p99 ${fsync.p99Ms.toFixed(3)} ms; + fdatasync: p50 ${fdatasync.p50Ms.toFixed(3)} ms`);

  const port = await freePort();
  const logFile = join(tmpdir(), `bench-echo-${process.pid}.log`);
  const server = new Proc('echo server', process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'echo-server.ts'), String(port)], logFile);
  const client = new Echo(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const payload = Buffer.alloc(32, 1);
    await waitFor('the echo server', () => unary(client, 'Unary', { payload }, 500).then(() => true), 20_000);
    const one = await closedLoop(1, spec, () => unary(client, 'Unary', { payload }, 5000));
    const u1 = one.rec.summary(one.w.lengthMs);
    const many = await closedLoop(64, spec, () => unary(client, 'Unary', { payload }, 5000));
    const u64 = many.rec.summary(many.w.lengthMs);
    log(
      `[floor] gRPC unary echo: 1 caller p50 ${u1.p50Ms.toFixed(3)} ms p99 ${u1.p99Ms.toFixed(3)} ms (${u1.perSecond.toFixed(0)}/s); 64 callers ${u64.perSecond.toFixed(0)} calls/s p50 ${u64.p50Ms.toFixed(2)} ms p99 ${u64.p99Ms.toFixed(2)} ms`,
    );

    const stream = (client as unknown as { Stream(): grpc.ClientDuplexStream<unknown, unknown> }).Stream();
    let waiting: (() => void) | undefined;
    stream.on('data', () => waiting?.());
    stream.on('error', () => {});
    const ping = () =>
      new Promise<void>((resolve) => {
        waiting = resolve;
        stream.write({ payload });
      });
    const st = await closedLoop(1, spec, ping);
    stream.end();
    const s1 = st.rec.summary(st.w.lengthMs);
    log(`[floor] gRPC stream ping-pong: p50 ${s1.p50Ms.toFixed(3)} ms p99 ${s1.p99Ms.toFixed(3)} ms`);
    return {
      fsync_4k_p50_ms: round(fsync.p50Ms),
      fsync_4k_p99_ms: round(fsync.p99Ms),
      fdatasync_4k_p50_ms: round(fdatasync.p50Ms),
      grpc_unary_rtt_p50_ms: round(u1.p50Ms),
      grpc_unary_rtt_p99_ms: round(u1.p99Ms),
      grpc_unary_64_calls_per_s: round(u64.perSecond),
      grpc_unary_64_p50_ms: round(u64.p50Ms),
      grpc_unary_64_p99_ms: round(u64.p99Ms),
      grpc_stream_rtt_p50_ms: round(s1.p50Ms),
    };
  } finally {
    client.close();
    await server.stop('SIGTERM', 3000);
    rmSync(logFile, { force: true });
  }
}
