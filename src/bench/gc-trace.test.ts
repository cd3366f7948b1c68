import { describe, expect, it } from 'vitest';
import { parseGcNvpLine, sumGcEvents } from './gc-trace.js';

// Shortened lines of Node 24's `--trace-gc-nvp` (the real ones carry ~60 more fields).
const SCAVENGE =
  '[8820:0xe4a6000:0]       33 ms: pause=0.6 mutator=2.0 gc=s reduce_memory=0 scavenge=0.60 ' +
  'start_object_size=4980584 allocated=782880 promoted=88208 quarantined_size=0 ' +
  'new_space_survived=203656 nodes_promoted=2 promotion_ratio=8.4% new_space_capacity=1048576';
const MARK_COMPACT =
  '[8820:0xe4a6000:0]      120 ms: pause=84.4 mutator=30.1 gc=mc reduce_memory=0 mark=71.4 ' +
  'allocated=105638944 promoted=10434944 new_space_survived=0 nodes_promoted=0';

describe('parseGcNvpLine', () => {
  it('reads the kind, the pause and the byte counts of a scavenge', () => {
    expect(parseGcNvpLine(SCAVENGE)).toEqual({
      kind: 's',
      pauseMs: 0.6,
      allocated: 782_880,
      promoted: 88_208,
      survived: 203_656,
    });
  });

  it('does not take nodes_promoted or start_object_size for the fields they end with', () => {
    const line = '[1:0x1:0] 5 ms: pause=1.0 gc=s nodes_promoted=7 x_allocated=9 allocated=10 promoted=3';
    expect(parseGcNvpLine(line)).toMatchObject({ allocated: 10, promoted: 3, survived: 0 });
  });

  it('ignores lines that are not a collection', () => {
    expect(parseGcNvpLine('{"level":30,"msg":"request completed"}')).toBeUndefined();
    expect(parseGcNvpLine('')).toBeUndefined();
  });
});

describe('sumGcEvents', () => {
  it('counts scavenges and mark-compacts apart and sums the bytes of both', () => {
    const events = [SCAVENGE, SCAVENGE, MARK_COMPACT].map((line) => parseGcNvpLine(line)!);
    expect(sumGcEvents(events)).toEqual({
      scavenges: 2,
      markCompacts: 1,
      pauseMs: 0.6 + 0.6 + 84.4,
      allocated: 2 * 782_880 + 105_638_944,
      promoted: 2 * 88_208 + 10_434_944,
      promotedByScavenges: 2 * 88_208,
      survived: 2 * 203_656,
    });
  });
});
