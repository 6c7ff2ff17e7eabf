// LeaderTransfer against a hand-driven port: a target that campaigns and loses (its vote requests
// lost while its own peer connections came up: seen in a CI run of the five-host test) while this
// node wins the next term is asked again, once per term won, within the bound.
import { expect } from 'chai';
import { LeaderTransfer, type TransferPort } from '../../../src/lockd/node/leader-transfer.js';
import type { NodeId, Role, Status } from '../../../src/raft/types.js';

function fakePort() {
  let role: Role = 'leader';
  let term = 1;
  const asks: NodeId[] = [];
  let listener: (role: Role, leader: NodeId, term: number) => void = () => {};
  const port: TransferPort = {
    status: () =>
      ({ id: 'n1', role, term, leader: role === 'leader' ? 'n1' : '', voters: ['n1', 'n2', 'n3'], learners: [], progress: new Map() }) as unknown as Status,
    transferLeader: (to) => void asks.push(to),
    onRoleChange: (l) => (listener = l),
  };
  const become = (r: Role, leader: NodeId, t: number) => {
    role = r;
    term = t;
    listener(r, leader, t);
  };
  return { port, asks, become };
}

describe('LeaderTransfer: asks again when the target lost its election and this node won the next term', () => {
  it('re-asks once per term won, and answers the new leader once one is known', async () => {
    const { port, asks, become } = fakePort();
    const outcome = new LeaderTransfer(port).transfer('n2', 5_000);
    expect(asks).to.deep.equal(['n2']);
    become('follower', '', 2); // n2's campaign (term 2) deposed us, and it lost
    become('leader', 'n1', 3); // we won term 3
    expect(asks).to.deep.equal(['n2', 'n2']);
    become('leader', 'n1', 3); // the same term again asks nothing more
    expect(asks).to.deep.equal(['n2', 'n2']);
    become('follower', 'n2', 4);
    expect(await outcome).to.deep.include({ kind: 'done', leader: 'n2', term: 4, previous: 'n1', transferred: true });
  });

  it('times out, still leader, when the target never takes over', async () => {
    const { port, asks } = fakePort();
    const o = await new LeaderTransfer(port).transfer('n3', 30);
    expect(o).to.deep.include({ kind: 'timed-out', target: 'n3', stillLeader: true });
    expect(asks).to.deep.equal(['n3']);
  });
});
