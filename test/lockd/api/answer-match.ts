// How the API property tests compare an answer with what their model expects (api-runner.ts,
// recipe-runner.ts): the expectation is the answer's shape with exact values, except where the
// server chooses — a Fresh symbol (a new lease id or token, bound on first sight) or a Range.

import { tokenIndex } from '../../../src/lockd/state-machine/token.js';

/** A value the server chooses (lease id, token): unseen before, one per symbol; `cls` names what it must exceed (e.g. the tokens of one lock), else every id and token seen. */
export interface Fresh {
  readonly fresh: string;
  readonly cls?: string;
}
/** A number the server may choose within bounds (a lock-delay's remaining time). */
export interface Range {
  readonly min: number;
  readonly max: number;
}
export type Val = number | Fresh;
export const isFresh = (v: unknown): v is Fresh => typeof v === 'object' && v !== null && 'fresh' in v;
export const isRange = (v: unknown): v is Range => typeof v === 'object' && v !== null && 'min' in v && 'max' in v;

/** The model's symbol table: a bound symbol's value, and binding a new one. */
export interface Symbols {
  val(v: Val): number | undefined;
  /** `index`: the log entry the value names (a lease id is its Grant's index; a token, its granting entry's). */
  bind(sym: string, value: number, index: number): void;
}

/** A token field (fencingToken, endedFencingToken, highestToken, token); else a lease id field. */
const isTokenField = (path: string): boolean => /token$/i.test(path.slice(path.lastIndexOf('.') + 1));

/**
 * Where `got` differs from `want` (undefined: it matches), binding fresh values on the way: an
 * unbound Fresh matches a value made by an entry after `floor` (the highest entry index any id or
 * token seen so far names) and binds it. A lease id is its Grant's index, so it must exceed the
 * floor; a token is its granting entry's index × 1024 + ordinal, so its tokenIndex must. Several
 * fresh values of one answer may share an entry (one entry grants several locks, or several holders).
 */
export function matchAnswer(m: Symbols, want: unknown, got: unknown, floor: number | ((f: Fresh) => number), path: string): string | undefined {
  if (isFresh(want)) {
    const v = m.val(want);
    if (v !== undefined) return got === v ? undefined : path;
    const token = isTokenField(path);
    if (typeof got !== 'number' || !Number.isSafeInteger(got)) return `${path} (a new ${token ? 'token' : 'lease id'})`;
    // A per-class floor (the recipe model: lease ids apart from each lock's tokens) compares values.
    if (typeof floor !== 'number') {
      const min = floor(want);
      if (!(got > min)) return `${path} (a new id or token above ${min})`;
      m.bind(want.fresh, got, token ? tokenIndex(got) : got);
      return undefined;
    }
    const index = token ? tokenIndex(got) : got;
    if (!(index > floor)) return `${path} (a new ${token ? 'token, of an entry' : 'lease id'} above entry ${floor})`;
    m.bind(want.fresh, got, index);
    return undefined;
  }
  if (isRange(want)) return typeof got === 'number' && got >= want.min && got <= want.max ? undefined : `${path} (in ${want.min}..${want.max})`;
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return path;
    for (let i = 0; i < want.length; i++) {
      const d = matchAnswer(m, want[i], got[i], floor, `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (typeof want === 'object' && want !== null) {
    if (typeof got !== 'object' || got === null) return path;
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const d = matchAnswer(m, (want as Record<string, unknown>)[k], (got as Record<string, unknown>)[k], floor, `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  return want === got ? undefined : path;
}
