// bench/report.ts: the per-cycle keys of a metered run, the Session variants, and the Markdown
// table (median [min–max] cells, ratio columns of medians, unmeasured rows left out).
import { expect } from 'chai';
import { headline, markdownTable, perCycleKeys, ratiosOf, targets, type SystemResults } from '../../bench/report.js';
import type { PerCycle } from '../../bench/lib/meter.js';
import { medians, summarizeReps } from '../../bench/lib/reps.js';

const perCycle = (servers: number, msgs?: number): PerCycle => ({
  cycles: 1000,
  window_ms: 5000,
  leader: 'n2',
  followers: ['n1', 'n3'],
  cpu_leader_ms: servers / 2,
  cpu_followers_ms: [servers / 4, servers / 4],
  cpu_servers_ms: servers,
  cpu_loadgen_ms: 0.1,
  counters: msgs === undefined ? { disk_synced: 0.3 } : { msgs_sent: msgs, msgs_App: msgs / 2, disk_synced: 0.3, entries_per_persist: NaN },
});

const unc = (clients: number, cps: number, p?: PerCycle) => ({
  clients,
  cycles: cps * 5,
  cycles_per_s: cps,
  acquire_p50_ms: 1,
  acquire_p99_ms: 9,
  release_p50_ms: 1,
  release_p99_ms: 2,
  cycle_p50_ms: 2,
  cycle_p99_ms: 11,
  errors: 0,
  ...(p ? { per_cycle: p } : {}),
});

describe('bench: report', () => {
  it('a metered run gives CPU keys per process (leader, followers in id order, servers, load generator, total) and its finite counters', () => {
    const k = perCycleKeys('uncontended_c64', perCycle(0.8, 1.5));
    expect(k).to.deep.equal({
      uncontended_c64_cpu_servers_ms: 0.8,
      uncontended_c64_cpu_leader_ms: 0.4,
      uncontended_c64_cpu_loadgen_ms: 0.1,
      uncontended_c64_cpu_total_ms: 0.9,
      uncontended_c64_cpu_follower1_ms: 0.2,
      uncontended_c64_cpu_follower2_ms: 0.2,
      uncontended_c64_msgs_sent: 1.5,
      uncontended_c64_msgs_App: 0.75,
      uncontended_c64_disk_synced: 0.3,
    });
    expect(perCycleKeys('x', undefined)).to.deep.equal({});
  });

  it("the Session stream's figures, metered ones included, come as <key>_session", () => {
    const r: SystemResults = { uncontended: [unc(64, 1000, perCycle(1))], contended: [], failover: [], uncontended_session: [unc(64, 2000, perCycle(0.5))] };
    const h = headline(r);
    expect(h.uncontended_c64_cycles_per_s).to.equal(1000);
    expect(h.uncontended_c64_cycles_per_s_session).to.equal(2000);
    expect(h.uncontended_c64_cpu_servers_ms).to.equal(1);
    expect(h.uncontended_c64_cpu_servers_ms_session).to.equal(0.5);
    expect(h).to.not.have.property('failover_ms_median_session');
  });

  it('one Markdown table: median [min–max] per cell, lockd/etcd and lockd/base ratios of medians, rows nobody measured left out', () => {
    const reps = (system: 'lockd' | 'lockd-base' | 'etcd', values: number[], cpu: number[]) =>
      summarizeReps(
        values.map((v, k) => headline({ uncontended: [unc(64, v, perCycle(cpu[k], system === 'etcd' ? undefined : 2))], contended: [], failover: [] })),
      );
    const systems = {
      lockd: reps('lockd', [1200, 1000, 1100], [0.5, 0.7, 0.6]),
      'lockd-base': reps('lockd-base', [600, 500, 550], [1.2, 1.2, 1.2]),
      etcd: reps('etcd', [1000, 1000, 1000], [0.4, 0.4, 0.4]),
    };
    const meds = Object.fromEntries(Object.entries(systems).map(([k, s]) => [k, medians(s)]));
    const md = markdownTable({ systems, medians: meds, followers: 2, reps: 3 });
    const lines = md.split('\n');
    expect(lines[2]).to.equal('| metric | lockd | lockd-base | etcd | lockd/etcd | lockd/base | better |');
    expect(lines).to.include('| uncontended C=64 cycles/s | 1,100 [1,000–1,200] | 550 [500–600] | 1,000 | 1.1× | 2× | higher |');
    expect(lines).to.include('| uncontended C=64: CPU ms/cycle, all servers | 0.6 [0.5–0.7] | 1.2 | 0.4 | 1.5× | 0.5× | lower |');
    expect(lines).to.include('| uncontended C=64: Raft messages/cycle (all nodes) | 2 | 2 | - | - | 1× | lower |');
    expect(md).to.not.contain('uncontended C=1 ');
    expect(md).to.not.contain('contended C=16');
  });

  it("ratios: a session key over etcd's plain one, over the baseline's session one when it has it", () => {
    expect(ratiosOf({ uncontended_c64_cycles_per_s_session: 3000 }, { uncontended_c64_cycles_per_s: 1000 }, '_session')).to.deep.equal({
      uncontended_c64_cycles_per_s_session: 3,
    });
    expect(
      ratiosOf(
        { uncontended_c64_cycles_per_s_session: 3000 },
        { uncontended_c64_cycles_per_s: 1000, uncontended_c64_cycles_per_s_session: 1500 },
        '_session',
        '_session',
      ),
    ).to.deep.equal({ uncontended_c64_cycles_per_s_session: 2 });
  });

  it("the CPU target compares server CPU per cycle at C=64 with lockd-base's: met at half or less, unknown without a baseline", () => {
    const lockd = { uncontended_c64_cpu_servers_ms: 0.5, uncontended_c64_cpu_servers_ms_session: 0.4 };
    const t = targets(
      lockd,
      undefined,
      undefined,
      { uncontended_c64_cpu_servers_ms: 1, uncontended_c64_cpu_servers_ms_session: 0.6 },
      { uncontended_c64_cpu_servers_ms: 0.45 },
    );
    const cpu = t.filter((c) => c.target.startsWith('server CPU'));
    expect(cpu.map((c) => c.met)).to.deep.equal([true, false]);
    expect(cpu[0].actual).to.equal('0.5× (0.5 against 1 ms; etcd 0.45 ms)');
    expect(
      targets(lockd, undefined, undefined)
        .filter((c) => c.target.startsWith('server CPU'))
        .map((c) => c.met),
    ).to.deep.equal([undefined, undefined]);
  });
});
