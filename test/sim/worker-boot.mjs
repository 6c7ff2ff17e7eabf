// Worker threads do not inherit tsx's loader from the parent, so register it here, then load the .ts entry.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
