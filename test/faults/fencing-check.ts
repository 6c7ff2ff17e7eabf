// Checker 1 (fencing): what a store ended up holding, against what the clients were told.
//  - The stored value must be a chain of real writes back to the empty list (each write appends one
//    element to the value it read); no refused write may be on it; tokens never decrease along it.
//  - Every acknowledged write must be on the final chain. A write acknowledged after its writer's
//    lease trust had run out (send time of the last acked keepalive or grant sent by then + TTL) is
//    the one exception, and so is one acknowledged after a third party released its grant (the
//    token is the capability today: the grant legitimately ended, the holder lost the lock):
//    fencing on writes alone cannot save a read-modify-write from a holder that resumes between the
//    next holder's read and write, so such a loss is counted, not called a violation.
//  - In real time, no write is accepted with a lower token than a write accepted before it began,
//    and no write is refused unless a higher token could have been written first.
// The same analysis of the unfenced control store shows what fencing prevents there.
import type { FailOutput, Op, OpOf, ReadOutput, StoreKind } from './history.js';
import type { GuardedValue } from './guarded-value.js';
import { grantEnds } from './exclusion-check.js';

export interface FinalValue {
  readonly value: GuardedValue;
  /** The token the store reports for it (fenced store); undefined for the plain store. */
  readonly token: number | undefined;
}

export type FencingViolationKind =
  | 'unknown-element'
  | 'refused-but-stored'
  | 'chain-tokens-decrease'
  | 'chain-mismatch'
  | 'accepted-lower-token'
  | 'refused-current-token'
  | 'read-unordered'
  | 'lost-acknowledged-write';

export interface FencingViolation {
  kind: FencingViolationKind;
  key: string;
  detail: string;
}

export interface LostWrite {
  key: string;
  elem: string;
  process: string;
  token: number;
  complete: number;
  trustedUntil: number;
}

export interface StoreCheck {
  store: StoreKind;
  keys: string[];
  writes: { ok: number; fail: number; unknown: number; refusedStale: number };
  chainLength: Record<string, number>;
  violations: FencingViolation[];
  /** Acknowledged within the writer's lease trust, yet not in the final value. */
  lostAcknowledged: LostWrite[];
  /** Acknowledged after the writer's lease trust ran out, and not in the final value. */
  staleWindowLosses: LostWrite[];
  /** Places where the chain's token went down (a stale writer overwrote a newer holder). */
  tokenRegressions: number;
}

const MAX_LISTED = 20;

