// CPU time of a process from /proc/PID/stat (Linux): utime + stime, in milliseconds.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

let clockTicks: number | undefined;

function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of `pid` in ms; throws if the process is gone. */
export function cpuTimeMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`cannot parse /proc/${pid}/stat`);
  return ((utime + stime) * 1000) / ticksPerSecond();
}

/** Measures a process's CPU use over an interval, as % of one core. */
export class CpuMeter {
  private readonly t0 = performance.now();
  private readonly c0: number;

  constructor(private readonly pid: number) {
    this.c0 = cpuTimeMs(pid);
  }

  percent(): number {
    const wall = performance.now() - this.t0;
    return wall > 0 ? ((cpuTimeMs(this.pid) - this.c0) * 100) / wall : NaN;
  }
}

/** The processes competing for the machine now (a rough noise figure for the report). */
export function loadAverage(): number[] {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
}
