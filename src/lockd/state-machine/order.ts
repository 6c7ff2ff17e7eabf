// One total order for strings (UTF-16 code units), used wherever iteration order reaches output or bytes.

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortedNames(names: Iterable<string>): string[] {
  return [...names].sort(compareStrings);
}
