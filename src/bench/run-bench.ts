/**
 * `npm run bench [-- --smoke] [--targets a,b] [--cpu-prof] [--out file] [--only measure] [--semi-space MB]`
 * Prints a table of every figure next to its target and writes bench/results/latest.json.
 * `--only sustained-rate` (or one-at-a-time, fixed-rate, first-token, open-streams) warms each
 * target up and measures just that; `--semi-space MB` starts our gateway with
 * `--max-semi-space-size=MB` (0: V8's own sizing) instead of its shipped flags, for A/B runs.
 */
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FULL_PLAN, SMOKE_PLAN } from './bench-plan.js';
import { TARGET_IDS, type TargetId } from './bench-targets.js';
import { ALONE_MEASURES, runBench, type AloneMeasure, type BenchOptions } from './bench-runner.js';

const USAGE =
  'usage: npm run bench [-- --smoke] [--targets a,b] [--cpu-prof] [--out file] [--only measure] [--semi-space MB]\n' +
  `  targets: ${TARGET_IDS.join(', ')}\n  measures for --only: ${ALONE_MEASURES.join(', ')}\n`;

function parseCommandLine(argv: string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      smoke: { type: 'boolean', default: false },
      targets: { type: 'string' },
      'cpu-prof': { type: 'boolean', default: false },
      out: { type: 'string' },
      only: { type: 'string' },
      'semi-space': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  const targets = (
    values.targets ? values.targets.split(',').map((item) => item.trim()) : [...TARGET_IDS]
  ) as TargetId[];
  for (const target of targets)
    if (!TARGET_IDS.includes(target))
      throw new Error(`--targets: unknown target "${target}" (known: ${TARGET_IDS.join(', ')})`);
  const only = values.only as AloneMeasure | undefined;
  if (only !== undefined && !ALONE_MEASURES.includes(only))
    throw new Error(`--only: unknown measure "${only}" (known: ${ALONE_MEASURES.join(', ')})`);
  const semiSpace = values['semi-space'];
  if (semiSpace !== undefined && !/^\d+$/.test(semiSpace))
    throw new Error(`--semi-space: a size in MB, 0 for V8's own (got "${semiSpace}")`);
  const results = resolve('bench', 'results');
  return {
    plan: values.smoke ? SMOKE_PLAN : FULL_PLAN,
    targets,
    outFile: resolve(values.out ?? join(results, 'latest.json')),
    cpuProfileDir: values['cpu-prof'] ? join(results, 'profiles') : undefined,
    only,
    gatewayNodeFlags: semiSpace === undefined ? undefined : [`--max-semi-space-size=${semiSpace}`],
    log: (line) => process.stdout.write(`${line}\n`),
  };
}

const began = Date.now();
/** A bad option is a one-line message and the usage (exit 2), not a stack trace. */
function commandLineOrExit(): BenchOptions {
  let parsed: BenchOptions | 'help';
  try {
    parsed = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (parsed === 'help') {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  return parsed;
}
const options = commandLineOrExit();
options.log(`benchmark (${options.plan.mode}), targets: ${options.targets.join(', ')}`);
const report = await runBench(options);
options.log(`\n${report.table}\n`);
options.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, load average before ${(report.json.machine as { loadAverageBefore: number[] }).loadAverageBefore.map((load) => load.toFixed(1)).join(' ')}`,
);
options.log(`wrote ${options.outFile} in ${((Date.now() - began) / 1000).toFixed(0)} s`);
process.exitCode = report.failed ? 1 : 0;
