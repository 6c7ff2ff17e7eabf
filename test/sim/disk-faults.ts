// The disk's faults a simulated node draws for its run (its own stream, so the rest of the world's draws do
// not depend on them): torn writes on a power cut, bit flips at rest, writes failing with EIO/ENOSPC. None
// strikes once the run is calm (SimNode.disarm), so the final liveness checks see a healthy disk.

import type { Prng } from './prng.js';
import type { WriteErrorCode } from './sim-kv.js';

export interface DiskFaults {
  /** Chance that a power cut tears the first write it loses onto the disk. */
  readonly tornWrite: number;
  /** Chance, per start, that one bit of one stored value flipped while the node was down. */
  readonly bitFlip: number;
  /** Chance, per write, that it fails (EIO or ENOSPC): nothing written, the node stops (swarm schedule only: NodeSettings.writeErrors). */
  readonly writeError: number;
}

export function drawDiskFaults(prng: Prng): DiskFaults {
  return {
    tornWrite: prng.pick([0.5, 1]),
    bitFlip: prng.pick([0.2, 0.4, 0.7]),
    writeError: prng.pick([0, 0.0005, 0.002]),
  };
}

export function drawWriteError(prng: Prng, f: DiskFaults): WriteErrorCode | undefined {
  if (f.writeError === 0 || !prng.chance(f.writeError)) return undefined;
  return prng.chance(0.5) ? 'EIO' : 'ENOSPC';
}
