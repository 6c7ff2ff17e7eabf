// Each decision in words: a short title for the timeline row, and the sentence a click opens, made
// from the numbers that decided it ("lease 134 expired at index 162: logical now 9,850 ms passed
// its deadline 9,800 ms"). Pure: (event, context from the model) in, strings out.

const n = (x) => Number(x).toLocaleString('en-US');
const ms = (x) => `${n(x)} ms`;
const q = (s) => `"${s}"`;
const list = (xs) => (xs.length <= 8 ? xs.join(', ') : `${xs.slice(0, 8).join(', ')} and ${xs.length - 8} more`);

/**
 * What the timeline shows of an event, or undefined for the ones it leaves to the node cards
 * (appended, committed, disk syncs) and for plain Ticks unless `ticks` is asked for.
 * kind: the row's colour — election, grant, free, expire, refused, lease, tick, snapshot, info.
 */
export function describe(ev, ctx = {}, opts = {}) {
  switch (ev.type) {
    case 'role':
      // Leaders and candidates always; followers settling on a leader with "terms & leaders".
      return ev.role === 'follower' && !opts.raft ? undefined : roleLine(ev, ctx);
    case 'vote': {
      const what = ev.pre ? 'pre-vote' : 'vote';
      return ev.granted
        ? {
            kind: 'election',
            title: `${ev.voter} → ${ev.candidate}: ${what} granted`,
            sentence: `${ev.voter} granted its ${what} to ${ev.candidate} for term ${n(ev.voteTerm)}: ${ev.candidate}'s log is at least as up to date as ${ev.voter}'s${ev.pre ? ' and ' + ev.voter + ' has no live leader (a pre-vote raises no term)' : ', and ' + ev.voter + ' had not voted for anyone else in that term'}.`,
          }
        : {
            kind: 'election',
            title: `${ev.voter} ✗ ${ev.candidate}: ${what} refused`,
            sentence: `${ev.voter} refused its ${what} to ${ev.candidate} for term ${n(ev.voteTerm)}: it already voted in that term, still hears a leader, or its own log is more up to date.`,
          };
    }
    case 'term-changed':
      return opts.raft
        ? {
            kind: 'election',
            title: `${ev.node}: term ${n(ev.from)} → ${n(ev.term)}`,
            sentence: `${ev.node} moved from term ${n(ev.from)} to term ${n(ev.term)}${ev.vote ? ` and voted for ${ev.vote}` : ''}; the new term is on its disk before it sends any message in it.`,
          }
        : undefined;
    case 'leader-changed':
      return opts.raft
        ? {
            kind: 'election',
            title: `${ev.node} follows ${ev.leader || 'nobody'}`,
            sentence: ev.leader
              ? `${ev.node} now knows ${ev.leader} as leader of term ${n(ev.term)} (before: ${ev.previous || 'none'}).`
              : `${ev.node} lost its leader (${ev.previous || 'none'}): no leader known until an election ends.`,
          }
        : undefined;
    case 'tick':
      if (ev.expired.length === 0 && !opts.ticks) return undefined;
      return {
        kind: ev.expired.length ? 'expire' : 'tick',
        title: `Tick +${ms(ev.elapsedMs)} → now ${ms(ev.now)}${ev.expired.length ? `, expired ${list(ev.expired)}` : ''}`,
        sentence:
          `The leader's Tick at index ${n(ev.index)} advanced logical time by ${ms(ev.elapsedMs)}${ctx.before !== undefined ? `, from ${ms(ctx.before)}` : ''} to ${ms(ev.now)}` +
          // Only the proposing leader's copy of the event carries what its clock measured.
          `${ev.measuredMs === undefined ? '' : ev.measuredMs > ev.elapsedMs + 1 ? ` (${ev.node} measured ${ms(ev.measuredMs)} since its previous Tick; one Tick counts at most the cap, so time beyond it is dropped: logical time may run slow, never fast)` : ` (${ev.node} measured ${ms(ev.measuredMs)} since its previous Tick)`}` +
          `${ev.renewed.length ? `; it renewed lease${ev.renewed.length > 1 ? 's' : ''} ${list(ev.renewed)} (their keepalives reached the leader)` : ''}` +
          `${ev.expired.length ? `; it expired lease${ev.expired.length > 1 ? 's' : ''} ${list(ev.expired)}, whose deadline${ev.expired.length > 1 ? 's' : ''} this now reached${expiredDeadlines(ev, ctx)}` : ''}. Logical time moves only by committed Ticks, so every replica expires the same leases at the same index.`,
      };
    case 'lease-granted':
      return {
        kind: 'lease',
        title: `lease ${ev.leaseId} granted, TTL ${ms(ev.ttlMs)}`,
        sentence: `Lease ${ev.leaseId} (its id is the index of the granting entry) was granted at index ${n(ev.index)} with a TTL of ${ms(ev.ttlMs)}: at logical now ${ms(ctx.now ?? 0)} its deadline is ${ms(ev.deadline)} (TTL plus the leader's tick cap and clock-drift margin); each keepalive renews it.`,
      };
    case 'lease-ended':
      if (ev.why === 'revoked')
        return {
          kind: 'free',
          title: `lease ${ev.leaseId} revoked`,
          sentence: `Lease ${ev.leaseId} was revoked by its holder at index ${n(ev.index)}; the locks it held were released in the same entry.`,
        };
      return {
        kind: 'expire',
        title: `lease ${ev.leaseId} expired`,
        sentence:
          ctx.deadline !== undefined
            ? `Lease ${ev.leaseId} expired at index ${n(ev.index)}: logical now ${ms(ctx.now)} passed its deadline ${ms(ctx.deadline)} (no keepalive renewed it in time).`
            : `Lease ${ev.leaseId} expired at index ${n(ev.index)}: logical now ${ms(ctx.now ?? 0)} passed its deadline (no keepalive renewed it in time).`,
      };
    case 'lock-granted':
      return ev.handoff
        ? {
            kind: 'grant',
            title: `${q(ev.name)} handed to lease ${ev.leaseId}, token ${n(ev.token)}`,
            sentence: `Lock ${q(ev.name)} passed to its first waiter, lease ${ev.leaseId}, in the very entry that freed it (index ${n(ev.index)}): its fencing token is ${n(ev.token)}, this grant's own (that entry's index × 1024 + its ordinal), higher than any token granted before.`,
          }
        : {
            kind: 'grant',
            title: `${q(ev.name)} granted to lease ${ev.leaseId}, token ${n(ev.token)}`,
            sentence: `Lock ${q(ev.name)} was free and was granted to lease ${ev.leaseId} at index ${n(ev.index)}: its fencing token is ${n(ev.token)}, this grant's own (the granting entry's index × 1024 + its ordinal), so every later grant carries a higher one.`,
          };
    case 'lock-freed':
      return ev.why === 'expired'
        ? {
            kind: 'expire',
            title: `${q(ev.name)} lost by lease ${ev.leaseId} (token ${n(ev.token)})`,
            sentence: `Lock ${q(ev.name)} was freed at index ${n(ev.index)} because its holder's lease ${ev.leaseId} expired${ctx.deadline !== undefined ? ` (logical now ${ms(ctx.now)} ≥ deadline ${ms(ctx.deadline)})` : ''}: token ${n(ev.token)} no longer holds it, whatever its holder believes.`,
          }
        : {
            kind: 'free',
            title: `${q(ev.name)} released (token ${n(ev.token)})`,
            sentence: `Lease ${ev.leaseId} released lock ${q(ev.name)} with its token ${n(ev.token)} at index ${n(ev.index)}.`,
          };
    case 'waiter':
      if (ev.action === 'queued')
        return {
          kind: 'info',
          title: `lease ${ev.leaseId} waits for ${q(ev.name)}`,
          sentence: `Lease ${ev.leaseId} joined the FIFO queue of ${q(ev.name)} at index ${n(ev.index)}${ctx.position ? ` at position ${ctx.position}` : ''}${ctx.holder ? `, behind holder lease ${ctx.holder} (token ${n(ctx.token)})${ctx.holders > 1 ? ` and ${ctx.holders - 1} more holders` : ''}` : ''}: it is granted when the holders before it let go or expire.`,
        };
      return {
        kind: 'free',
        title: `lease ${ev.leaseId} left the queue of ${q(ev.name)}`,
        sentence:
          ev.action === 'removed'
            ? `Lease ${ev.leaseId} left the queue of ${q(ev.name)} at index ${n(ev.index)} because the lease ended.`
            : `Lease ${ev.leaseId} cancelled its wait for ${q(ev.name)} at index ${n(ev.index)}.`,
      };
    case 'release':
      if (ev.ok) return undefined; // the lock-freed event tells it
      return {
        kind: 'refused',
        title: `release of ${q(ev.name)} refused: token ${n(ev.token)} is stale`,
        sentence: `A Release of ${q(ev.name)} with token ${n(ev.token)} was refused at index ${n(ev.index)}: that token no longer holds the lock${ctx.holderToken ? ` (the holder's token is ${n(ctx.holderToken)})` : ''}. Compare-and-delete: a late release cannot free the next holder's lock.`,
      };
    case 'fence':
      return fenceLine(ev, ctx);
    case 'applied':
      if (ev.ok || ev.command === 'FenceWrite' || ev.command === 'FenceDelete' || ev.command === 'Release') return undefined;
      return {
        kind: 'refused',
        title: `${ev.command} refused: ${ev.error}`,
        sentence: `The ${ev.command} at index ${n(ev.index)} was applied and refused (${ev.error}): ${ev.message ?? ''}. A refused entry changes nothing.`,
      };
    case 'snapshot':
      return {
        kind: 'snapshot',
        title: `snapshot ${ev.how} at index ${n(ev.index)}`,
        sentence:
          ev.how === 'taken'
            ? `${ev.node} wrote a snapshot of the state at index ${n(ev.index)} (${n(ev.bytes)} bytes) and compacted its log below it.`
            : `${ev.node} installed the leader's snapshot at index ${n(ev.index)} (${n(ev.bytes)} bytes): it was too far behind for the log entries.`,
      };
    default:
      return undefined;
  }
}

/** " (drawn in 1,000–2,000 ms: 20–40 ticks of 50 ms)" when the node said its timing. */
function timeout(ctx) {
  const t = ctx.timing;
  return t
    ? ` (drawn at random in ${n(t.electionMs)}–${n(2 * t.electionMs)} ms: ${n(t.electionMs / t.tickMs)}–${n((2 * t.electionMs) / t.tickMs)} ticks of ${ms(t.tickMs)})`
    : '';
}

/** " (a majority: 3 of 5)" when the page knows how many vote. */
function quorumOf(ctx) {
  return ctx.members ? ` (it needs a majority: ${Math.floor(ctx.members / 2) + 1} of ${ctx.members})` : '';
}

/** " (lease 5: deadline 2,303 ms ≤ now 2,310 ms; …)" where the page knew the deadlines before the Tick. */
function expiredDeadlines(ev, ctx) {
  const known = ev.expired.map((id, k) => [id, ctx.deadlines?.[k]]).filter(([, d]) => d !== undefined);
  return known.length
    ? ` (${known
        .slice(0, 8)
        .map(([id, d]) => `lease ${id}: deadline ${ms(d)} ≤ now ${ms(ev.now)}`)
        .join('; ')})`
    : '';
}

/** ctx for a leader: { voters: ids that granted it their vote in this term (itself included), members: how many vote }. */
function roleLine(ev, ctx = {}) {
  switch (ev.role) {
    case 'leader': {
      const quorum = ctx.members ? Math.floor(ctx.members / 2) + 1 : undefined;
      const won =
        ctx.voters && quorum
          ? `won ${ctx.voters.length} vote${ctx.voters.length > 1 ? 's' : ''} of ${ctx.members} (${list(ctx.voters)}), a majority being ${quorum},`
          : 'won a majority of votes';
      const heartbeat = ctx.timing ? ` It sends heartbeats every ${ms(ctx.timing.heartbeatMs)}, well inside the others' election timeout${timeout(ctx)}.` : '';
      return {
        kind: 'election',
        title: `${ev.node} is leader of term ${n(ev.term)}${ctx.voters && quorum ? ` (${ctx.voters.length}/${ctx.members} votes, quorum ${quorum})` : ''}`,
        sentence: `${ev.node} ${won} and leads term ${n(ev.term)}: it alone proposes entries, including the Ticks that advance logical time.${heartbeat}`,
      };
    }
    case 'candidate':
      return {
        kind: 'election',
        title: `${ev.node} stands for term ${n(ev.term)}`,
        sentence: `${ev.node} heard no leader within its election timeout${timeout(ctx)}, raised its term to ${n(ev.term)} and asked the others for votes${quorumOf(ctx)}.`,
      };
    case 'precandidate':
      return {
        kind: 'election',
        title: `${ev.node} polls a pre-vote`,
        sentence: `${ev.node} heard no leader within its election timeout${timeout(ctx)} and asks, without raising its term (${n(ev.term)}), whether a majority would vote for it${quorumOf(ctx)}: a node cut off cannot disturb the cluster by raising terms.`,
      };
    default:
      return {
        kind: 'election',
        title: `${ev.node} follows ${ev.leader || '(no leader yet)'}`,
        sentence: ev.leader
          ? `${ev.node} is a follower in term ${n(ev.term)}; its leader is ${ev.leader}.`
          : `${ev.node} is a follower in term ${n(ev.term)} and knows no leader yet.`,
      };
  }
}

function fenceLine(ev, ctx) {
  const op = ev.op === 'write' ? 'write' : 'delete';
  if (ev.accepted)
    return {
      kind: 'grant',
      title: `fenced ${op} of ${q(ev.key)} accepted, token ${n(ev.token)}`,
      sentence: `The fenced ${op} of ${q(ev.key)} with token ${n(ev.token)} was accepted at index ${n(ev.index)}: ${n(ev.token)} ≥ ${n(ctx.before ?? 0)}, the highest token the store had seen for it; its highest is now ${n(ev.highest)}.`,
    };
  if (ev.stale)
    return {
      kind: 'refused',
      title: `fenced ${op} refused: token ${n(ev.token)} < ${n(ev.highest)}`,
      sentence: `Fenced ${op} refused: token ${n(ev.token)} < ${n(ev.highest)}. At index ${n(ev.index)} the store refused the ${op} of ${q(ev.key)}: a holder with the newer token ${n(ev.highest)} has already written it, so this writer's lock ended (a GC pause, a lost lease) and its write would undo the newer one.`,
    };
  return {
    kind: 'refused',
    title: `fenced ${op} of ${q(ev.key)} refused`,
    sentence: `The fenced ${op} of ${q(ev.key)} with token ${n(ev.token)} was refused at index ${n(ev.index)}: ${ev.reason ?? 'refused'}.`,
  };
}

/**
 * The key that makes the same decision seen from several nodes one timeline row: an entry's
 * consequences by (type, index, subject), a vote by who and which term, a node's own change by node.
 */
export function dedupKey(ev) {
  switch (ev.type) {
    case 'role':
    case 'term-changed':
    case 'leader-changed':
    case 'snapshot':
      return `${ev.type}|${ev.node}|${ev.seq}|${ev.at}`; // seq restarts with the process: `at` tells restarts apart
    case 'vote':
      return `vote|${ev.voter}|${ev.candidate}|${ev.voteTerm}|${ev.pre}`;
    case 'tick':
    case 'lease-granted':
    case 'applied':
      return `${ev.type}|${ev.index}`;
    case 'lease-ended':
      return `${ev.type}|${ev.index}|${ev.leaseId}`;
    case 'lock-granted':
    case 'lock-freed':
    case 'waiter':
    case 'release':
      return `${ev.type}|${ev.index}|${ev.name}|${ev.leaseId ?? ev.token}`;
    case 'fence':
      return `${ev.type}|${ev.index}|${ev.key}`;
    default:
      return `${ev.type}|${ev.node}|${ev.seq}|${ev.at}`;
  }
}
