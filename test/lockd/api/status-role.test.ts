// Cluster.Status must report the role the node acts on: a node that answers "leader" is one that
// serves calls itself (routing reads DriverLoop.isLeader()), and one that does not answer "leader"
// does not. The driver changes its role only once the batch that changed it is on disk, so Status
// must not show the Raft core's role, which changes as soon as the batch is taken. Checked on the
// real driver loop, with its disk writes held until the test completes them.
import { expect } from 'chai';
import { statusReply } from '../../../src/lockd/api/status-reply.js';
import { MemoryStorage } from '../../../src/raft/memory-storage.js';
import { message } from '../../../src/raft/types.js';
import { harnessLoop } from '../node/loop-harness.js';

/** n1 among `voters`; its writes wait in `held` until completed; the test runs the scheduler by hand. */
function node(voters: string[]) {
  const { loop, held, run } = harnessLoop({ id: 'n1', voters, memory: new MemoryStorage(voters), hold: true });
  const completeAll = () => {
    while (held.length > 0) {
      held.shift()!();
      run();
    }
  };
  const peers = {
    members: () => voters,
    clientAddress: (id: string) => `${id}:1`,
    build: () => undefined,
    clusterVersion: () => ({ version: '0.1.0', complete: false }),
  };
  const status = () => {
    const r = statusReply(loop, peers);
    return { role: r.role, leaderId: r.leaderId, term: Number(r.term) };
  };
  return { loop, held, run, completeAll, status };
}

describe('Cluster.Status reports the role the node acts on', () => {
  it('a leader that saw a higher term still answers "leader" of its old term until the new term is on disk', () => {
    const n1 = node(['n1', 'n2']);
    n1.loop.campaign();
    n1.run();
    n1.completeAll();
    n1.loop.step(message({ type: 'VoteResp', from: 'n2', to: 'n1', term: 1 }));
    n1.run();
    n1.completeAll();
    expect(n1.loop.isLeader()).to.equal(true);
    expect(n1.status()).to.deep.equal({ role: 'leader', leaderId: 'n1', term: 1 });

    // n2 leads term 2 now; its heartbeat reaches n1, whose write of term 2 is slow.
    n1.loop.step(message({ type: 'Heartbeat', from: 'n2', to: 'n1', term: 2 }));
    n1.run();
    expect(n1.held, 'the write of term 2, held').to.have.length(1);
    expect(n1.loop.isLeader(), 'routing still serves here').to.equal(true);
    expect(n1.status(), 'Status while the write is held').to.deep.equal({ role: 'leader', leaderId: 'n1', term: 1 });

    n1.completeAll();
    expect(n1.loop.isLeader()).to.equal(false);
    expect(n1.status(), 'Status once term 2 is on disk').to.deep.equal({ role: 'follower', leaderId: 'n2', term: 2 });
  });

  it('a one-voter node that won a term in one batch answers "leader" only once that term is on disk', () => {
    const n1 = node(['n1']);
    n1.loop.campaign();
    n1.run();
    expect(n1.held, 'one write: term 1, the vote, the no-op').to.have.length(1);
    expect(n1.loop.isLeader(), 'routing does not serve here yet').to.equal(false);
    expect(n1.status(), 'Status while the write is held').to.deep.equal({ role: 'follower', leaderId: '', term: 0 });

    n1.completeAll();
    expect(n1.loop.isLeader()).to.equal(true);
    expect(n1.status(), 'Status once term 1 is on disk').to.deep.equal({ role: 'leader', leaderId: 'n1', term: 1 });
  });
});
