// What a workload needs of a running cluster, whichever system it is.
import type { Proc } from '../lib/procs.js';

export interface ClusterNode {
  readonly id: string;
  /** host:port clients dial. */
  readonly clientAddress: string;
  /** Its Prometheus endpoint (lockd: only with LockdClusterOptions.metrics). */
  readonly metricsUrl?: string;
  proc: Proc | undefined;
}

export interface BenchCluster {
  readonly system: 'lockd' | 'etcd';
  readonly nodes: readonly ClusterNode[];
  /** Wait until every running node agrees on one leader; returns it. */
  waitForLeader(timeoutMs?: number): Promise<ClusterNode>;
  /** SIGKILL one node (and wait for the exit). */
  kill(id: string): Promise<void>;
  /** Start a stopped node again on its data dir. */
  restart(id: string): void;
  /** Stop every process (SIGTERM so profiles are written, then SIGKILL), delete temp data. */
  stop(): Promise<void>;
}

export interface TimeoutFlags {
  /** Heartbeat interval and election timeout in ms (equal settings across systems). */
  readonly heartbeatMs: number;
  readonly electionMs: number;
}
