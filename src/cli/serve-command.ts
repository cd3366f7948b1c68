import { isAbsolute } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { ConfigReloader } from '../config/config-reloader.js';
import { createProviderRegistry } from '../providers/provider-registry.js';
import { createLogger } from '../shared/logger.js';
import { startGateway } from '../gateway-runtime.js';
import { bootstrapAdmin, skippedBootstrapNotice, type BootstrapResult } from '../users/bootstrap-admin.js';
import { UsageError, type CliContext } from './cli-context.js';
import { parseFlags, wholeNumberFlag } from './cli-arguments.js';
import { isClusterWorker, runPrimary, workersRefusal } from './serve-workers.js';

/**
 * `gateway serve`: migrate, create the first account on an empty store, then listen, in that
 * order, so a health probe never sees a port that is open before start-up has finished. Prints
 * where it listens and what it runs on; reloads providers, models and routing on SIGHUP or when
 * the config file changes; stops gracefully on SIGTERM/SIGINT.
 */
export async function serve(context: CliContext, args: string[] = []): Promise<void> {
  const { values } = parseFlags('serve', args, { workers: { form: 'N (processes sharing the port)' } });
  const workers =
    wholeNumberFlag(
      'serve',
      'workers',
      (values.workers as string | undefined) ?? context.env.GATEWAY_WORKERS,
      1,
      256,
    ) ?? 1;
  const config = context.loadConfig();
  if (workers > 1 && !isClusterWorker()) {
    const refusal = workersRefusal(config, workers);
    if (refusal) throw new UsageError(`serve: ${refusal}`, 'serve');
    await runPrimary(workers, (text) => process.stdout.write(text));
    return;
  }
  const logger = createLogger(config.server.logLevel);
  const gateway = await startGateway(config, logger, {}, context.env, async (runtime) => {
    context.store = runtime.store.description;
    // Printed before the port opens: whoever sees the port answer can already read the credentials.
    const admin = await bootstrapAdmin(runtime.auth, runtime.store, context.env);
    if (admin) printFirstAccount(admin);
    else {
      const notice = await skippedBootstrapNotice(runtime.store, context.env);
      if (notice) process.stdout.write(`note: ${notice}\n`);
    }
  });
  const lines = [
    `gateway listening on ${gateway.url}`,
    `  store:     ${gateway.runtime.store.description}`,
    `  config:    ${config.source}`,
    `  providers: ${config.providers.map((provider) => provider.id).join(', ') || 'none (set OPENAI_API_KEY or write gateway.config.yaml)'}`,
    `  models:    ${gateway.directory.list().length} routable`,
  ];
  if (gateway.metricsUrl) lines.push(`  metrics:   ${gateway.metricsUrl}`);
  lines.push(`  sign-up:   ${gateway.accounts.settings.signUp} (auth.sign_up)`);
  const payments = gateway.accounts.paymentProvider;
  lines.push(
    payments === 'sandbox'
      ? '  payments:  SANDBOX: every user can add credits for free. Development and demos only!'
      : `  payments:  ${payments === 'none' ? 'none (create-checkout answers 503)' : payments}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);

  const reloader = new ConfigReloader({
    path: isAbsolute(config.source) ? config.source : null,
    load: () => loadConfig({ env: context.env, knownProviderTypes: [...createProviderRegistry().keys()] }).config,
    apply: (next) => gateway.reloadConfig(next),
    current: config,
    logger,
  });
  reloader.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    reloader.stop();
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

function printFirstAccount(admin: BootstrapResult): void {
  process.stdout.write(
    admin.generatedPassword
      ? `created the first account: ${admin.email}\n  password: ${admin.generatedPassword}   (shown this once; change it with gateway users set-password)\n`
      : `created the first account: ${admin.email} (password from GATEWAY_ADMIN_PASSWORD)\n`,
  );
}
