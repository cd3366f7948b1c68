import { Counter, type Registry } from 'prom-client';

/**
 * A Prometheus counter bumped on every request without prom-client's per-call work (it sorts,
 * hashes and validates a labels object on each inc, ~0.5 µs; its labels() children do the same).
 * Increments are tallied here by their label values and handed to the counter whenever it is read
 * (prom-client calls collect() on every scrape and every read of the metric), so what a scrape
 * shows is the same. Label values come in labelNames order.
 */
export class TalliedCounter<Label extends string> {
  private readonly tallies = new Map<string, { labels: Record<Label, string>; count: number }>();
  private readonly labelNames: readonly Label[];

  constructor(options: { name: string; help: string; labelNames: readonly Label[]; registers: Registry[] }) {
    this.labelNames = options.labelNames;
    const tallies = this.tallies;
    new Counter<Label>({
      name: options.name,
      help: options.help,
      labelNames: [...options.labelNames],
      registers: options.registers,
      collect() {
        for (const tally of tallies.values()) {
          if (tally.count === 0) continue;
          this.inc(tally.labels, tally.count);
          tally.count = 0;
        }
      },
    });
  }

  /** One more, for these label values (in labelNames order). */
  inc(...values: string[]): void {
    const key = values.join('\u0000');
    let tally = this.tallies.get(key);
    if (!tally) {
      const labels = {} as Record<Label, string>;
      this.labelNames.forEach((name, index) => (labels[name] = values[index]!));
      tally = { labels, count: 0 };
      this.tallies.set(key, tally);
    }
    tally.count++;
  }
}
