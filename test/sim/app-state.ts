// The application each simulated node runs on top of Raft: it "applies" entries by folding their data into a
// running hash of the applied sequence. Two nodes with equal (index, digest) applied the same sequence, so
// State Machine Safety is an O(1) comparison per entry, and a snapshot is a few bytes. With the lock app the
// snapshot also carries the lock state machine's bytes after the hash-chain state (encodeAppSnapshot).

export interface AppState {
  /** Log index of the last applied entry (no-ops included). */
  readonly index: number;
  /** Client entries applied (no-ops excluded). */
  readonly count: number;
  readonly h1: number;
  readonly h2: number;
}

export const INITIAL_APP_STATE: AppState = { index: 0, count: 0, h1: 0x811c9dc5, h2: 0x9747b28c };

/** Entry data as text (client payloads are short ASCII strings; a no-op is ""). */
export function dataText(data: Uint8Array): string {
  return data.length === 0 ? '' : String.fromCharCode.apply(null, data as unknown as number[]);
}

export function textData(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

export function applyEntry(state: AppState, index: number, data: string): AppState {
  let h1 = Math.imul(state.h1 ^ index, 0x01000193);
  let h2 = Math.imul(state.h2 ^ index, 0x5bd1e995);
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  return { index, count: state.count + (data === '' ? 0 : 1), h1: h1 >>> 0, h2: h2 >>> 0 };
}

export function sameApp(a: AppState, b: AppState): boolean {
  return a.index === b.index && a.count === b.count && a.h1 === b.h1 && a.h2 === b.h2;
}

export function encodeApp(s: AppState): Uint8Array {
  return textData(`${s.index} ${s.count} ${s.h1} ${s.h2}`);
}

export function decodeApp(data: Uint8Array): AppState {
  const parts = dataText(data).split(' ').map(Number);
  if (parts.length !== 4 || parts.some((x) => !Number.isInteger(x))) {
    throw new Error(`app: snapshot data is not an app state: ${JSON.stringify(dataText(data))}`);
  }
  const [index, count, h1, h2] = parts;
  return { index, count, h1, h2 };
}

/** Snapshot data: the hash-chain state, then (lock app) a newline and the lock state machine's snapshot bytes. */
export function encodeAppSnapshot(s: AppState, lock: Uint8Array | undefined): Uint8Array {
  const head = encodeApp(s);
  if (!lock) return head;
  const out = new Uint8Array(head.length + 1 + lock.length);
  out.set(head, 0);
  out[head.length] = 0x0a;
  out.set(lock, head.length + 1);
  return out;
}

export function decodeAppSnapshot(data: Uint8Array): { app: AppState; lock: Uint8Array | undefined } {
  const nl = data.indexOf(0x0a);
  if (nl < 0) return { app: decodeApp(data), lock: undefined };
  return { app: decodeApp(data.subarray(0, nl)), lock: data.slice(nl + 1) };
}

export function describeApp(s: AppState): string {
  return `applied ${s.index} (${s.count} client entries, digest ${s.h1.toString(16)}${s.h2.toString(16)})`;
}
