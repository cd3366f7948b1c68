#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/load-config.js';
import { findUserByEmail } from '../users/user-repository.js';
import { createApiKey } from '../keys/create-api-key.js';
import { randomIdGenerator } from '../shared/ids.js';
import { GatewayError } from '../shared/errors.js';
import { CreditsCommandError, runCreditsCommand, type CreditsTarget } from './credits-command.js';
import { openRedis, DEFAULT_REDIS_KEY_PREFIX } from '../store/open-redis.js';
import { openSharedCounters } from '../metering/ledger-counters-watch.js';
import { applyGlobalOptions, CliContext, CliError, UsageError } from './cli-context.js';
import { runUsersCommand } from './users-command.js';
import { runDoctor } from './doctor-command.js';
import { serve } from './serve-command.js';

const USAGE = `Usage: gateway <command> [options] [--config FILE] [--database-url URL]

Commands:
  serve                                   start the gateway (migrates the store first)
  migrate                                 bring the store's schema up to date
  doctor [--timeout MS]                   check config, store, migrations, Redis and every provider
  users create --email E --password P [--name N]
  users list                              every account, its status and number of active keys
  users disable --email E                 end its sessions, revoke its keys, refuse sign-in
  users enable --email E                  allow sign-in again
  users set-password --email E [--password P]
                                          set (or generate and print) a new password
  users set-role --email E --role admin|user
                                          grant or take away the admin role (/api-account/admin/*)
  users invite <email>                    print a single-use sign-up link for that address
                                          (for auth.sign_up: invite)
  keys create --email E --name N [--allowed-models a,b/*] [--expires-days D]
                                          create an API key and print it (shown once)
  credits grant --email E --amount USD [--reference R]
                                          add credits (a repeated --reference applies once)
  credits balance --email E               print the credit balance
  credits reconcile                       check balances against the ledger, rebuild the shared
                                          hot counters (Redis) from it, report any drift

Every command takes --config (else GATEWAY_CONFIG, else ./gateway.config.yaml) and
--database-url (else DATABASE_URL, else sqlite:./data/gateway.db), and names both when it fails.

Environment: GATEWAY_CONFIG, DATABASE_URL, REDIS_URL, HOST, PORT, LOG_LEVEL,
             GATEWAY_ADMIN_EMAIL, GATEWAY_ADMIN_PASSWORD, provider keys (OPENAI_API_KEY, …)`;

async function migrate(context: CliContext): Promise<void> {
  const runtime = await context.openRuntime();
  process.stdout.write(
    runtime.applied.length ? `applied:\n  ${runtime.applied.join('\n  ')}\n` : 'the store is up to date\n',
  );
  process.stdout.write(`store: ${runtime.store.description}\n`);
  await runtime.store.destroy();
}

async function keysCreate(context: CliContext, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'allowed-models': { type: 'string' },
      'expires-days': { type: 'string' },
    },
    strict: true,
  });
  if (!values.email || !values.name) throw new UsageError('keys create needs --email and --name');
  const expiresDays = values['expires-days'] === undefined ? null : Number(values['expires-days']);
  if (expiresDays !== null && !(Number.isFinite(expiresDays) && expiresDays > 0))
    throw new UsageError('--expires-days must be a positive number');
  const runtime = await context.openRuntime();
  try {
    const user = await findUserByEmail(runtime.store.db, values.email);
    if (!user)
      throw new CliError(
        `no user with the email ${values.email} (create one with: gateway users create --email ${values.email} --password …)`,
      );
    const now = Date.now();
    const { row, fullKey } = await createApiKey(runtime.store, randomIdGenerator, now, {
      userId: user.id,
      name: values.name,
      allowedModels: values['allowed-models']
        ? values['allowed-models']
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean)
        : null,
      expiresAt: expiresDays === null ? null : now + Math.round(expiresDays * 86_400_000),
    });
    process.stderr.write(`created key ${row.id} "${row.name}" for ${user.email}. It is shown only once:\n`);
    process.stdout.write(`${fullKey}\n`);
  } finally {
    await runtime.store.destroy();
  }
}

async function doctor(context: CliContext, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { timeout: { type: 'string' } }, strict: true });
  const timeoutMs = values.timeout === undefined ? 5000 : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new UsageError('--timeout must be a positive whole number of ms');
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
  const redis = config.redisUrl ? openRedis(config.redisUrl, config.redis) : null;
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
      return serve(context);
    case 'migrate':
      return migrate(context);
    case 'doctor':
      return doctor(context, argv.slice(1));
    case 'users':
      return runUsersCommand(subcommand, rest, () => context.openRuntime(), write);
    case 'keys':
      if (subcommand === 'create') return keysCreate(context, rest);
      break;
    case 'credits':
      try {
        return await runCreditsCommand(subcommand, rest, () => openCreditsTarget(context), write);
      } catch (error) {
        if (error instanceof CreditsCommandError)
          throw error.usage ? new UsageError(error.message) : new CliError(error.message);
        throw error;
      }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
  }
  throw new UsageError(`unknown command: ${argv.join(' ')}`);
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
  process.stderr.write(`gateway: ${failureMessage(error)}\n${context.describe()}`);
  if (error instanceof UsageError) process.stderr.write(`\n${USAGE}\n`);
  process.exit(1);
}
