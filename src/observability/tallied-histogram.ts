import type { Registry } from 'prom-client';

/** One label set's counts: per bucket (not cumulative; the last slot is above every bound), sum, count. */
interface HistogramTally<Label extends string> {
  labels: Record<Label, string>;
  buckets: number[];
  sum: number;
  count: number;
}
/** One level per label, in labelNames order; the last level holds the tallies. */
type TallyLevel<Label extends string> = Map<string, TallyLevel<Label> | HistogramTally<Label>>;

/** A sample in prom-client's shape (what `Registry.metrics()` formats and `getMetricsAsJSON()` returns). */
interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
  exemplar?: null;
}

/**
 * A Prometheus histogram observed on every request without prom-client's per-call work: its
 * `observe` validates the labels object, hashes it (sorting its keys) into a string and looks
 * that up, four times a request on `/v1` (~1 % of the gateway's main thread under load). Here a
 * tally is found by one Map lookup per label value, as in TalliedCounter.
 *
 * prom-client has no way to hand a histogram counted buckets, so this is a metric of its own,
 * registered with the registry as prom-client's metrics are (`registerMetric`): what a scrape,
 * `getMetricsAsJSON()` or `getSingleMetric(name).get()` shows is what prom-client's Histogram
 * shows for the same observations (tallied-histogram.test.ts compares the two). Label values come
 * in labelNames order (one label at least).
 */
export class TalliedHistogram<Label extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly Label[];
  private readonly upperBounds: readonly number[];
  private tallies: TallyLevel<Label> = new Map();

  constructor(options: {
    name: string;
    help: string;
    labelNames: readonly Label[];
    buckets: readonly number[];
    registers: Registry[];
  }) {
    if (options.labelNames.length === 0) throw new Error('TalliedHistogram needs one label at least');
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.upperBounds = [...options.buckets].sort((a, b) => a - b);
    // The registry only reads name, type, get() and reset() (and getForPromString when present).
    for (const registry of options.registers)
      registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** One observation of `value` for these label values (in labelNames order). Not finite: thrown, as prom-client does. */
  observe(value: number, ...values: string[]): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const tally = this.tallyOf(values);
    const bounds = this.upperBounds;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index++;
    tally.buckets[index]!++;
    tally.sum += value;
    tally.count++;
  }

  /** Every label set observed, in prom-client's Histogram.getForPromString() shape. */
  getForPromString(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    const values: Sample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const tally of tallyList(this.tallies, this.labelNames.length)) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, index) => {
        cumulative += tally.buckets[index]!;
        values.push({
          labels: { le: bound },
          sharedLabels: tally.labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push(
        {
          labels: { le: '+Inf' },
          sharedLabels: tally.labels,
          value: tally.count,
          metricName: bucketName,
          exemplar: null,
        },
        { labels: {}, sharedLabels: tally.labels, value: tally.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: tally.labels, value: tally.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** As prom-client's Histogram.get(): each sample's label set and its `le` in one object. */
  get(): { name: string; help: string; type: string; values: Sample[]; aggregator: string } {
    const data = this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...sample }) => ({
      ...sample,
      labels: { ...sample.labels, ...sharedLabels },
    }));
    return data;
  }

  reset(): void {
    this.tallies = new Map();
  }

  private tallyOf(values: string[]): HistogramTally<Label> {
    let level = this.tallies;
    const last = this.labelNames.length - 1;
    for (let index = 0; index < last; index++) {
      let next = level.get(values[index]!) as TallyLevel<Label> | undefined;
      if (!next) {
        next = new Map();
        level.set(values[index]!, next);
      }
      level = next;
    }
    let tally = level.get(values[last]!) as HistogramTally<Label> | undefined;
    if (!tally) {
      const labels = {} as Record<Label, string>;
      this.labelNames.forEach((name, index) => (labels[name] = values[index]!));
      tally = { labels, buckets: new Array<number>(this.upperBounds.length + 1).fill(0), sum: 0, count: 0 };
      level.set(values[last]!, tally);
    }
    return tally;
  }
}

/** Every tally under a level, `depth` labels deep. */
function* tallyList<Label extends string>(level: TallyLevel<Label>, depth: number): Generator<HistogramTally<Label>> {
  for (const entry of level.values()) {
    if (depth <= 1) yield entry as HistogramTally<Label>;
    else yield* tallyList(entry as TallyLevel<Label>, depth - 1);
  }
}
