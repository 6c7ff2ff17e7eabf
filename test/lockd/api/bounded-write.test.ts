// writeBounded, the backup stream's bound on a client that stops reading (api/bounded-write.ts):
// a full stream waits for 'drain' at most stallMs, then says 'stalled' so the server ends the call
// and frees its backup slot; a cancel or a shutdown says 'gone'. A fake stream, no server.
import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import { writeBounded } from '../../../src/lockd/api/bounded-write.js';

class FakeCall extends EventEmitter {
  cancelled = false;
  room = true;
  written: unknown[] = [];
  write(m: unknown): boolean {
    this.written.push(m);
    return this.room;
  }
}

describe('writeBounded (backup stream progress bound)', () => {
  it('sends while there is room; waits for drain; stalls when the client reads nothing; gone on cancel or shutdown; no listeners left', async () => {
    const call = new FakeCall();
    expect(await writeBounded(call, 1, 1000, () => false)).to.equal('sent');
    call.room = false;
    const drained = writeBounded(call, 2, 1000, () => false);
    setTimeout(() => call.emit('drain'), 10);
    expect(await drained).to.equal('sent');
    const t0 = Date.now();
    expect(await writeBounded(call, 3, 50, () => false)).to.equal('stalled');
    expect(Date.now() - t0).to.be.at.least(45);
    const cancelled = writeBounded(call, 4, 1000, () => false);
    setTimeout(() => {
      call.cancelled = true;
      call.emit('cancelled');
    }, 10);
    expect(await cancelled).to.equal('gone');
    expect(await writeBounded(call, 5, 1000, () => false)).to.equal('gone'); // cancelled: nothing written
    expect(call.written).to.deep.equal([1, 2, 3, 4]);
    const c2 = new FakeCall();
    expect(await writeBounded(c2, 1, 1000, () => true)).to.equal('gone');
    expect(c2.written).to.deep.equal([]);
    expect(call.listenerCount('drain') + call.listenerCount('cancelled')).to.equal(0);
    expect(() => writeBounded(call, 6, 0, () => false)).to.throw(RangeError);
  });
});
