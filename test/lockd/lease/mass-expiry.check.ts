// Bounded work per entry on real processes (docs/design.md §4, "Bounded work per entry"): 100,000 leases (the
// cluster cap) falling due together, 20,000 of them renewed by one keepalive write (one Tick's cap)
// just before, must not stall any node's loop or a leader's heartbeats past half an election timeout,
// nor cost an election. Judged by the stall watch's own histograms on /metrics (loop delay per 50 ms
// watchdog turn, heartbeat gaps per peer) and by the leadership (term, leader-change counters).
//
// How the deadlines are made to coincide: before each window of grants the logical clock is read
// (a probe lease's remaining_ms) and the window's ttl aimed at one logical instant, so every
// deadline lands there but for the Ticks applied between the read and the grants;
// the grants go through SESSIONS Sessions, WINDOW calls in flight on each. The window judged opens
// once they are all granted.
import { expect } from 'chai';
import { ProcessCluster, freePort, waitFor } from '../../support/process-cluster.js';
import { metric, scrape } from '../../support/observe-client.js';
import { above, maxBound } from '../../support/histogram-window.js';
import { RawKeepAlive } from '../../support/raw-keepalive.js';
import { SessionClient } from '../../../src/client/session-client.js';
import { MAX_LEASES, MAX_TICK_RENEWALS } from '../../../src/lockd/state-machine/index.js';

/** ProcessCluster's nodes: --election-ticks 20 of --tick-ms 20 = 400 ms; half of it is the bound. */
const HALF_ELECTION_S = 0.2;
/** The cap, less the probe lease that reads the logical clock. */
const LEASES = MAX_LEASES - 1;
const RENEWED = MAX_TICK_RENEWALS;
/** Sessions granting side by side, each with up to WINDOW calls in flight (a session allows 1,024). */
const SESSIONS = 4;
const WINDOW = 250;
/** The deadline margin a ProcessCluster leader adds (two lease-clock ticks of 100 ms): deadline-margin.ts. */
const MARGIN_MS = 200;
/** The common deadline, from the start of the grants (ms); the grants must end 1.5 s before it. */
const T_END_MS = Number(process.env.LOCKD_MASS_EXPIRY_T_END_MS ?? 16_000);

