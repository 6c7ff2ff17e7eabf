// Every demo, in the order `lockctl demo` lists them.
import type { Scenario } from '../framework.js';
import { clockJump } from './clock-jump.js';
import { gcPause } from './gc-pause.js';
import { holderCrash } from './holder-crash.js';
import { leaderFailover } from './leader-failover.js';
import { partitionedLeader } from './partitioned-leader.js';
import { slowRelease } from './slow-release.js';
import { wholeClusterCrash } from './whole-cluster-crash.js';

export const SCENARIOS: readonly Scenario[] = [gcPause, holderCrash, slowRelease, leaderFailover, partitionedLeader, wholeClusterCrash, clockJump];
