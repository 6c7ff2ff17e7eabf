// About how many bytes an ObservedEvent takes as JSON, without serializing it (the bus sizes every
// event it publishes; serializing a Tick of 20,000 renewals costs ~3 ms). Events are flat records
// of strings, numbers, booleans and arrays of numbers, booleans or strings (observed-events.ts), so a walk of the fields is
// enough: a number counts NUMBER_BYTES (lease ids, indexes and deadlines have 5 to 13 digits, plus
// a comma), a string its length plus quotes, every field its name. An estimate for bounding memory,
// not an exact length: a string of escapes is counted short.
import type { ObservedEvent } from './observed-events.js';

const NUMBER_BYTES = 12;

export function approxEventBytes(ev: ObservedEvent): number {
  let bytes = 2;
  for (const [k, v] of Object.entries(ev)) {
    bytes += k.length + 4;
    if (typeof v === 'string') bytes += v.length + 2;
    else if (Array.isArray(v)) bytes += typeof v[0] === 'string' ? 2 + (v as string[]).reduce((n, x) => n + x.length + 3, 0) : 2 + v.length * NUMBER_BYTES;
    else bytes += NUMBER_BYTES; // a number or a boolean
  }
  return bytes;
}