export function checkStore(ops: readonly Op[], store: StoreKind, finals: ReadonlyMap<string, FinalValue>): StoreCheck {
  const writes = ops.filter((o): o is OpOf<'write'> => o.f === 'write' && o.input.store === store);
  const reads = ops.filter((o): o is OpOf<'read'> => o.f === 'read' && o.input.store === store);
  const keys = [...new Set([...writes.map((w) => w.input.key), ...finals.keys()])].sort();
  const res: StoreCheck = {
    store,
    keys,
    writes: { ok: 0, fail: 0, unknown: 0, refusedStale: 0 },
    chainLength: {},
    violations: [],
    lostAcknowledged: [],
    staleWindowLosses: [],
    tokenRegressions: 0,
  };
  const violation = (kind: FencingViolationKind, key: string, detail: string): void => {
    if (res.violations.filter((v) => v.kind === kind).length < MAX_LISTED) res.violations.push({ kind, key, detail });
  };
  // A lease's trust at time t: the latest send time + TTL of its grant or an acknowledged renewal sent by t.
  const renewals = new Map<number, { sent: number; until: number }[]>();
  for (const o of ops) {
    if (o.status !== 'ok') continue;
    if (o.f === 'grant') push(renewals, (o.output as { leaseId: number }).leaseId, { sent: o.invoke, until: o.invoke + o.input.ttlMs });
    if (o.f === 'keepalive' && (o.output as { ttlMs: number }).ttlMs > 0) push(renewals, o.input.leaseId, { sent: o.invoke, until: o.invoke + o.input.ttlMs });
  }
  const trustAt = (lease: number, t: number): number => {
    let best = -Infinity;
    for (const r of renewals.get(lease) ?? []) if (r.sent <= t && r.until > best) best = r.until;
    return best;
  };
  // A grant released by someone else ends the writer's trust with it (the holder's own release comes after its writes).
  const ends = grantEnds(ops.filter((o) => o.f === 'release' && o.input.adversary));
  const grantEnd = (w: OpOf<'write'>): number => ends.get(`${w.input.lock ?? w.input.key.replace(/^guard\//, '')}|${w.input.token}`) ?? Infinity;
  const refused = (w: OpOf<'write'>): boolean => w.status === 'fail' && (w.output as FailOutput | undefined)?.code === 'FAILED_PRECONDITION';
  for (const w of writes) {
    res.writes[w.status]++;
    if (refused(w)) res.writes.refusedStale++;
  }
  if (store === 'fence')
    for (const r of reads)
      if (r.status === 'ok' && !(r.output as ReadOutput).ordered)
        violation('read-unordered', r.input.key, `${r.id} read a value whose tokens decrease or whose last token is not the store's`);

  for (const key of keys) {
    const kw = writes.filter((w) => w.input.key === key);
    const byElem = new Map(kw.map((w) => [w.input.elem, w]));
    const final = finals.get(key);
    // The chain the final value names, newest first.
    const chain: OpOf<'write'>[] = [];
    if (final && final.value.n > 0) {
      const seen = new Set<string>();
      let e = final.value.tail[final.value.tail.length - 1];
      while (e !== '') {
        const w = byElem.get(e);
        if (!w) {
          violation('unknown-element', key, `the value holds ${JSON.stringify(e)}, which no write produced`);
          break;
        }
        if (seen.has(e)) {
          violation('chain-mismatch', key, `the chain loops at ${e}`);
          break;
        }
        seen.add(e);
        chain.push(w);
        e = w.input.pred;
      }
      if (chain.length !== final.value.n && !res.violations.some((v) => v.kind === 'unknown-element' && v.key === key))
        violation('chain-mismatch', key, `the value counts ${final.value.n} elements, its chain of writes has ${chain.length}`);
      const tail = chain
        .slice(0, final.value.tail.length)
        .map((w) => w.input.elem)
        .reverse();
      if (tail.join(',') !== final.value.tail.join(',')) violation('chain-mismatch', key, `the stored tail does not match its chain of writes`);
      if (final.token !== undefined && chain.length && chain[0].input.token !== final.token)
        violation('chain-mismatch', key, `the store reports token ${final.token} for a value last written with token ${chain[0].input.token}`);
    }
    res.chainLength[key] = chain.length;
    const onChain = new Set(chain.map((w) => w.input.elem));
    for (let i = 0; i + 1 < chain.length; i++) {
      const newer = chain[i];
      const older = chain[i + 1];
      if (newer.input.token < older.input.token) {
        res.tokenRegressions++;
        if (store === 'fence')
          violation('chain-tokens-decrease', key, `${newer.id} (token ${newer.input.token}) was stored over ${older.id} (token ${older.input.token})`);
      }
    }
    for (const w of chain) if (refused(w)) violation('refused-but-stored', key, `${w.id} was refused (token ${w.input.token}) but its element is stored`);

    for (const w of kw) {
      if (w.status !== 'ok' || onChain.has(w.input.elem)) continue;
      const until = Math.min(Math.max(w.input.trustedUntil, trustAt(w.input.leaseId, w.complete)), grantEnd(w));
      const lost: LostWrite = { key, elem: w.input.elem, process: w.process, token: w.input.token, complete: w.complete, trustedUntil: until };
      if (w.complete <= until) {
        res.lostAcknowledged.push(lost);
        if (store === 'fence')
          violation(
            'lost-acknowledged-write',
            key,
            `${w.id} (token ${w.input.token}) was acknowledged at ${w.complete.toFixed(1)} ms, within its lease trust (until ${until.toFixed(1)} ms), but is not in the final value`,
          );
      } else res.staleWindowLosses.push(lost);
    }

    if (store !== 'fence') continue;
    // Real time: an acknowledged write's token is at least that of every write acknowledged before it began.
    const acked = kw.filter((w) => w.status === 'ok');
    const byComplete = [...acked].sort((a, b) => a.complete - b.complete);
    const byInvoke = [...acked].sort((a, b) => a.invoke - b.invoke);
    let j = 0;
    let maxBefore = -1;
    let maxOp: OpOf<'write'> | undefined;
    for (const w of byInvoke) {
      while (j < byComplete.length && byComplete[j].complete < w.invoke) {
        if (byComplete[j].input.token > maxBefore) {
          maxBefore = byComplete[j].input.token;
          maxOp = byComplete[j];
        }
        j++;
      }
      if (w.input.token < maxBefore)
        violation('accepted-lower-token', key, `${w.id} was accepted with token ${w.input.token} after ${maxOp!.id} had been accepted with token ${maxBefore}`);
    }
    // A refusal needs a higher token that could have been written before the refusal.
    for (const w of kw) {
      if (!refused(w)) continue;
      const excuse = kw.some((o) => o !== w && o.status !== 'fail' && o.input.token > w.input.token && o.invoke < w.complete);
      if (!excuse) violation('refused-current-token', key, `${w.id} was refused with token ${w.input.token}, yet no higher token was written before`);
    }
  }
  return res;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}
