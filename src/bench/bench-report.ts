import type { SaturationResult } from './saturation-load.js';
import type { FixedRateResult } from './fixed-rate-load.js';
import type { FirstTokenResult, OpenStreamsResult } from './stream-probes.js';
import type { OneAtATimeResult } from './one-at-a-time.js';
import type { SustainedRateResult } from './sustained-rate.js';

export interface TargetResult {
  id: string;
  label: string;
  saturation?: SaturationResult;
  streamSaturation?: SaturationResult;
  fixedRate?: FixedRateResult;
  firstToken?: FirstTokenResult;
  openStreams?: OpenStreamsResult | null;
  oneAtATime?: OneAtATimeResult;
  sustainedRate?: SustainedRateResult;
  error?: string;
}

export interface Figure {
  id: string;
  label: string;
  unit: string;
  /** The target as written in the issue, for the table; null when the issue sets none. */
  target: string | null;
  values: Record<string, number | null>;
  /** Whether each of our gateways meets the target (null: no target, not measured, or not ours). */
  met: Record<string, boolean | null>;
  /** Each value as a multiple of the floor's (the smallest Fastify + undici proxy); null where it means nothing. */
  floorRatio: Record<string, number | null>;
}

/** Target ids that are our gateway with metering on (checked against the targets); the others are references. */
const isOurs = (id: string) => id.startsWith('gateway-') && !id.endsWith('-off');
const isPostgres = (id: string) => id.startsWith('gateway-postgres');

const value = (number: number | undefined | null): number | null =>
  number === undefined || number === null || !Number.isFinite(number) ? null : number;

