// lockctl commands implemented outside src/client: `demo` (drives a cluster.sh cluster's faults),
// `log dump` (reads a stopped node's data dir through src/lockd/storage) and `snapshot status`
// (checks a backup file as lockd restore would). src/client speaks only
// the public contract and must not import src/lockd, so they are loaded by path at run time from
// src/lockd/tools/ next to this build (dist/ or, through tsx, src/), and only when asked for.

/** What a tool gets from lockctl. */
export interface ToolIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  readonly interrupted: AbortSignal;
  readonly json: boolean;
  /** TLS files from lockctl's flags (paths), if any. */
  readonly tls?: { readonly cacert?: string; readonly cert?: string; readonly key?: string };
  /** `demo --dashboard`: story mode (the story's port, the pause after each step). */
  readonly story?: { readonly port?: number; readonly stepMs?: number };
}

export interface DemoTool {
  runDemo(name: string, io: ToolIo): Promise<number>;
}

export interface SnapshotStatusTool {
  runSnapshotStatus(file: string, io: ToolIo): Promise<number>;
}

export interface LogDumpTool {
  runLogDump(opts: { dataDir: string; from?: number; type?: string; exclude?: string; compare?: string; outcomes?: boolean }, io: ToolIo): Promise<number>;
}

function toolUrl(file: string): string {
  // This file is src/client/lockctl/tools.(ts|js); the tools are src/lockd/tools/.
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`../../lockd/tools/${file}.${ext}`, import.meta.url).href;
}

export async function loadDemoTool(): Promise<DemoTool> {
  return (await import(toolUrl('demo/run-demo'))) as DemoTool;
}

export async function loadLogDumpTool(): Promise<LogDumpTool> {
  return (await import(toolUrl('log-dump/run-log-dump'))) as LogDumpTool;
}

/** `lockctl --version`: the build's version text (src/lockd/node/versions.ts, next to this build as the tools are). */
export async function loadVersionText(): Promise<string> {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const m = (await import(new URL(`../../lockd/node/versions.${ext}`, import.meta.url).href)) as { versionText(program: 'lockctl'): string };
  return m.versionText('lockctl');
}

export async function loadSnapshotStatusTool(): Promise<SnapshotStatusTool> {
  return (await import(toolUrl('backup/snapshot-status'))) as SnapshotStatusTool;
}
