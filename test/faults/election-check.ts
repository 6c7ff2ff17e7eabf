// Elections (lockd.v1.Election) as clients saw them: Campaign answers (grants, judged with
// the other recipes by recipe-holders-check.ts: one leader at a time, tokens increase), Leader reads
// (linearizable: true at some point of the call) and Observe streams (served by the node called, in
// log order, lagging by its replication delay: a response says the leadership it names was
// committed before it arrived, nothing about how long ago).
//  - Phantom Leader (Leader): a read must not name a leadership that had certainly ended before the
//    call began — its Resign answered resigned, its lease's Revoke answered, or a higher leadership
//    token already answered by a Campaign, Leader or Observe; nor answer "nobody leads" while a
//    leadership certainly lasted over the whole call (recipe-grants.ts: protectedUntil).
//  - Phantom Leader (Observe): per stream, leadership tokens never go back, and one left (a newer
//    leader or "nobody") never comes back; a response naming token t proves every other leadership
//    with a lower token had ended when it arrived, and "nobody" after t that t had ended: a grant
//    still certainly held then is two leaders at once, or a leadership dropped under a live lease.
//  - Leader Identity: a token names one leadership: its lease is the one its Campaign was answered,
//    and its value one that lease campaigned with or a Proclaim of that token set, before the answer.
import type { CampaignInput, LeaderOutput, ObserveOutput, Op, OpOf, ProclaimInput } from './history.js';
import { resignedOk, type RecipeGrant } from './recipe-grants.js';
import type { RecipeViolation } from './recipe-holders-check.js';

export interface ElectionStats {
  campaigns: number;
  leaderReads: number;
  observed: number;
  streams: number;
  violations: RecipeViolation[];
}

