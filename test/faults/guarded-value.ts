// The guarded value the workload read-modify-writes: an append-only list, stored as its length and
// its last TAIL elements (the fenced store caps a value at 64 KiB, so the full list cannot ride
// along). Each element names its writer and token: "<process>.<seq>@<token>". The whole list is
// recovered from the history: every write records the element it appends and the last element of
// the value it read (its predecessor), so the stored value names a chain back to the empty list.

export const TAIL = 32;

export interface GuardedValue {
  readonly n: number;
  readonly tail: readonly string[];
}

export const EMPTY: GuardedValue = { n: 0, tail: [] };

export function element(process: string, seq: number, token: number): string {
  return `${process}.${seq}@${token}`;
}

export function tokenOf(elem: string): number {
  const at = elem.lastIndexOf('@');
  const t = Number(elem.slice(at + 1));
  if (at < 0 || !Number.isInteger(t)) throw new Error(`guarded value: bad element ${JSON.stringify(elem)}`);
  return t;
}

export function lastOf(v: GuardedValue): string {
  return v.tail.length ? v.tail[v.tail.length - 1] : '';
}

export function append(v: GuardedValue, elem: string): GuardedValue {
  return { n: v.n + 1, tail: [...v.tail, elem].slice(-TAIL) };
}

export function encode(v: GuardedValue): Buffer {
  return Buffer.from(JSON.stringify(v));
}

/** Bytes from a store → value; empty bytes are the empty list. Anything else malformed is an error. */
export function decode(bytes: Uint8Array): GuardedValue {
  if (bytes.length === 0) return EMPTY;
  const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as GuardedValue;
  if (!Number.isInteger(v.n) || !Array.isArray(v.tail) || v.tail.length > Math.min(v.n, TAIL) || v.tail.some((e) => typeof e !== 'string'))
    throw new Error(`guarded value: malformed ${Buffer.from(bytes).toString('utf8').slice(0, 200)}`);
  if (v.n > 0 && v.tail.length !== Math.min(v.n, TAIL)) throw new Error(`guarded value: ${v.n} elements but a tail of ${v.tail.length}`);
  return v;
}

/** Tokens along the tail never decrease, and the last one is the token the store reports. */
export function ordered(v: GuardedValue, storeToken: number | undefined): boolean {
  for (let i = 1; i < v.tail.length; i++) if (tokenOf(v.tail[i]) < tokenOf(v.tail[i - 1])) return false;
  if (storeToken !== undefined && v.n > 0 && tokenOf(lastOf(v)) !== storeToken) return false;
  return true;
}
