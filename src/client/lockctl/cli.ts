// lockctl's driver: parse, connect, dispatch, map failures to exit statuses.
import { LockdError } from '../errors.js';
import { LockClient } from '../lock-client.js';
import { parseCommandLine, usageLine, usageText, UsageError, type Parsed } from './args.js';
import * as cmd from './actions.js';
import { EXIT } from './exit-codes.js';
import { Output } from './output.js';
import { runCommand } from './run.js';
import { tlsHint } from './tls-hint.js';
import { snapshotSave } from './snapshot-commands.js';
import { loadDemoTool, loadLogDumpTool, loadSnapshotStatusTool, loadVersionText, type ToolIo } from './tools.js';

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  /** Aborts (reason: the signal's name) when the process is asked to stop. */
  readonly interrupted: AbortSignal;
}

function dispatch(ctx: cmd.Context): Promise<number> {
  switch (ctx.p.spec.path.join(' ')) {
    case 'status':
      return cmd.status(ctx);
    case 'leader transfer':
      return cmd.leaderTransfer(ctx);
    case 'lease grant':
      return cmd.leaseGrant(ctx);
    case 'lease keepalive':
      return cmd.leaseKeepAlive(ctx);
    case 'lease revoke':
      return cmd.leaseRevoke(ctx);
    case 'lease ttl':
      return cmd.leaseTtl(ctx);
    case 'lease list':
      return cmd.leaseList(ctx);
    case 'lock acquire':
      return cmd.lockAcquire(ctx, ctx.p.flags.wait);
    case 'lock try':
      return cmd.lockAcquire(ctx, false);
    case 'lock release':
      return cmd.lockRelease(ctx);
    case 'lock inspect':
      return cmd.lockInspect(ctx);
    case 'lock observe':
      return cmd.lockObserve(ctx);
    case 'lock set-permits':
      return cmd.lockSetPermits(ctx);
    case 'fence write':
      return cmd.fenceWrite(ctx);
    case 'fence delete':
      return cmd.fenceDelete(ctx);
    case 'fence read':
      return cmd.fenceRead(ctx);
    case 'elect':
      return cmd.elect(ctx);
    case 'acl grant':
      return cmd.aclChange(ctx, 'grant');
    case 'acl revoke':
      return cmd.aclChange(ctx, 'revoke');
    case 'acl list':
      return cmd.aclList(ctx);
    case 'acl quota':
      return cmd.aclQuota(ctx);
    case 'run':
      return runCommand(ctx);
    case 'member list':
      return cmd.memberList(ctx);
    case 'member add':
      return cmd.memberAdd(ctx);
    case 'member promote':
      return cmd.memberChange(ctx, 'promote');
    case 'member remove':
      return cmd.memberChange(ctx, 'remove');
    case 'snapshot save':
      return snapshotSave(ctx);
    default:
      throw new Error(`no handler for ${ctx.p.spec.path.join(' ')}`);
  }
}

/**
 * How long lockctl may take to stop once interrupted before it is made to: `run` waits for its
 * command (which got the signal too) and then releases; `demo` undoes its faults (resumes, heals,
 * restarts nodes); other commands stop within a second.
 */
export function interruptGraceMs(argv: readonly string[]): number {
  try {
    const command = parseCommandLine(argv, {}).spec.path[0];
    return command === 'run' ? Infinity : command === 'demo' ? 30_000 : 1000;
  } catch {
    return 0;
  }
}

/** Run lockctl with argv (no node/script); resolves with the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === 'version')) {
    io.stdout.write(await loadVersionText());
    return EXIT.OK;
  }
  let p: Parsed;
  try {
    p = parseCommandLine(argv, io.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message === '') {
      io.stdout.write(`${usageText()}\n`);
      return argv.includes('--help') || argv.includes('-h') ? EXIT.OK : EXIT.USAGE;
    }
    io.stderr.write(`lockctl: ${e.message}\nusage: ${e.usage ?? 'lockctl [global flags] COMMAND ... (lockctl --help)'}\n`);
    return EXIT.USAGE;
  }
  const tool = runTool(p, io);
  if (tool) return tool;
  const out = new Output(p.json, io.stdout as never, io.stderr as never);
  let client: LockClient;
  try {
    client = new LockClient({ endpoints: p.endpoints, ...p.tls, ...(p.timeoutMs === undefined ? {} : { timeoutMs: p.timeoutMs }) });
  } catch (e) {
    io.stderr.write(`lockctl: ${(e as Error).message}\n`); // an unreadable TLS file
    return EXIT.USAGE;
  }
  try {
    const code = await dispatch({ client, p, out, interrupted: io.interrupted });
    if (code !== EXIT.OK && p.spec.path[0] === 'status') await hintTls(p, out, io.env);
    return code;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`lockctl: ${e.message}\nusage: ${e.usage ?? usageLine(p.spec)}\n`);
      return EXIT.USAGE;
    }
    out.error(e);
    const code = e instanceof LockdError ? e.codeName : '';
    if (code === 'UNAVAILABLE' || code === 'DEADLINE_EXCEEDED') await hintTls(p, out, io.env);
    return EXIT.ERROR;
  } finally {
    client.close();
  }
}

/** A plaintext call that reached no node: say so if the endpoints speak TLS (tls-hint.ts). */
async function hintTls(p: Parsed, out: Output, env: NodeJS.ProcessEnv): Promise<void> {
  if (p.tls) return;
  const hint = await tlsHint(p.endpoints, env, process.cwd());
  if (hint) out.note(hint);
}

/** `demo`, `log dump` and `snapshot status` are tools outside src/client (tools.ts): they need no LockClient of lockctl's. */
function runTool(p: Parsed, io: CliIo): Promise<number> | undefined {
  const command = p.spec.path.join(' ');
  if (command !== 'demo' && command !== 'log dump' && command !== 'snapshot status') return undefined;
  const toolIo: ToolIo = { ...io, json: p.json, ...(p.tls ? { tls: p.tls as ToolIo['tls'] } : {}) };
  if (command === 'snapshot status') return loadSnapshotStatusTool().then((t) => t.runSnapshotStatus(p.args.FILE, toolIo));
  if (command === 'demo') {
    const { dashboard, storyPort, stepMs } = p.flags;
    if (!dashboard && (storyPort !== undefined || stepMs !== undefined)) {
      io.stderr.write('lockctl: --story-port and --step apply with --dashboard (story mode)\n');
      return Promise.resolve(EXIT.USAGE);
    }
    const story = dashboard ? { story: { ...(storyPort === undefined ? {} : { port: storyPort }), ...(stepMs === undefined ? {} : { stepMs }) } } : {};
    return loadDemoTool().then((t) => t.runDemo(p.args.NAME, { ...toolIo, ...story }));
  }
  const { dataDir, from, type, exclude, compare, outcomes } = p.flags;
  return loadLogDumpTool().then((t) =>
    t.runLogDump(
      {
        dataDir: dataDir!,
        ...(from === undefined ? {} : { from }),
        ...(type === undefined ? {} : { type }),
        ...(exclude === undefined ? {} : { exclude }),
        ...(compare === undefined ? {} : { compare }),
        ...(outcomes ? { outcomes } : {}),
      },
      toolIo,
    ),
  );
}
