#!/usr/bin/env node
import { ConfigError } from '../config/load-config.js';
import { GatewayError } from '../shared/errors.js';
import { runCreditsCommand, type CreditsTarget } from './credits-command.js';
import { DEFAULT_REDIS_KEY_PREFIX } from '../store/open-redis.js';
import { openRedisClient } from '../store/redis-client.js';
import { openSharedCounters } from '../metering/ledger-counters-watch.js';
import { applyGlobalOptions, CliContext, CliError, UsageError } from './cli-context.js';
import { runUsersCommand } from './users-command.js';
import { runDoctor } from './doctor-command.js';
import { runKeysCommand } from './keys-command.js';
import { parseFlags, wholeNumberFlag } from './cli-arguments.js';
import { fullUsage, usageFor } from './cli-usage.js';
import { serve } from './serve-command.js';

async function migrate(context: CliContext): Promise<void> {
  const runtime = await context.openRuntime();
  process.stdout.write(
    runtime.applied.length ? `applied:\n  ${runtime.applied.join('\n  ')}\n` : 'the store is up to date\n',
  );
  process.stdout.write(`store: ${runtime.store.description}\n`);
  await runtime.store.destroy();
}

async function doctor(context: CliContext, args: string[]): Promise<void> {
  const { values } = parseFlags('doctor', args, { timeout: { form: 'MS (milliseconds per check)' } });
  const timeoutMs = wholeNumberFlag('doctor', 'timeout', values.timeout as string | undefined, 1, 600_000) ?? 5000;
  const report = await runDoctor(context, timeoutMs);
  process.stdout.write(report.table);
  if (!report.ok) {
    process.stdout.write('some checks failed\n');
    process.exitCode = 1;
  }
}

/** The store and, with REDIS_URL, the hot counters the running instances share. */
async function openCreditsTarget(context: CliContext): Promise<CreditsTarget> {
  const config = context.loadConfig();
  const { store } = await context.openRuntime(config);
  const redis = config.redisUrl ? openRedisClient(config.redisUrl, config.redis) : null;
  const shared = await openSharedCounters(store, redis, DEFAULT_REDIS_KEY_PREFIX, (error) =>
    process.stderr.write(
      `warning: the hot counters (Redis) did not take this ledger change (${(error as Error).message}); run \`gateway credits reconcile\`\n`,
    ),
  );
  return {
    store,
    counters: shared.counters,
    async close() {
      await shared.close();
      redis?.disconnect();
      await store.destroy();
    },
  };
}

async function main(context: CliContext, argv: string[]): Promise<void> {
  const [command, subcommand, ...rest] = argv;
  const write = (text: string) => process.stdout.write(text);
  switch (command) {
    case 'serve':
      return serve(context, argv.slice(1));
    case 'migrate':
      return migrate(context);
    case 'doctor':
      return doctor(context, argv.slice(1));
    case 'users':
      return runUsersCommand(subcommand, rest, () => context.openRuntime(), write);
    case 'keys':
      return runKeysCommand(
        subcommand,
        rest,
        () => context.openRuntime(),
        write,
        (text) => process.stderr.write(text),
      );
    case 'credits':
      return runCreditsCommand(subcommand, rest, () => openCreditsTarget(context), write);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${subcommand ? usageFor(subcommand) : fullUsage()}\n`);
      return;
    case undefined:
      // Running nothing is a usage error: scripts that forgot the command must not pass.
      throw new UsageError('no command given', '');
  }
  throw new UsageError(`unknown command: ${command}`, '');
}

function failureMessage(error: unknown): string {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  if (error instanceof CliError || error instanceof GatewayError) return error.message;
  if ((error as { code?: string }).code === 'EADDRINUSE')
    return `the port is already in use (${(error as Error).message}); set PORT to another one`;
  if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return (error as Error).message;
  return (error as Error)?.message ?? String(error);
}

let context = new CliContext(process.env);
try {
  const { env, rest } = applyGlobalOptions(process.argv.slice(2), process.env);
  context = new CliContext(env);
  await main(context, rest);
} catch (error) {
  if (error instanceof UsageError) {
    // The problem first and last, the usage of just that command between: it stays in view.
    const problem = `gateway: ${error.message}`;
    const usage = error.command ? usageFor(error.command) : fullUsage();
    const repeat = usage.split('\n').length > 8 ? `\n${problem}\n` : '';
    process.stderr.write(`${problem}\n\n${usage}\n${repeat}`);
    process.exit(2);
  }
  process.stderr.write(`gateway: ${failureMessage(error)}\n${context.describe()}`);
  process.exit(1);
}
