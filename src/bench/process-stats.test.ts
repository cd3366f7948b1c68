import { describe, expect, it } from 'vitest';
import { parseProcStat, parseProcStatusRss, readProcessStats } from './process-stats.js';

describe('process stats from /proc', () => {
  it('reads utime and stime even when the command name holds spaces and parentheses', () => {
    const text =
      '4242 (node (gate) way) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 11 0 100 1000000 5000 18446744073709551615';
    expect(parseProcStat(text)).toEqual({ userTicks: 1234, systemTicks: 567 });
  });

  it('reads VmRSS in bytes', () => {
    expect(parseProcStatusRss('Name:\tnode\nVmPeak:\t  900 kB\nVmRSS:\t   51200 kB\nThreads:\t11\n')).toBe(
      51200 * 1024,
    );
    expect(() => parseProcStatusRss('Name:\tnode\n')).toThrow(/VmRSS/);
  });

  it('grows with the CPU this process burns', () => {
    const before = readProcessStats(process.pid);
    const until = Date.now() + 120;
    let spin = 0;
    while (Date.now() < until) spin += Math.sqrt(spin + 1);
    const after = readProcessStats(process.pid);
    expect(after.cpuMicros).toBeGreaterThan(before.cpuMicros);
    expect(after.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
  });
});
