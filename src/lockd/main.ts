#!/usr/bin/env node
// The lockd server process: `node dist/src/lockd/main.js --id n1 --listen ... --peers ... --data-dir ... --cluster-id-file ...`
import { pino, type Logger } from 'pino';
import { ConfigError, parseConfig, type NodeConfig } from './node/config.js';
import type { LockdNode } from './node/lockd-node.js';
import { versionText } from './node/versions.js';
import { TlsMaterialError } from './security/tls-material.js';
import { DataDirError } from './storage/index.js';
import { startComposedNode } from './composition.js';

/** Exit status of a node that stopped because it was removed from the cluster (not a crash: do not restart it). */
const EXIT_REMOVED = 4;

async function main(): Promise<void> {
  // Everything the node writes is its own: the data dir holds the cluster id, fence values,
  // election values, principals and access rules. Files 0600 and directories 0700, whatever umask
  // the process was started with (the data dir itself is checked in storage/private-dir.ts).
  process.umask(0o077);
  // `lockd --version`: this build's version and the formats it reads and writes (node/versions.ts).
  if (process.argv[2] === '--version' || process.argv[2] === 'version') {
    process.stdout.write(versionText('lockd'));
    return;
  }
  // `lockd restore ...`: make a new cluster's data dir from a backup, then exit (tools/restore/).
  if (process.argv[2] === 'restore') {
    const { runRestore } = await import('./tools/restore/run-restore.js');
    process.exit(await runRestore(process.argv.slice(3), { stdout: process.stdout, stderr: process.stderr }));
  }
  const config = configOrExit();
  // The cluster id is what a stranger needs to open a peer stream (the node does not echo it), and
  // logs travel further than the node: they carry nothing derived from it. A short hash on every
  // line was an offline oracle (any id a person picks, or a timestamp-made one, falls to it in
  // seconds); telling clusters' logs apart is the log pipeline's job (where they come from).
  const logger = pino({ level: config.logLevel, base: { node: config.id } });
  const node = await startOrExit(config, logger);
  handleSignals(node, logger);
}

/** The node's configuration, or exit 2 with the reason (and the usage). */
function configOrExit(): NodeConfig {
  try {
    return parseConfig(process.argv.slice(2), process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`lockd: ${e.message}\n`);
    process.exit(2);
  }
}

/** The started node, or exit: 2 for unusable TLS files, 3 for a data dir it refuses, 1 otherwise. */
async function startOrExit(config: NodeConfig, logger: Logger): Promise<LockdNode> {
  try {
    const composed = await startComposedNode(config, logger);
    await composed.observability.listen();
    return composed.node;
  } catch (e) {
    if (e instanceof TlsMaterialError) {
      logger.fatal({ event: 'refused tls files', err: e }, e.message);
      process.stderr.write(`lockd: refusing to start: ${e.message}\n`);
      process.exit(2);
    }
    if (e instanceof DataDirError) {
      logger.fatal({ event: 'refused data dir', dir: config.dataDir, err: e }, e.message);
      process.stderr.write(`lockd: refusing to start: ${e.message}\n`);
      process.exit(3);
    }
    logger.fatal({ event: 'start failed', err: e }, (e as Error).message);
    process.stderr.write(`lockd: failed to start: ${(e as Error).message}\n`);
    process.exit(1);
  }
}

/** SIGTERM/SIGINT hand off then stop, removal stops, SIGUSR2 runs test faults, SIGHUP reloads TLS. */
function handleSignals(node: LockdNode, logger: Logger): void {
  // A leader hands leadership over first (bounded, then stops anyway): the cluster gets a new
  // leader in a few heartbeats instead of an election timeout (docs/operating.md §3). A
  // second signal while handing off stops at once.
  let stopping = false;
  let stopped: Promise<void> | undefined;
  const stopNow = (code = 0) => (stopped ??= node.stop().then(() => process.exit(code)));
  const shutdown = (signal: string) => {
    if (stopping) {
      logger.info({ event: 'shutdown', signal }, `${signal} again: stopping without waiting for the hand-off`);
      void stopNow();
      return;
    }
    stopping = true;
    logger.info({ event: 'shutdown', signal, leader: node.ctx.driver.isLeader() }, `shutting down on ${signal}`);
    void node.handOff().then(
      () => stopNow(),
      () => stopNow(),
    );
  };
  node.onRemoved((e) => {
    process.stderr.write(`lockd: ${e.message}\n`);
    // Not a member any more: nothing to hand over (a leader never removes itself), just stop.
    stopping = true;
    logger.info({ event: 'shutdown', signal: 'removal from the cluster' }, 'shutting down: removed from the cluster');
    void stopNow(EXIT_REMOVED);
  });
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Test-only faults (node/test-faults.ts): no handler at all without --unsafe-test-faults, so a
  // stray SIGUSR2 ends a normal node (its default action) rather than injecting anything.
  const faults = node.ctx.testFaults;
  if (faults) process.on('SIGUSR2', () => faults.runCommandFile());
  // Rotated certificates: re-read the TLS files; new connections use them, open ones keep theirs.
  process.on('SIGHUP', () => {
    try {
      node.reloadTls();
    } catch (e) {
      if (!(e instanceof TlsMaterialError)) throw e;
      logger.error({ event: 'tls reload refused', err: e }, `SIGHUP: kept the current certificates: ${e.message}`);
    }
  });
}

void main();