/** Turns raw measurements into the figures the issue asks for, each next to its target. */
export function computeFigures(results: TargetResult[]): Figure[] {
  const byId = new Map(results.map((result) => [result.id, result]));
  const direct = byId.get('direct');
  const portkey = byId.get('portkey');
  const figures: Figure[] = [];

  const add = (
    id: string,
    label: string,
    unit: string,
    target: string | null,
    measure: (result: TargetResult) => number | null,
    /** Some targets differ by store (issue 31): the check is told whose figure it is. */
    check?: (number: number, id: string) => boolean,
  ) => {
    const values: Record<string, number | null> = {};
    const met: Record<string, boolean | null> = {};
    for (const result of results) {
      const measured = result.error ? null : measure(result);
      values[result.id] = measured;
      met[result.id] = isOurs(result.id) && check && measured !== null ? check(measured, result.id) : null;
    }
    const floor = values.floor;
    const floorRatio: Record<string, number | null> = {};
    for (const result of results) {
      const own = values[result.id];
      // Shares and multiples are ratios already; a floor figure of ~0 makes any multiple meaningless.
      floorRatio[result.id] =
        unit !== '%' && unit !== '×' && result.id !== 'floor' && own !== null && floor && floor > 0.001
          ? own / floor
          : null;
    }
    figures.push({ id, label, unit, target, values, met, floorRatio });
  };

  const rps = (result: TargetResult | undefined) => value(result?.saturation?.requestsPerSecond);
  add('throughput', 'Throughput, whole answers, saturated', 'req/s', null, (result) => rps(result));
  add('throughput_vs_direct', 'Throughput as a share of direct', '%', null, (result) => {
    const base = rps(direct);
    const own = rps(result);
    return base && own !== null ? (own / base) * 100 : null;
  });
  add(
    'throughput_vs_floor',
    "Throughput as a multiple of the floor's",
    '×',
    '≥ 0.5 × SQLite, ≥ 0.4 × PG',
    (result) => {
      const base = rps(byId.get('floor'));
      const own = rps(result);
      return base && own !== null && result.id !== 'floor' && result.id !== 'direct' ? own / base : null;
    },
    (number, id) => number >= (isPostgres(id) ? 0.4 : 0.5),
  );
  add(
    'throughput_vs_portkey',
    "Throughput as a multiple of Portkey's",
    '×',
    '≥ 5 ×',
    (result) => {
      const base = rps(portkey);
      const own = rps(result);
      return base && own !== null && result.id !== 'portkey' && result.id !== 'direct' ? own / base : null;
    },
    (number) => number >= 5,
  );
  add('stream_throughput', 'Streams (50 chunks) per second, saturated', 'streams/s', null, (result) =>
    value(result.streamSaturation?.requestsPerSecond),
  );

  const added = (pick: (result: TargetResult) => number | undefined) => (result: TargetResult) => {
    if (result.id === 'direct' || !direct) return null;
    const own = value(pick(result));
    const base = value(pick(direct));
    return own !== null && base !== null ? own - base : null;
  };
  const serial = (result: TargetResult | undefined, pick: (own: OneAtATimeResult) => number) =>
    result?.oneAtATime && !result.error ? value(pick(result.oneAtATime)) : null;
  add('one_at_a_time_added_p50', 'Added latency p50, one request at a time', 'µs', null, (result) =>
    serial(result, (own) => own.addedP50Micros),
  );
  add('one_at_a_time_added_p99', 'Added latency p99, one request at a time', 'µs', null, (result) =>
    serial(result, (own) => own.addedP99Micros),
  );
  add(
    'one_at_a_time_vs_floor',
    "Added latency p50 one at a time, as a multiple of the floor's",
    '×',
    '≤ 2 × SQLite, ≤ 3 × PG',
    (result) => {
      const floor = serial(byId.get('floor'), (own) => own.addedP50Micros);
      const own = serial(result, (own) => own.addedP50Micros);
      return floor && floor > 0 && own !== null && result.id !== 'floor' ? own / floor : null;
    },
    (number, id) => number <= (isPostgres(id) ? 3 : 2),
  );
  add(
    'one_at_a_time_vs_portkey',
    "Added latency p50 one at a time, as a multiple of Portkey's",
    '×',
    '≤ 0.33 ×',
    (result) => {
      const base = serial(portkey, (own) => own.addedP50Micros);
      const own = serial(result, (own) => own.addedP50Micros);
      return base && base > 0 && own !== null && result.id !== 'portkey' ? own / base : null;
    },
    (number) => number <= 1 / 3,
  );
  add(
    'added_latency_p50',
    'Added latency p50 at the fixed rate',
    'ms',
    '≤ 0.6 ms',
    added((result) => result.fixedRate?.latency.p50),
    (number) => number <= 0.6,
  );
  add(
    'added_latency_p99',
    'Added latency p99 at the fixed rate',
    'ms',
    '≤ 5 ms',
    added((result) => result.fixedRate?.latency.p99),
    (number) => number <= 5,
  );
  add('sustained_rate', 'Highest rate with added p99 ≤ 20 ms', 'req/s', null, (result) =>
    value(result.sustainedRate?.highestRate),
  );
  add('cpu_per_request', 'Gateway CPU per whole request', 'µs', null, (result) =>
    value(result.saturation?.cpuMicrosPerRequest),
  );
  add(
    'cpu_vs_floor',
    "Gateway CPU per whole request as a multiple of the floor's",
    '×',
    '≤ 2.5 ×',
    (result) => {
      const floor = value(byId.get('floor')?.saturation?.cpuMicrosPerRequest);
      const own = value(result.saturation?.cpuMicrosPerRequest);
      return floor && own !== null && result.id !== 'floor' && result.id !== 'direct' ? own / floor : null;
    },
    (number) => number <= 2.5,
  );
  add(
    'cpu_metering_on_vs_off',
    'Gateway CPU per whole request, metering on as a multiple of off (same store)',
    '×',
    '≤ 1.5 ×',
    (result) => {
      const off = value(byId.get(`${result.id}-off`)?.saturation?.cpuMicrosPerRequest);
      const own = value(result.saturation?.cpuMicrosPerRequest);
      return isOurs(result.id) && off && own !== null ? own / off : null;
    },
    (number) => number <= 1.5,
  );
  add(
    'cpu_postgres_vs_sqlite',
    'Gateway CPU per whole request, PostgreSQL + Redis as a multiple of SQLite',
    '×',
    '≤ 1.3 ×',
    (result) => {
      const sqlite = value(byId.get('gateway-sqlite')?.saturation?.cpuMicrosPerRequest);
      const own = value(result.saturation?.cpuMicrosPerRequest);
      return result.id === 'gateway-postgres' && sqlite && own !== null ? own / sqlite : null;
    },
    (number) => number <= 1.3,
  );
  const perChunk = (result: TargetResult | undefined) => {
    if (!result || result.error) return null;
    const perStream = value(result.streamSaturation?.cpuMicrosPerRequest);
    // Metering-off targets are not probed for events: a stream has the same events either way.
    const events = (result.firstToken ?? byId.get(result.id.replace(/-off$/, ''))?.firstToken)?.eventsPerStream;
    return perStream !== null && events ? perStream / events : null;
  };
  add('cpu_per_chunk', 'Gateway CPU per streamed chunk (stream CPU ÷ events)', 'µs', null, perChunk);
  add(
    'cpu_per_chunk_vs_floor',
    "Gateway CPU per streamed chunk as a multiple of the floor's",
    '×',
    '≤ 3 ×',
    (result) => {
      const floor = perChunk(byId.get('floor'));
      const own = perChunk(result);
      return floor && own !== null && result.id !== 'floor' && result.id !== 'direct' ? own / floor : null;
    },
    (number) => number <= 3,
  );
  add(
    'added_first_token_p50',
    'Added time to first token p50',
    'ms',
    null,
    added((result) => result.firstToken?.firstToken.p50),
  );
  add(
    'added_first_token_p99',
    'Added time to first token p99',
    'ms',
    null,
    added((result) => result.firstToken?.firstToken.p99),
  );
  add(
    'rss_open_streams',
    'Gateway RSS with the open streams',
    'MB',
    '≤ 150 MB',
    (result) => {
      const bytes = value(result.openStreams?.peakRssBytes);
      return bytes === null ? null : bytes / (1024 * 1024);
    },
    (number) => number <= 150,
  );
  return figures;
}

function format(number: number | null, unit: string): string {
  if (number === null) return '—';
  if (unit === 'ms' || unit === '×') return number.toFixed(2);
  if (unit === 'µs') return number.toFixed(1);
  return Math.round(number).toLocaleString('en-US');
}

/** A plain-text table: one row per figure, one column per target (with its multiple of the floor), the target last. */
export function renderTable(figures: Figure[], results: TargetResult[]): string {
  const header = ['Figure', ...results.map((result) => result.label), 'Target'];
  const rows = figures.map((figure) => [
    `${figure.label} (${figure.unit})`,
    ...results.map((result) => {
      const text = format(figure.values[result.id] ?? null, figure.unit);
      const ratio = figure.floorRatio?.[result.id];
      const withRatio = ratio === null || ratio === undefined ? text : `${text} [${ratio.toFixed(2)}× floor]`;
      const met = figure.met[result.id];
      return met === null || met === undefined ? withRatio : `${withRatio} ${met ? 'ok' : 'MISS'}`;
    }),
    figure.target ?? '—',
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column].length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}
