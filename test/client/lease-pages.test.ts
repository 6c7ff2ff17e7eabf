// Lease.List paging as the client follows it, against scripted answers (no cluster): the proto
// promises a lease live throughout is listed once, and a failover between pages may land on a leader
// of the release before paging, which ignores page_token and answers every lease with no next token.
import { expect } from 'chai';
import { LockClient } from '../../src/client/index.js';
import { encodePageToken } from '../../src/lockd/api/list-page.js';

/** A client whose calls are answered, in turn, by `pages` (each a LeaseListResponse). */
function scripted(pages: Array<{ ids: number[]; next: number }>): { client: LockClient; asked: string[] } {
  const client = new LockClient({ endpoints: ['127.0.0.1:1'] });
  const asked: string[] = [];
  const real = (client as unknown as { router: { close(): void } }).router;
  let call = 0;
  const router = {
    close: () => real.close(),
    unary: async (_what: string, send: (ep: unknown, o: unknown, cb: unknown) => void) => {
      send({ lease: { List: (req: { pageToken: string }) => asked.push(req.pageToken) } }, {}, () => {});
      const p = pages[call++];
      return {
        leases: p.ids.map((leaseId) => ({ leaseId, grantedTtlMs: 1000, remainingMs: 900, owner: 'anonymous' })),
        nextPageToken: p.next ? encodePageToken(p.next) : '',
      };
    },
  };
  Object.defineProperty(client, 'router', { value: router });
  return { client, asked };
}

describe('LockClient.listLeases follows pages', () => {
  it('passes each next_page_token back and stops at the last page', async () => {
    const { client, asked } = scripted([
      { ids: [1, 2], next: 2 },
      { ids: [5], next: 5 },
      { ids: [], next: 0 },
    ]);
    try {
      expect((await client.listLeases({ pageSize: 2 })).map((l) => l.leaseId)).to.deep.equal([1, 2, 5]);
      expect(asked).to.deep.equal(['', encodePageToken(2), encodePageToken(5)]);
    } finally {
      client.close();
    }
  });

  it('a failover to a leader without paging (every lease, no token) lists no lease twice', async () => {
    const { client } = scripted([
      { ids: [1, 2], next: 2 },
      { ids: [1, 2, 3, 4], next: 0 },
    ]);
    try {
      expect((await client.listLeases({ pageSize: 2 })).map((l) => l.leaseId)).to.deep.equal([1, 2, 3, 4]);
    } finally {
      client.close();
    }
  });
});
