// Lock.Observe as the TS client yields it, against a scripted server: a server RESYNC (its node
// caught up by snapshot) comes with the lock's whole state, and an event type this client does not
// know is passed through as it came, not an error.
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import { LockClient, type LockEvent as ClientEvent } from '../../src/client/index.js';
import type { LockEvent as WireEvent } from '../../src/proto/gen/lockd/v1/LockEvent.js';
import { startFake, type FakeServer } from './fake-server.js';

describe('client: Lock.Observe RESYNC from the server', () => {
  let fake: FakeServer | undefined;
  afterEach(async () => {
    await fake?.stop();
  });

  it('yields the RESYNC with its state, and an unknown type unchanged, in order', async () => {
    const sent: WireEvent[] = [
      { name: 'n', type: 'ACQUIRED', fencingToken: 4096, leaseId: 1, index: 4 },
      { name: 'n', type: 'SOMETHING_NEW', fencingToken: 0, leaseId: 0, index: 5 },
      {
        name: 'n',
        type: 'RESYNC',
        fencingToken: 9216,
        leaseId: 2,
        index: 9,
        state: {
          held: true,
          fencingToken: 9216,
          holderLeaseId: 2,
          waitingLeaseIds: [3],
          permits: 1,
          holders: [{ leaseId: 2, fencingToken: 9216, shared: false, lockDelayMs: 0 }],
          waitingShared: [false],
          lockDelayUntilMs: 0,
          lockDelayRemainingMs: 0,
        },
      },
    ];
    fake = await startFake({
      lock: {
        Observe: (call: grpc.ServerWritableStream<unknown, WireEvent>) => {
          call.sendMetadata(new grpc.Metadata());
          for (const ev of sent) call.write(ev);
        },
      },
    });
    const client = new LockClient({ endpoints: [fake.address], watchLocks: false });
    const stop = new AbortController();
    const got: ClientEvent[] = [];
    try {
      for await (const ev of client.observe('n', { signal: stop.signal })) {
        got.push(ev);
        if (got.length === 3) break;
      }
    } finally {
      client.close();
    }
    expect(got.map((e) => e.type)).to.deep.equal(['ACQUIRED', 'SOMETHING_NEW', 'RESYNC']);
    expect(got[0].state).to.equal(undefined);
    expect(got[2]).to.deep.include({ fencingToken: 9216, leaseId: 2, index: 9 });
    expect(got[2].state).to.deep.include({ held: true, holderLeaseId: 2, waitingLeaseIds: [3] });
    expect(got[2].state!.holders).to.deep.equal([{ leaseId: 2, fencingToken: 9216, shared: false, lockDelayMs: 0 }]);
  });
});
