import { Counter, type Registry } from 'prom-client';

type Tally<Label extends string> = { labels: Record<Label, string>; count: number };
/** One level per label, in labelNames order; the last level holds the tallies. */
type TallyLevel<Label extends string> = Map<string, TallyLevel<Label> | Tally<Label>>;

/**
 * A Prometheus counter bumped (or added to) on every request without prom-client's per-call work
 * (it sorts, hashes and validates a labels object on each inc, ~0.5 µs; its labels() children do
 * the same).
 * Increments are tallied here by their label values and handed to the counter whenever it is read
 * (prom-client calls collect() on every scrape and every read of the metric), so what a scrape
 * shows is the same. Label values come in labelNames order (one label at least).
 */
export class TalliedCounter<Label extends string> {
  /**
   * Found by one Map lookup per label value rather than by a key joined from them: the values
   * (model, provider, status) are the same strings request after request, so each lookup hashes
   * nothing new, where a joined key is a new string hashed on every call (~10× slower).
   */
  private readonly tallies: TallyLevel<Label> = new Map();
  private readonly labelNames: readonly Label[];

  constructor(options: { name: string; help: string; labelNames: readonly Label[]; registers: Registry[] }) {
    this.labelNames = options.labelNames;
    const tallies = this.tallies;
    const depth = options.labelNames.length;
    new Counter<Label>({
      name: options.name,
      help: options.help,
      labelNames: [...options.labelNames],
      registers: options.registers,
      collect() {
        for (const tally of tallyList(tallies, depth)) {
          if (tally.count === 0) continue;
          this.inc(tally.labels, tally.count);
          tally.count = 0;
        }
      },
    });
  }

  /** One more, for these label values (in labelNames order). */
  inc(...values: string[]): void {
    this.tallyOf(values).count++;
  }

  /**
   * `amount` more (tokens, nano-USD), for these label values (in labelNames order). A counter only
   * goes up: an amount that is not above 0 (NaN too) adds nothing.
   */
  add(amount: number, ...values: string[]): void {
    if (amount > 0) this.tallyOf(values).count += amount;
  }

  private tallyOf(values: string[]): Tally<Label> {
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
    let tally = level.get(values[last]!) as Tally<Label> | undefined;
    if (!tally) {
      const labels = {} as Record<Label, string>;
      this.labelNames.forEach((name, index) => (labels[name] = values[index]!));
      tally = { labels, count: 0 };
      level.set(values[last]!, tally);
    }
    return tally;
  }
}

/** Every tally under a level, `depth` labels deep. */
function* tallyList<Label extends string>(level: TallyLevel<Label>, depth: number): Generator<Tally<Label>> {
  for (const entry of level.values()) {
    if (depth <= 1) yield entry as Tally<Label>;
    else yield* tallyList(entry as TallyLevel<Label>, depth - 1);
  }
}
