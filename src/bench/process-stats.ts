import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessStats {
  /** User + system CPU time of the whole process (all threads), in microseconds. */
  cpuMicros: number;
  rssBytes: number;
}

let ticksPerSecond: number | undefined;

/** Kernel clock ticks per second (the unit of utime/stime in /proc/<pid>/stat); 100 on Linux in practice. */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** Parses the text of /proc/<pid>/stat: utime and stime, in clock ticks. */
export function parseProcStat(text: string): { userTicks: number; systemTicks: number } {
  // The command name (field 2) is in parentheses and may itself contain spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so utime (field 14) is fields[11] and stime (field 15) fields[12].
  return { userTicks: Number(fields[11]), systemTicks: Number(fields[12]) };
}

/** Parses VmRSS out of /proc/<pid>/status, in bytes. */
export function parseProcStatusRss(text: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(text);
  if (!match) throw new Error('no VmRSS line in /proc/<pid>/status');
  return Number(match[1]) * 1024;
}

/**
 * The kernel's own accounting of another process (Linux /proc): the same CPU time
 * process.cpuUsage() would report inside it, read from outside so it works for any gateway,
 * ours or not, without asking it anything.
 */
export function readProcessStats(pid: number): ProcessStats {
  const { userTicks, systemTicks } = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const rssBytes = parseProcStatusRss(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMicros: ((userTicks + systemTicks) * 1_000_000) / clockTicksPerSecond(), rssBytes };
}
