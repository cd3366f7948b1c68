/**
 * V8's `--trace-gc-nvp` lines (one name=value line per collection) summed over a window, for the
 * GC probe (gc-probe.ts): how many scavenges and mark-compacts, and the bytes allocated, surviving a
 * scavenge and promoted to the old generation.
 */
export interface GcEvent {
  /** `s` scavenge, `mc` mark-compact, `mmc` minor mark-sweep (V8's own abbreviations). */
  kind: string;
  pauseMs: number;
  /** Bytes allocated since the previous collection (all spaces). */
  allocated: number;
  /** Bytes moved to the old generation by this collection. */
  promoted: number;
  /** Bytes of the young generation that survived this collection (kept or promoted). */
  survived: number;
}

/** One collection out of a line of `--trace-gc-nvp` output; undefined for any other line. */
export function parseGcNvpLine(line: string): GcEvent | undefined {
  const kind = / gc=(\w+)/.exec(line)?.[1];
  if (!kind) return undefined;
  const number = (name: string) => {
    const match = new RegExp(`(?:^|\\s)${name}=([\\d.]+)`).exec(line);
    return match ? Number(match[1]) : 0;
  };
  return {
    kind,
    pauseMs: number('pause'),
    allocated: number('allocated'),
    promoted: number('promoted'),
    survived: number('new_space_survived'),
  };
}

export interface GcTotals {
  scavenges: number;
  markCompacts: number;
  pauseMs: number;
  allocated: number;
  promoted: number;
  /** Of `promoted`, what scavenges moved (the rest, mark-compacts). */
  promotedByScavenges: number;
  survived: number;
}

export function sumGcEvents(events: readonly GcEvent[]): GcTotals {
  const totals: GcTotals = {
    scavenges: 0,
    markCompacts: 0,
    pauseMs: 0,
    allocated: 0,
    promoted: 0,
    promotedByScavenges: 0,
    survived: 0,
  };
  for (const event of events) {
    if (event.kind === 's') {
      totals.scavenges += 1;
      totals.promotedByScavenges += event.promoted;
    } else if (event.kind === 'mc') totals.markCompacts += 1;
    totals.pauseMs += event.pauseMs;
    totals.allocated += event.allocated;
    totals.promoted += event.promoted;
    totals.survived += event.survived;
  }
  return totals;
}
