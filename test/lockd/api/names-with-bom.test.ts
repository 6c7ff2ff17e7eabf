// On a real 3-node cluster through the public gRPC API: a name or key that begins with U+FEFF is a
// name of its own (the API accepts it). The first binary command codec's UTF-8 decoder stripped it
// as a byte-order mark, so every replica applied the command to another name: a fenced write to
// "\uFEFFbom/k" overwrote "bom/k" and raised its token. This test failed on that version.
import { expect } from 'chai';
import { ApiFixture, useApiFixture } from './api-fixture.js';

const TTL_MS = 10_000;
const BOM = '\uFEFF';

describe('lock API: names beginning with U+FEFF survive the replicated log', function () {
  this.timeout(60_000);
  let f: ApiFixture;
  useApiFixture((x) => (f = x));

  it('a lock "\\uFEFFbom/l" is not the lock "bom/l", and a fenced write to "\\uFEFFbom/k" leaves "bom/k" alone', async () => {
    const a = await f.keptLease(TTL_MS);
    const b = await f.keptLease(TTL_MS);
    const held = await f.leader.acquire('bom/l', a.leaseId);
    expect(held.acquired).to.equal(true);
    const other = await f.leader.acquire(`${BOM}bom/l`, b.leaseId);
    expect(other.acquired, `"\\uFEFFbom/l" answered as held by lease ${other.holderLeaseId}`).to.equal(true);

    await f.leader.fenceWrite('bom/k', 'mine', held.fencingToken);
    await f.leader.fenceWrite(`${BOM}bom/k`, 'theirs', other.fencingToken);
    const k = await f.leader.fenceRead('bom/k');
    expect(k.value.toString()).to.equal('mine');
    expect(Number(k.fencingToken)).to.equal(Number(held.fencingToken));
  });
});
