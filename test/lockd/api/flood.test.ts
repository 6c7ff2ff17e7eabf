// The flood of flood-scenario.ts, sized for npm test on 2 cores: 2,000 KeepAlive
// streams over 200 connections, 200 unread observers on one connection, 4 unread Sessions with
// 512 reads of 64 KiB each. The full sizes (10,000 streams, 1,000 connections, 400 observers,
// 8 Sessions × 1,024 reads) are the command test/lockd/api/flood.check.ts.
import { floodScenario } from './flood-scenario.js';

const MiB = 1024 * 1024;

floodScenario('flood: KeepAlive streams, connections and slow readers cost no election (real processes)', {
  keepaliveStreams: 2_000,
  connections: 200,
  observers: 200,
  sessions: 4,
  readsPerSession: 512,
  churn: 300,
  outboundBytes: 8 * MiB,
  unloadedMs: 3000,
});