export function checkElections(ops: readonly Op[], grants: readonly RecipeGrant[]): ElectionStats {
  const names = new Set(ops.filter((o) => o.f === 'campaign').map((o) => (o.input as CampaignInput).name));
  const res: ElectionStats = { campaigns: 0, leaderReads: 0, observed: 0, streams: 0, violations: [] };
  const report = (checker: string, name: string, detail: string) => {
    if (res.violations.length < 20) res.violations.push({ checker, name, detail });
  };
  const at = (t: number) => `${t.toFixed(1)} ms`;
  for (const name of names) {
    const mine = ops.filter((o) => 'name' in o.input && o.input.name === name);
    const leases = new Set(mine.filter((o) => o.f === 'campaign').map((o) => (o.input as CampaignInput).leaseId));
    const leads = grants.filter((g) => g.name === name && g.op.f === 'campaign');
    res.campaigns += leads.length;
    const leaseOfToken = new Map(leads.map((g) => [g.token, g.lease]));
    /** When each leadership (token) certainly ended, from definite answers: the earliest completion proving it. */
    const endedBy = (lease: number, token: number): { at: number; why: string } => {
      let best = { at: Infinity, why: '' };
      const consider = (t: number, why: string) => {
        if (t < best.at) best = { at: t, why };
      };
      for (const o of ops) {
        if (o.status !== 'ok') continue;
        if (o.f === 'revoke' && o.input.leaseId === lease) consider(o.complete, `lease ${lease} revoked`);
        if (o.f === 'resign' && o.input.name === name && o.input.token === token && resignedOk(o)) consider(o.complete, 'resigned');
        if (o.f === 'campaign' && o.input.name === name && (o.output as { token: number }).token > token)
          consider(o.complete, `campaign answered token ${(o.output as { token: number }).token}`);
        if (o.f === 'leader' && o.input.name === name && (o.output as LeaderOutput).token > token)
          consider(o.complete, `Leader answered token ${(o.output as LeaderOutput).token}`);
        if (o.f === 'observe' && o.input.name === name && (o.output as ObserveOutput).hasLeader && (o.output as ObserveOutput).token > token)
          consider(o.complete, `Observe showed token ${(o.output as ObserveOutput).token}`);
      }
      return best;
    };
    const valueKnown = (lease: number, token: number, value: string, by: number): boolean =>
      mine.some(
        (o) =>
          o.invoke < by &&
          ((o.f === 'campaign' && o.input.leaseId === lease && o.input.value === value) ||
            (o.f === 'proclaim' &&
              (o.input as ProclaimInput).leaseId === lease &&
              (o.input as ProclaimInput).token === token &&
              (o.input as ProclaimInput).value === value)),
      );
    const identity = (o: Op, lease: number, token: number, value: string, by: number) => {
      const known = leaseOfToken.get(token);
      if (known !== undefined && known !== lease)
        report('Leader Identity', name, `${o.f} (${o.id}) named lease ${lease} for token ${token}, which Campaign answered to lease ${known}`);
      else if (!leases.has(lease))
        report('Leader Identity', name, `${o.f} (${o.id}) named lease ${lease} (token ${token}), which never campaigned for ${name}`);
      else if (!valueKnown(lease, token, value, by))
        report(
          'Leader Identity',
          name,
          `${o.f} (${o.id}) showed lease ${lease} token ${token} with value "${value}", which neither its campaigns nor a Proclaim of that token had sent by ${at(by)}`,
        );
    };
    // Leader reads.
    for (const o of mine) {
      if (o.f !== 'leader' || o.status === 'unknown') continue;
      res.leaderReads++;
      if (o.status === 'ok') {
        const v = o.output as LeaderOutput;
        identity(o, v.leaseId, v.token, v.value, o.complete);
        const end = endedBy(v.leaseId, v.token);
        if (end.at < o.invoke)
          report(
            'Phantom Leader',
            name,
            `Leader (${o.id}, invoked ${at(o.invoke)}) answered lease ${v.leaseId} token ${v.token}, whose leadership had ended by ${at(end.at)} (${end.why})`,
          );
      } else if ((o.output as { code?: string } | undefined)?.code === 'NOT_FOUND') {
        const g = leads.find((l) => l.op.complete < o.invoke && l.protectedUntil > o.complete);
        if (g)
          report(
            'Phantom Leader',
            name,
            `Leader (${o.id}, ${at(o.invoke)}–${at(o.complete)}) answered "nobody leads" while lease ${g.lease} led (token ${g.token}, answered ${at(g.op.complete)}, held until at least ${at(g.protectedUntil)})`,
          );
      }
    }
    // Observe streams.
    const streams = new Map<string, OpOf<'observe'>[]>();
    for (const o of mine) {
      if (o.f !== 'observe' || o.status !== 'ok') continue;
      res.observed++;
      let s = streams.get(o.input.stream);
      if (!s) streams.set(o.input.stream, (s = []));
      s.push(o);
    }
    res.streams += streams.size;
    for (const [stream, events] of streams) {
      let current = 0; // token shown last (0: nobody)
      let highest = 0;
      const left = new Set<number>();
      for (const e of events) {
        const v = e.output as ObserveOutput;
        const token = v.hasLeader ? v.token : 0;
        if (v.hasLeader) {
          identity(e, v.leaseId, v.token, v.value, e.complete);
          if (token < highest || left.has(token))
            report(
              'Phantom Leader',
              name,
              `Observe stream ${stream} showed lease ${v.leaseId} token ${token} at ${at(e.complete)} after it had shown token ${highest}${left.has(token) ? ' and that leadership end' : ''}`,
            );
          // Every other leadership with a lower token had ended when this arrived.
          const g = leads.find((l) => l.token < token && l.protectedUntil > e.complete);
          if (g)
            report(
              'Phantom Leader',
              name,
              `Observe stream ${stream} showed lease ${v.leaseId} leading (token ${token}) at ${at(e.complete)} while lease ${g.lease} still led (token ${g.token}, held until at least ${at(g.protectedUntil)}): two leaders`,
            );
        } else if (current > 0) {
          const g = leads.find((l) => l.token === current && l.protectedUntil > e.complete);
          if (g)
            report(
              'Phantom Leader',
              name,
              `Observe stream ${stream} showed nobody leading at ${at(e.complete)} after token ${current}, while lease ${g.lease} still led with it (held until at least ${at(g.protectedUntil)})`,
            );
        }
        if (current > 0 && token !== current) left.add(current);
        current = token;
        highest = Math.max(highest, token);
      }
    }
  }
  return res;
}
