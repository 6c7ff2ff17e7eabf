// Review of the peer frame codec (branch pcodec): a test here names a defect found by a hostile
// review and fails on the code under review.
import { expect } from 'chai';
import { message } from '../../../src/raft/types.js';
import { decodeMessage, encodeMessage } from '../../../src/lockd/transport/frame-codec.js';

describe('peer frame codec review (pcodec)', () => {
  it('round-trips a ReadIndex context that begins with U+FEFF (the UTF-8 decoder must not strip it as a BOM)', () => {
    // raft.readIndex takes any string; the follower echoes it in HeartbeatResp and the leader matches
    // it exactly: a stripped context is never acknowledged and the read waits out its deadline.
    for (const context of ['\uFEFF', '\uFEFFn1/7', '\uFEFF\uFEFFé']) {
      const m = message({ type: 'Heartbeat', from: 'n1', to: 'n2', term: 4, commit: 3, context });
      expect(decodeMessage(encodeMessage(m)).context, JSON.stringify(context)).to.equal(context);
    }
  });
});
