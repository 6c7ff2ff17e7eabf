// One lockd node in this process (a one-voter cluster, leader of itself within ~100 ms): the
// composition main.ts runs (src/lockd/composition.ts), on real sockets, with its admission
// control reachable for the test. Cheaper than a process cluster where a test is about one node's
// client port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseConfig } from '../../src/lockd/node/config.js';
import { startComposedNode, type ComposedNode } from '../../src/lockd/composition.js';
import { LockApi } from './lock-api-client.js';
import { freePort, waitFor } from './process-cluster.js';

export interface InProcessNode extends ComposedNode {
  readonly address: string;
  readonly httpPort: number;
  stop(): Promise<void>;
}

/** Start a one-node cluster with `flags` added; resolves once it answers a Grant as leader. */
export async function startInProcessNode(flags: readonly string[] = []): Promise<InProcessNode> {
  const dir = mkdtempSync(join(tmpdir(), 'lockd-inproc-'));
  const [client, peer, http] = [await freePort(), await freePort(), await freePort()];
  const config = parseConfig(
    [
      '--id',
      'n1',
      '--listen',
      `127.0.0.1:${client}`,
      '--peer-listen',
      `127.0.0.1:${peer}`,
      '--peers',
      `n1=127.0.0.1:${peer}`,
      '--data-dir',
      dir,
      '--cluster-id',
      'inproc',
      '--tick-ms',
      '10',
      '--election-ticks',
      '10',
      '--http-listen',
      `127.0.0.1:${http}`,
      ...flags,
    ],
    {},
  );
  const composed = await startComposedNode(config, pino({ level: process.env.LOCKD_TEST_LOG ?? 'silent' }));
  await composed.observability.listen();
  const address = `127.0.0.1:${client}`;
  const api = new LockApi(address);
  try {
    await waitFor(
      'the node to lead',
      () =>
        api.grant(1000).then(
          () => true,
          () => undefined,
        ),
      15_000,
    );
  } finally {
    api.close();
  }
  return {
    ...composed,
    address,
    httpPort: http,
    stop: async () => {
      await composed.node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
