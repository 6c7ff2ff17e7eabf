// Main-thread cost of one LevelDB write as LevelStorage.persist makes it (an entry and the hard
// state, unsynced so the disk does not dominate): abstract-level's public batch() against the
// implementation's _batch() that storage/db.ts writeBatch calls. Prints the synchronous part of each
// call in ns (until it returns its promise: validation, op cloning, the native WriteBatch build and
// the hand-off to the thread pool), the median of 5 interleaved runs of 10,000 writes.
//   npx tsx scripts/level-batch-bench.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BatchOp, openLevel, writeBatch } from '../src/lockd/storage/db.js';

const dir = mkdtempSync(join(tmpdir(), 'lockd-level-bench-'));
const db = openLevel(dir);
await db.open();
const value = Buffer.alloc(90, 1);
const hardState = Buffer.alloc(40, 2);
let index = 0;
const ops = (): BatchOp[] => {
  index++;
  return [
    { type: 'put', key: `e:${index.toString(16).padStart(16, '0')}`, value },
    { type: 'put', key: 'm:hardstate', value: hardState },
  ];
};
async function run(write: (o: BatchOp[]) => Promise<void>, n = 10_000): Promise<number> {
  let ns = 0n;
  for (let k = 0; k < n; k++) {
    const o = ops();
    const t = process.hrtime.bigint();
    const p = write(o);
    ns += process.hrtime.bigint() - t;
    await p;
  }
  return Number(ns / BigInt(n));
}
const pub: number[] = [];
const impl: number[] = [];
for (let r = 0; r < 5; r++) {
  pub.push(await run((o) => db.batch(o, { sync: false })));
  impl.push(await run((o) => writeBatch(db, o, false)));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[2];
console.log(`db.batch(): median ${median(pub)} ns (${pub.join(', ')}); writeBatch(): median ${median(impl)} ns (${impl.join(', ')})`);
await db.close();
rmSync(dir, { recursive: true, force: true });
