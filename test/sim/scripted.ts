// A hand-driven cluster built from the simulator's parts (SimNode with the real driver loop, Disk, Checker): no
// clock, no random network — a test says which messages arrive, who campaigns, who crashes. For replaying a
// known scenario (e.g. Raft fig. 8) step by step under the same safety checks as the random runs.

import type { Entry, Message, NodeId, PlantedBug, Ready, Snapshot } from '../../src/raft/types.js';
import type { AppState } from './app-state.js';
import { textData } from './app-state.js';
import { Checker } from './checkers.js';
import { Prng } from './prng.js';
import { SimNode, type DriverHooks, type NodeSettings } from './sim-node.js';

export type MessageFilter = (m: Message) => boolean;

export class ScriptedCluster implements DriverHooks {
  readonly nodes: SimNode[];
  readonly checker: Checker;
  /** Messages sent and not yet delivered or dropped. */
  outbox: Message[] = [];

  constructor(size: number, overrides: Partial<NodeSettings> = {}, plantedBug?: PlantedBug) {
    const ids = Array.from({ length: size }, (_, i) => `n${i + 1}`);
    const settings: NodeSettings = {
      electionTicks: 10,
      heartbeatTicks: 1,
      preVote: false,
      checkQuorum: false,
      snapshotEvery: 1000,
      snapshotOnReject: false,
      compactKeep: 0,
      tickSkip: 0,
      tickDouble: 0,
      diskDelayMax: 0,
      plantedBug,
      ...overrides,
    };
    const prng = new Prng(1);
    // No clock: every write is due at once, and flush() hands it to the disk.
    this.nodes = ids.map((id) => new SimNode(id, ids, settings, prng.fork(id), this, () => 0));
    this.checker = new Checker(this.nodes);
    for (const n of this.nodes) n.start();
  }

  node(id: NodeId): SimNode {
    const n = this.nodes.find((x) => x.id === id);
    if (!n) throw new Error(`scripted: no node ${id}`);
    return n;
  }

  /** Run every running node's driver loop (batches and their disk writes) until none has anything left to do. */
  flush(): void {
    for (let round = 0; round < 100; round++) {
      let any = false;
      for (const n of this.nodes) {
        if (!n.up || !n.busy()) continue;
        any = true;
        n.runTurn();
        n.completeWrites();
      }
      if (!any) return;
    }
    throw new Error('scripted: nodes still busy after 100 rounds');
  }

  /** Deliver the outbox messages `which` accepts (to running nodes), flushing after each round, for `rounds`
   *  rounds or until none is left. */
  deliver(which: MessageFilter = () => true, rounds = 100): void {
    for (let round = 0; round < rounds; round++) {
      const now = this.outbox.filter(which);
      if (now.length === 0) return;
      this.outbox = this.outbox.filter((m) => !which(m));
      for (const m of now) {
        const to = this.node(m.to);
        if (to.up) to.loop!.step(m);
      }
      this.flush();
    }
    if (rounds === 100) throw new Error('scripted: messages still flowing after 100 rounds');
  }

  /** Lose the outbox messages `which` accepts. */
  drop(which: MessageFilter = () => true): void {
    this.outbox = this.outbox.filter((m) => !which(m));
  }

  tick(id: NodeId, times = 1): void {
    for (let k = 0; k < times; k++) this.node(id).mustRun().tick();
    this.flush();
  }

  campaign(id: NodeId): void {
    this.node(id).mustRun().campaign();
    this.flush();
  }

  propose(id: NodeId, data: string): { index: number; term: number } {
    let at: { index: number; term: number } | undefined;
    this.node(id)
      .mustRun()
      .propose(textData(data), { accepted: (a) => (at = a), resolve: () => {}, reject: () => {} });
    this.flush();
    if (!at) throw new Error(`scripted: ${id} refused the proposal`);
    return at;
  }

  crash(id: NodeId): void {
    this.node(id).crash('between-steps');
    this.drop((m) => m.from === id || m.to === id);
  }

  restart(id: NodeId): void {
    this.node(id).start();
    this.flush();
  }

  // ---- DriverHooks: every step goes through the same checks as a random run ----

  readyTaken(node: SimNode, rd: Ready): void {
    this.checker.readyTaken(node, rd);
  }
  crashPoint(): undefined {
    return undefined;
  }
  persisted(node: SimNode, rd: Ready): void {
    this.checker.persisted(node, rd);
  }
  send(node: SimNode, m: Message): void {
    this.checker.send(node, m);
    this.outbox.push(m);
  }
  snapshotRestored(node: SimNode, index: number, before: AppState): void {
    this.checker.snapshotRestored(node, index, before);
  }
  applied(node: SimNode, e: Entry, data: string, before: AppState): void {
    this.checker.applied(node, e, data, before);
  }
  appSnapshot(_node: SimNode, _snap: Snapshot): void {}
  crashed(): void {}
}

/** Messages of a type, optionally between given nodes. */
export function msgs(type: Message['type'], from?: NodeId, to?: NodeId): MessageFilter {
  return (m) => m.type === type && (from === undefined || m.from === from) && (to === undefined || m.to === to);
}
