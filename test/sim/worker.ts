// A pool worker: runs the seeds it is sent and posts one report per seed.
import { parentPort } from 'node:worker_threads';
import { runSim } from './runner.js';
import type { Job, WorkerReply } from './pool.js';

const port = parentPort;
if (!port) throw new Error('sim worker: must run in a worker thread');
port.on('message', (job: Job) => {
  for (const seed of job.seeds) {
    const reply: WorkerReply = { report: runSim({ ...job.opts, seed }) };
    port.postMessage(reply);
  }
  port.postMessage({ idle: true } satisfies WorkerReply);
});
