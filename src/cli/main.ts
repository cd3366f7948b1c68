#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from '../config/load-config.js';
import { createLogger } from '../shared/logger.js';
import { openRuntime, startGateway } from '../gateway-runtime.js';
import { createUser } from '../users/create-user.js';
import { findUserByEmail } from '../users/user-repository.js';
import { bootstrapAdmin } from '../users/bootstrap-admin.js';
import { createApiKey } from '../keys/create-api-key.js';
import { randomIdGenerator } from '../shared/ids.js';
import { GatewayError } from '../shared/errors.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { CreditsCommandError, runCreditsCommand } from './credits-command.js';

const USAGE = `Usage: gateway <command> [options]

Commands:
  serve                                   start the gateway (migrates the store first)
  migrate                                 bring the store's schema up to date
  users create --email E --password P [--name N]
  keys create --email E --name N [--allowed-models a,b/*] [--expires-days D]
                                          create an API key and print it (shown once)
  credits grant --email E --amount USD [--reference R]
                                          add credits (a repeated --reference applies once)
  credits balance --email E               print the credit balance

Environment: GATEWAY_CONFIG, DATABASE_URL, REDIS_URL, HOST, PORT, LOG_LEVEL,
             GATEWAY_ADMIN_EMAIL, GATEWAY_ADMIN_PASSWORD, provider keys (OPENAI_API_KEY, …)`;

/** A failure to report in one line. */
class CliError extends Error {}
/** A malformed command: also print the usage. */
class UsageError extends CliError {}

function load() {
  const { config, warnings } = loadConfig({ knownProviderTypes: [...createProviderRegistry().keys()] });
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  return config;
}

async function serve(): Promise<void> {
  const config = load();
  const logger = createLogger(config.server.logLevel);
  const gateway = await startGateway(config, logger);
  const admin = await bootstrapAdmin(gateway.runtime.auth, gateway.runtime.store, process.env);
  if (admin?.generatedPassword) {
    process.stdout.write(
      `\nCreated the first account: ${admin.email}\nPassword (shown once, change it): ${admin.generatedPassword}\n\n`,
    );
  } else if (admin) {
    process.stdout.write(`Created the first account: ${admin.email}\n`);
  }
  const { store } = gateway.runtime;
  process.stdout.write(
    `gateway listening on ${gateway.url}\n` +
      `  config:    ${config.source}\n  store:     ${store.description}\n` +
      `  providers: ${config.providers.map((provider) => provider.id).join(', ') || 'none (set OPENAI_API_KEY or write gateway.config.yaml)'}\n` +
      `  models:    ${config.models.length}\n`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(
      `${signal}: no new requests; letting open ones finish (up to ${config.server.shutdownGraceMs} ms)\n`,
    );
    const force = setTimeout(() => {
      logger.warn('grace period over; closing the remaining connections');
      gateway.app.server.closeAllConnections();
    }, config.server.shutdownGraceMs);
    force.unref();
    try {
      await gateway.close();
      process.stdout.write('stopped cleanly\n');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error while stopping');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function migrate(): Promise<void> {
  const config = load();
  const runtime = await openRuntime(config);
  process.stdout.write(
    runtime.applied.length ? `applied:\n  ${runtime.applied.join('\n  ')}\n` : 'the store is up to date\n',
  );
  process.stdout.write(`store: ${runtime.store.description}\n`);
  await runtime.store.destroy();
}

async function usersCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
    strict: true,
  });
  if (!values.email || !values.password) throw new UsageError('users create needs --email and --password');
  const runtime = await openRuntime(load());
  try {
    const user = await createUser(runtime.auth, runtime.store, {
      email: values.email,
      password: values.password,
      name: values.name,
    });
    process.stdout.write(`created user ${user.email} (id ${user.id})\n`);
  } finally {
    await runtime.store.destroy();
  }
}

async function keysCreate(args: string[]): Promise<void> {
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
  const runtime = await openRuntime(load());
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

async function main(argv: string[]): Promise<void> {
  const [command, subcommand, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'migrate':
      return migrate();
    case 'users':
      if (subcommand === 'create') return usersCreate(rest);
      break;
    case 'keys':
      if (subcommand === 'create') return keysCreate(rest);
      break;
    case 'credits':
      try {
        return await runCreditsCommand(
          subcommand,
          rest,
          async () => (await openRuntime(load())).store,
          (text) => process.stdout.write(text),
        );
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

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`gateway: ${error.message}\n\n${USAGE}\n`);
  else if (error instanceof CliError) process.stderr.write(`gateway: ${error.message}\n`);
  else if (error instanceof ConfigError) process.stderr.write(`gateway: configuration error: ${error.message}\n`);
  else if (error instanceof GatewayError) process.stderr.write(`gateway: ${error.message}\n`);
  else if ((error as { code?: string }).code === 'EADDRINUSE')
    process.stderr.write(
      `gateway: the port is already in use (${(error as Error).message}); set PORT to another one\n`,
    );
  else process.stderr.write(`gateway: ${(error as Error)?.message ?? String(error)}\n`);
  process.exit(1);
});
