import { loadConfig } from '../config/load-config.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { describeDatabaseUrl } from '../store/database.js';
import { openRuntime, type Runtime } from '../gateway-runtime.js';

/** A failure to report in one line (plus the store and config it happened with). */
export class CliError extends Error {}
/** A malformed command (exit code 2): also print the usage of `command` (a prefix such as `keys`). */
export class UsageError extends CliError {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

type Env = Record<string, string | undefined>;

/**
 * Options every command accepts, anywhere on the line: `--config FILE` (instead of
 * GATEWAY_CONFIG) and `--database-url URL` (instead of DATABASE_URL). Returns the environment
 * the command runs with and the arguments left for the command itself.
 */
export function applyGlobalOptions(argv: string[], env: Env): { env: Env; rest: string[] } {
  const result: Env = { ...env };
  const rest: string[] = [];
  const names: Record<string, string> = { '--config': 'GATEWAY_CONFIG', '--database-url': 'DATABASE_URL' };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    const [flag, inline] = argument.includes('=')
      ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)]
      : [argument, undefined];
    const variable = names[flag];
    if (!variable) {
      rest.push(argument);
      continue;
    }
    const value = inline ?? argv[++index];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    result[variable] = value;
  }
  return { env: result, rest };
}

/**
 * What a command used (config file, store), so that any failure can say it: "no user with that
 * email" means little until you know which database was asked.
 */
export class CliContext {
  configSource: string | null = null;
  store: string | null = null;

  constructor(readonly env: Env) {}

  loadConfig(): GatewayConfig {
    this.store = this.env.DATABASE_URL ? describeDatabaseUrl(this.env.DATABASE_URL) : null;
    this.configSource = this.env.GATEWAY_CONFIG ?? null;
    const { config, warnings } = loadConfig({
      env: this.env,
      knownProviderTypes: [...createProviderRegistry().keys()],
    });
    for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
    this.configSource = config.source;
    this.store = describeDatabaseUrl(config.databaseUrl);
    return config;
  }

  /** Opens the store (migrating it) and accounts, with the config loaded. */
  async openRuntime(config: GatewayConfig = this.loadConfig()): Promise<Runtime> {
    const runtime = await openRuntime(config, this.env);
    this.store = runtime.store.description;
    return runtime;
  }

  /** Lines appended to a failure message. */
  describe(): string {
    const lines: string[] = [];
    if (this.store) lines.push(`  store:  ${this.store}`);
    if (this.configSource) lines.push(`  config: ${this.configSource}`);
    return lines.length ? `${lines.join('\n')}\n` : '';
  }
}
