// LevelDB key layout. Entries sort by index: fixed-width, zero-padded lowercase hex after "e:".
// Metadata keys live under "m:", which sorts apart from the entries.

export const IDENTITY_KEY = 'm:identity';
export const HARD_STATE_KEY = 'm:hardstate';
export const SNAPSHOT_KEY = 'm:snapshot';
/** The cluster configuration (the voter ids) this data dir was made for. */
export const CONFIG_KEY = 'm:config';
/** Members' addresses as this node last knew them (membership changes add members --peers may not name). */
export const PEERS_KEY = 'm:peers';
/** The last --force-new-cluster this data dir went through (force-new-cluster.ts): it is one-shot. */
export const FORCED_KEY = 'm:forced';

const ENTRY_PREFIX = 'e:';
const INDEX_WIDTH = 16;

/** Bounds covering every entry key and nothing else (';' is the character after ':'). */
export const ENTRY_RANGE = { gte: ENTRY_PREFIX, lt: 'e;' } as const;

export function entryKey(index: number): string {
  if (!Number.isSafeInteger(index) || index < 1) throw new Error(`entry index must be a positive safe integer, got ${index}`);
  return ENTRY_PREFIX + index.toString(16).padStart(INDEX_WIDTH, '0');
}

/** The index in an entry key, or undefined if the key is not a well-formed entry key. */
export function parseEntryKey(key: string): number | undefined {
  const hex = key.slice(ENTRY_PREFIX.length);
  if (!key.startsWith(ENTRY_PREFIX) || !/^[0-9a-f]{16}$/.test(hex)) return undefined;
  const index = Number.parseInt(hex, 16);
  return Number.isSafeInteger(index) && index >= 1 ? index : undefined;
}