describe('leases: 100,000 expiring at once and 20,000 renewed in one Tick stall no loop (real processes)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  const httpPort = new Map<string, number>();
  const base = (id: string) => `http://127.0.0.1:${httpPort.get(id)}`;
  let sessions: SessionClient[] = [];
  let raw: RawKeepAlive | undefined;

  before(async () => {
    for (const id of ['n1', 'n2', 'n3']) httpPort.set(id, await freePort());
    cluster = await ProcessCluster.start({ size: 3, nodeFlags: (id) => ({ '--http-listen': `127.0.0.1:${httpPort.get(id)}` }) });
    await cluster.waitForLeader();
  });
  after(async () => {
    raw?.close();
    for (const s of sessions) s.close();
    await cluster?.stop();
  });

  it('no loop turn or heartbeat gap beyond half an election timeout, and no election', async () => {
    const leader = await cluster.waitForLeader();
    const ids = cluster.nodes.map((n) => n.id);
    const term = (await cluster.status(leader)).term;
    sessions = Array.from({ length: SESSIONS }, () => new SessionClient({ endpoints: [cluster.node(leader).address] }));

    const t0 = Date.now();
    // The logical clock, read through a probe lease: its remaining_ms falls as logical now rises
    // (which, under this load, runs slower than the wall clock: a Tick counts at most 200 ms).
    const probe = (await sessions[0].grant(3_600_000, { requestId: '' })).leaseId;
    const logicalLeft = async (s: SessionClient) => (await s.timeToLive(probe)).remainingMs;
    const target = (await logicalLeft(sessions[0])) - T_END_MS; // every deadline: where the probe has this much left
    const leases: number[] = [];
    let sent = 0;
    await Promise.all(
      sessions.map(async (session) => {
        while (sent < LEASES) {
          const n = Math.min(WINDOW, LEASES - sent);
          sent += n;
          // deadline = now + ttl + 200 ms + ⌈ttl / 1000⌉ (the margins): aim it at the target.
          const room = (await logicalLeft(session)) - target - MARGIN_MS;
          const ttl = Math.floor(room / 1.001);
          if (ttl < 1500)
            throw new Error(
              `granting ${LEASES} leases took longer than ${T_END_MS - 1500} ms of logical time (${leases.length} granted): raise LOCKD_MASS_EXPIRY_T_END_MS`,
            );
          const got = await Promise.all(Array.from({ length: n }, () => session.grant(ttl, { requestId: '' })));
          for (const g of got) leases.push(g.leaseId);
        }
      }),
    );
    await sessions[0].revoke(probe);
    leases.sort((a, b) => a - b);
    const grantMs = Date.now() - t0;
    // How "at once": the deadlines of 200 leases spread over the grant order, read together (one
    // logical now, but for a Tick applied among the reads), against the Ticks' ~100 ms of logical time.
    const sample = Array.from({ length: 200 }, (_, k) => leases[Math.floor((k * (leases.length - 1)) / 199)]);
    const remaining = (await Promise.all(sample.map((id) => sessions[0].timeToLive(id)))).map((t) => t.remainingMs);
    const spreadMs = Math.max(...remaining) - Math.min(...remaining);
    // The window judged starts here: granting is the leader's ordinary write path (admission control's
    // concern, not this test's); the renewals and the expiry are what one Tick's apply costs.
    const before = new Map(await Promise.all(ids.map(async (id) => [id, await scrape(base(id))] as const)));
    // The last granted (the shortest TTLs, so a renewal keeps their deadline near the common one),
    // renewed by one write: the leader's lease clock takes up to MAX_TICK_RENEWALS into one Tick.
    raw = new RawKeepAlive(cluster.node(leader).address);
    raw.send(leases.slice(-RENEWED));
    await waitFor('the renewals answered', () => (raw!.answers.length >= RENEWED ? true : undefined), T_END_MS);
    const renewedLive = raw.answers.filter(([, ttl]) => ttl > 0).length;
    raw.close();
    raw = undefined;
    // Once due (T_END), every lease ends within ⌈100,000 / budget⌉ Ticks; wait for the counters to say so.
    await waitFor('the leases due', () => (Date.now() - t0 >= T_END_MS + 500 ? true : undefined), T_END_MS + 5_000, 100);
    const ended = await waitFor(
      'every lease ended on every node',
      async () => {
        const texts = await Promise.all(ids.map((id) => scrape(base(id))));
        const done = texts.every((t, i) => metric(t, 'lockd_lease_expired_total')! - metric(before.get(ids[i])!, 'lockd_lease_expired_total')! >= LEASES);
        return done ? texts : undefined;
      },
      30_000,
      250,
    );
    const doneMs = Date.now() - t0;
    const after = new Map(ids.map((id, i) => [id, ended[i]] as const));

    const lines: string[] = [];
    for (const id of ids) {
      const b = before.get(id)!;
      const a = after.get(id)!;
      lines.push(
        `${id}${id === leader ? ' (leader)' : ''}: loop delay max ${maxBound(b, a, 'lockd_event_loop_delay_seconds')}, heartbeat gap max ${maxBound(b, a, 'lockd_raft_heartbeat_gap_seconds')}, ` +
          `Tick apply max ${maxBound(b, a, 'lockd_apply_seconds', { type: 'Tick' })}, Grant apply max ${maxBound(b, a, 'lockd_apply_seconds', { type: 'Grant' })}`,
      );
    }
    console.log(
      `      ${LEASES} grants in ${grantMs} ms (deadlines spread over ${spreadMs} ms of logical time), ${renewedLive}/${RENEWED} renewals answered live, all ended by ${doneMs} ms after the start\n      ${lines.join('\n      ')}`,
    );

    expect(renewedLive, 'renewals answered with a live ttl').to.equal(RENEWED);
    const ticks = (text: string) => metric(text, 'lockd_apply_seconds_count', { type: 'Tick' }) ?? 0;
    for (const id of ids)
      expect(ticks(after.get(id)!), `${id}: lockd_apply_seconds{type="Tick"} counts the Ticks applied`).to.be.greaterThan(ticks(before.get(id)!));
    for (const id of ids) {
      const b = before.get(id)!;
      const a = after.get(id)!;
      expect(
        above(b, a, 'lockd_event_loop_delay_seconds', HALF_ELECTION_S),
        `${id}: loop turns later than half an election timeout (${lines.join('; ')})`,
      ).to.equal(0);
      expect(above(b, a, 'lockd_raft_heartbeat_gap_seconds', HALF_ELECTION_S), `${id}: heartbeat gaps beyond half an election timeout`).to.equal(0);
      expect(metric(a, 'lockd_raft_leader_changes_total')! - metric(b, 'lockd_raft_leader_changes_total')!, `${id}: leader changes`).to.equal(0);
    }
    const st = await cluster.status(leader);
    expect({ leader: st.leaderId, term: st.term }).to.deep.equal({ leader, term });
  });
});
