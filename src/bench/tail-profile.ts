/**
 * What a V8 CPU profile (`--cpu-prof`) says the main thread did inside given windows of time (µs
 * on the machine's monotonic clock, as the profile's own times): the tail probe's attribution of a
 * slow request. Samples are grouped by their leaf frame: "(idle)" is the thread waiting for work,
 * "(garbage collector)" V8's collector, "(program)" native work outside JavaScript, and any other a
 * function (name and file) that was running.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileWindowSummary {
  /** Sampled µs in the window that the thread was idle (waiting on I/O or timers). */
  idleMicros: number;
  /** Sampled µs in V8's garbage collector. */
  gcMicros: number;
  /** Sampled µs running anything else. */
  busyMicros: number;
  /** The largest leaf frames of the busy time, "name file:line µs". */
  top: string[];
}

function frameLabel(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.split('/').slice(-2).join('/');
  return file ? `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}` : functionName;
}

export function summarizeProfileWindows(
  profile: CpuProfile,
  windows: { start: number; end: number }[],
): ProfileWindowSummary[] {
  const labels = new Map(profile.nodes.map((node) => [node.id, frameLabel(node)]));
  // Each sample's time, and the span it stands for (until the next sample).
  const times: number[] = [];
  let time = profile.startTime;
  for (const delta of profile.timeDeltas) {
    time += delta;
    times.push(time);
  }
  return windows.map(({ start, end }) => {
    const byLabel = new Map<string, number>();
    let idleMicros = 0;
    let gcMicros = 0;
    let busyMicros = 0;
    // Samples are in time order: find the first one in the window by bisection.
    let low = 0;
    let high = times.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (times[middle]! < start) low = middle + 1;
      else high = middle;
    }
    for (let index = low; index < times.length && times[index]! < end; index++) {
      const span = (times[index + 1] ?? times[index]!) - times[index]!;
      const label = labels.get(profile.samples[index]!) ?? '?';
      if (label === '(idle)') idleMicros += span;
      else if (label === '(garbage collector)') gcMicros += span;
      else {
        busyMicros += span;
        byLabel.set(label, (byLabel.get(label) ?? 0) + span);
      }
    }
    const top = [...byLabel.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([label, micros]) => `${label} ${Math.round(micros)}`);
    return { idleMicros, gcMicros, busyMicros, top };
  });
}
