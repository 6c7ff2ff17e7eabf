// Types of import-map.js (the map of src/ as data), for the TypeScript test that reads it.
export interface ImportMapRow {
  readonly path: string;
  readonly pure?: boolean;
  readonly may: readonly string[];
}
export declare const ROOT: string;
export declare const IMPORT_MAP: readonly ImportMapRow[];
export declare function covers(entry: string, file: string): boolean;
export declare function rowOf(file: string): ImportMapRow | undefined;
export declare function importTarget(from: string, specifier: string): string | undefined;
export declare function importProblem(from: string, specifier: string): string | undefined;
export declare function rowsReached(entry: string): ImportMapRow[];
export declare function cycles(graph: ReadonlyMap<string, Iterable<string>>): string[][];
export declare function tableGraph(): Map<string, Set<string>>;
export declare function pureFiles(): string[];
export declare const importMapPlugin: { rules: Record<string, unknown> };
