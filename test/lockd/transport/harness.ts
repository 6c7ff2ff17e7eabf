// Test helpers: transports on free 127.0.0.1 ports, captured logs, bounded polling.
import * as grpc from '@grpc/grpc-js';
import { pino, type Logger } from 'pino';
import type { Message, NodeId } from '../../../src/raft/types.js';
import { PEER_SERVER_OPTIONS, PeerTransport, type PeerTransportOptions } from '../../../src/lockd/transport/index.js';

export interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

export function captureLogger(lines: LogLine[]): Logger {
  return pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
}

export async function startServer(port = 0): Promise<{ server: grpc.Server; port: number }> {
  const server = new grpc.Server(PEER_SERVER_OPTIONS);
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { server, port: bound };
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface TestNode {
  id: NodeId;
  server: grpc.Server;
  port: number;
  transport: PeerTransport;
  received: Message[];
  unreachable: NodeId[];
  snapshotStatus: [NodeId, boolean][];
  logs: LogLine[];
}

/** Nodes with servers bound first (to learn their ports), then transports wired to each other. */
export async function startCluster(ids: NodeId[], over: Partial<PeerTransportOptions> = {}, clusterId = 'c1'): Promise<TestNode[]> {
  const servers = await Promise.all(ids.map(() => startServer()));
  const addresses = new Map(ids.map((id, i) => [id, `127.0.0.1:${servers[i].port}`]));
  return ids.map((id, i) => {
    const peers = new Map([...addresses].filter(([p]) => p !== id));
    return attach(id, servers[i].server, servers[i].port, peers, over, clusterId);
  });
}

export function attach(
  id: NodeId,
  server: grpc.Server,
  port: number,
  peers: Map<NodeId, string>,
  over: Partial<PeerTransportOptions> = {},
  clusterId = 'c1',
): TestNode {
  const node: Omit<TestNode, 'transport'> = { id, server, port, received: [], unreachable: [], snapshotStatus: [], logs: [] };
  const transport = new PeerTransport({
    clusterId,
    selfId: id,
    peers,
    logger: captureLogger(node.logs),
    onMessage: (m) => node.received.push(m),
    onUnreachable: (to) => node.unreachable.push(to),
    onSnapshotStatus: (to, ok) => node.snapshotStatus.push([to, ok]),
    ...over,
  });
  transport.addToServer(server);
  return { ...node, transport };
}

export function stopNode(n: TestNode): void {
  n.transport.close();
  n.server.forceShutdown();
}
