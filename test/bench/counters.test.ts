// bench/lib/prom-text.ts and bench/lib/counters.ts: /metrics text read back, counter differences
// over a window, and the per-cycle figures summed over the nodes or read on the leader.
import { expect } from 'chai';
import { diffSeries, etcdFigures, lockdFigures, type NodeDelta } from '../../bench/lib/counters.js';
import { parsePromText, seriesKey, sumSeries } from '../../bench/lib/prom-text.js';

const TEXT = `# HELP lockd_raft_messages_sent_total Raft messages this node sent, by type.
# TYPE lockd_raft_messages_sent_total counter
lockd_raft_messages_sent_total{type="App",node="n1"} 120
lockd_raft_messages_sent_total{node="n1",type="AppResp"} 3
lockd_disk_sync_duration_seconds_bucket{le="0.001",node="n1"} 4
lockd_disk_sync_duration_seconds_count{node="n1"} 9
process_cpu_seconds_total 1.5e+1
lockd_weird{node="n1",path="a\\"b"} 2
not a metric line
`;

describe('bench: counters', () => {
  it('parses the exposition text: the node label dropped, labels sorted, comments and junk skipped', () => {
    const s = parsePromText(TEXT);
    expect(s.get('lockd_raft_messages_sent_total{type="App"}')).to.equal(120);
    expect(s.get('lockd_raft_messages_sent_total{type="AppResp"}')).to.equal(3);
    expect(s.get('lockd_disk_sync_duration_seconds_bucket{le="0.001"}')).to.equal(4);
    expect(s.get('process_cpu_seconds_total')).to.equal(15);
    expect(s.get('lockd_weird{path="a\\"b"}')).to.equal(2);
    expect(s.size).to.equal(6);
    expect(seriesKey('m', { b: '2', node: 'n3', a: '1' })).to.equal('m{a="1",b="2"}');
  });

  it('sums a metric over its series, or over those with given labels (App is not AppResp)', () => {
    const s = parsePromText(TEXT);
    expect(sumSeries(s, 'lockd_raft_messages_sent_total')).to.equal(123);
    expect(sumSeries(s, 'lockd_raft_messages_sent_total', { type: 'App' })).to.equal(120);
    expect(sumSeries(s, 'lockd_raft_messages')).to.equal(undefined); // a prefix is not a metric
    expect(sumSeries(s, 'absent')).to.equal(undefined);
  });

  it('diffs after − before; a series new since before counts from 0; one that went down (a restart) is NaN', () => {
    const d = diffSeries(
      new Map([
        ['a', 5],
        ['b', 10],
        ['gone', 1],
      ]),
      new Map([
        ['a', 8],
        ['b', 4],
        ['new', 2],
      ]),
    );
    expect(d.get('a')).to.equal(3);
    expect(Number.isNaN(d.get('b'))).to.equal(true);
    expect(d.get('new')).to.equal(2);
    expect(d.has('gone')).to.equal(false);
  });

  it('lockd figures per cycle: messages summed over the nodes where sent, disk writes over all nodes, Ready and App figures on the leader', () => {
    const node = (name: string, leader: boolean, m: Record<string, number>): NodeDelta => ({ name, leader, delta: new Map(Object.entries(m)) });
    const nodes = [
      node('n1', true, {
        'lockd_raft_messages_sent_total{type="App"}': 40,
        'lockd_raft_messages_sent_total{type="Heartbeat"}': 2,
        lockd_raft_app_empty_sent_total: 10,
        lockd_raft_app_entries_sent_total: 200,
        lockd_raft_ready_batches_total: 30,
        lockd_raft_ready_batches_with_entries_total: 20,
        lockd_raft_ready_entries_total: 100,
        lockd_disk_synced_writes_total: 20,
        lockd_disk_synced_entries_total: 100,
        lockd_disk_unsynced_writes_total: 10,
      }),
      ...['n2', 'n3'].map((n) =>
        node(n, false, {
          'lockd_raft_messages_sent_total{type="AppResp"}': 20,
          lockd_raft_ready_batches_total: 50,
          lockd_raft_ready_batches_with_entries_total: 20,
          lockd_raft_ready_entries_total: 100,
          lockd_disk_synced_writes_total: 20,
          lockd_disk_synced_entries_total: 100,
          lockd_disk_unsynced_writes_total: 5,
        }),
      ),
    ];
    const f = lockdFigures(nodes, 50);
    expect(f).to.include({
      msgs_sent: 82 / 50,
      msgs_App: 40 / 50,
      msgs_AppResp: 40 / 50,
      msgs_Heartbeat: 2 / 50,
      msgs_HeartbeatResp: undefined,
      msgs_App_empty: 10 / 50,
    });
    expect(f).to.include({ disk_synced: 60 / 50, disk_unsynced: 20 / 50, entries_per_persist: 300 / 60 });
    expect(f).to.include({ leader_readies: 30 / 50, leader_entries_per_ready: 5, leader_entries_per_app: 5 });
  });

  it('a baseline node without the replication counters still gives its synced writes (the disk-sync histogram count), and nothing it cannot', () => {
    const f = lockdFigures([{ name: 'n1', leader: true, delta: new Map([['lockd_disk_sync_duration_seconds_count', 30]]) }], 10);
    expect(f.disk_synced).to.equal(3);
    expect(f.msgs_sent).to.equal(undefined);
    expect(f.entries_per_persist).to.equal(undefined);
    expect(lockdFigures([{ name: 'n1', leader: true, delta: new Map([['lockd_disk_sync_duration_seconds_count', 30]]) }], 0).disk_synced).to.equal(undefined);
  });

  it('etcd figures per cycle: WAL fsyncs and backend commits summed over the nodes', () => {
    const d = (fsyncs: number) =>
      new Map([
        ['etcd_disk_wal_fsync_duration_seconds_count', fsyncs],
        ['etcd_disk_backend_commit_duration_seconds_count', 1],
        ['etcd_network_peer_sent_bytes_total{To="x"}', 100],
      ]);
    const f = etcdFigures(
      [
        { name: 'e1', leader: true, delta: d(60) },
        { name: 'e2', leader: false, delta: d(40) },
      ],
      100,
    );
    expect(f).to.deep.equal({ disk_synced: 1, backend_commits: 0.02, peer_bytes_sent: 2 });
  });
});
