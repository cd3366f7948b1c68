import { describe, expect, it } from 'vitest';
import { summarizeProfileWindows, type CpuProfile } from './tail-profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 9 });

// Samples every 100 µs from t = 1,000: idle, idle, GC, f, f, g, idle, f.
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(idle)') },
    { id: 2, callFrame: frame('(garbage collector)') },
    { id: 3, callFrame: frame('handle', 'file:///app/dist/http/route.js') },
    { id: 4, callFrame: frame('', 'file:///app/dist/metering/settle.js') },
  ],
  startTime: 900,
  samples: [1, 1, 2, 3, 3, 4, 1, 3],
  timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100],
};

describe('summarizeProfileWindows', () => {
  it('splits a window into idle, collector and busy time, the busy time by leaf frame', () => {
    const [window] = summarizeProfileWindows(PROFILE, [{ start: 1_150, end: 1_650 }]);
    // Samples at 1,200 (GC), 1,300 and 1,400 (handle), 1,500 (anonymous), 1,600 (idle), 100 µs each.
    expect(window).toEqual({
      idleMicros: 100,
      gcMicros: 100,
      busyMicros: 300,
      top: ['handle http/route.js:10 200', '(anonymous) metering/settle.js:10 100'],
    });
  });

  it('gives an empty summary for a window with no samples, and one per window in order', () => {
    const summaries = summarizeProfileWindows(PROFILE, [
      { start: 5_000, end: 6_000 },
      { start: 1_000, end: 1_150 },
    ]);
    expect(summaries[0]).toEqual({ idleMicros: 0, gcMicros: 0, busyMicros: 0, top: [] });
    expect(summaries[1]).toMatchObject({ idleMicros: 200, busyMicros: 0 });
  });
});
