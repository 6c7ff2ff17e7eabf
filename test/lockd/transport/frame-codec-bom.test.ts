// The peer frame codec keeps a leading U+FEFF in its strings (a hostile review found the first version
// stripped it as a byte-order mark; this test failed on that version).
import { expect } from 'chai';
import { message } from '../../../src/raft/types.js';
import { decodeMessage, encodeMessage } from '../../../src/lockd/transport/frame-codec.js';

describe('peer frame codec: strings beginning with U+FEFF', () => {
  it('round-trips a ReadIndex context that begins with U+FEFF (the UTF-8 decoder must not strip it as a BOM)', () => {
    // raft.readIndex takes any string; the follower echoes it in HeartbeatResp and the leader matches
    // it exactly: a stripped context is never acknowledged and the read waits out its deadline.
    for (const context of ['\uFEFF', '\uFEFFn1/7', '\uFEFF\uFEFFé']) {
      const m = message({ type: 'Heartbeat', from: 'n1', to: 'n2', term: 4, commit: 3, context });
      expect(decodeMessage(encodeMessage(m)).context, JSON.stringify(context)).to.equal(context);
    }
  });
});
