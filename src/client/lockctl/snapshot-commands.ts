// lockctl snapshot save FILE: a backup from the leader (LockClient.saveSnapshot). `snapshot status`
// is a tool outside src/client (tools.ts): it checks the file as lockd restore would.
import { EXIT } from './exit-codes.js';
import type { Context } from './actions.js';

export async function snapshotSave(ctx: Context): Promise<number> {
  const file = ctx.p.args.FILE;
  const saved = await ctx.client.saveSnapshot(file, { ...(ctx.p.timeoutMs === undefined ? {} : { timeoutMs: ctx.p.timeoutMs }), signal: ctx.interrupted });
  const i = saved.info;
  ctx.out.result(
    [
      `saved a backup of index ${i.index} (term ${i.term}) from leader ${i.leaderId} to ${file}: ${saved.bytes} bytes, sha256 ${saved.sha256.slice(0, 16)}…`,
      `  voters ${i.voters.join(', ')}${i.learners.length ? `; learners ${i.learners.join(', ')}` : ''}; ${i.leases} leases, ${i.locks} locks, ${i.fencedKeys} fenced keys, ${i.aclRules} access rules (logical now ${i.logicalNowMs} ms)`,
    ],
    { file, bytes: saved.bytes, sha256: saved.sha256, ...i },
  );
  return EXIT.OK;
}
