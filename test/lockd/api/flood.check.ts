// The flood (flood-scenario.ts) at full size: 10,000 KeepAlive streams over 1,000
// connections, 400 unread observers on one connection, 8 unread Sessions with 1,024 reads of
// 64 KiB each. A command, not part of npm test (too heavy for a shared 2-core run):
//   npx mocha --timeout 180000 --spec test/lockd/api/flood.check.ts
import { floodScenario } from './flood-scenario.js';

const MiB = 1024 * 1024;

floodScenario('flood at full size: KeepAlive streams, connections and slow readers cost no election (real processes)', {
  keepaliveStreams: 10_000,
  connections: 1_000,
  observers: 400,
  sessions: 8,
  readsPerSession: 1024,
  churn: 600,
  outboundBytes: 32 * MiB,
  unloadedMs: 4000,
});
