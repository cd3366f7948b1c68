import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection found alive,
 * as a percentage (`server.heap_growth_percent`). Left alone, V8 grows it up to 4 × for a busy
 * process: under load the gateway promotes in-flight requests to the old generation at tens of
 * megabytes a second, so a 55 MB live heap became a 200 MB one and stayed there (RSS 300 MB).
 * Capping growth makes full collections more frequent (mostly concurrent marking) in exchange.
 * 0 keeps V8's own heuristics. The flag is read at every collection, so setting it at start-up
 * takes effect for the whole process.
 */
export function setHeapGrowthPercent(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
