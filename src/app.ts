import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from './config/gateway-config.js';
import { choosePaymentProvider, parseBillingConfig } from './billing/billing-config.js';
import { parseAuthSettings } from './users/auth-settings.js';
import { migrationsCheck, settlementCheck, storeCheck } from './observability/readiness-checks.js';
import { registerConsoleStatic } from './http/console-static.js';
import { allProviderSecrets } from './providers/provider-secrets.js';
import { logScrubber } from './shared/logger.js';
import { redisUrlPassword } from './store/redis-client.js';
import type { AppDeps, GatewayApp } from './composition/app-deps.js';
import { ServiceStack } from './composition/service-stack.js';
import { LiveConfig } from './composition/live-config.js';
import { startCoreServices } from './composition/core-services.js';
import { createHttpServer } from './composition/http-server.js';
import { registerGatewayRoutes } from './composition/gateway-routes.js';
import { mountAccountApi, startAccountServices } from './composition/account-services.js';
import { reloader } from './composition/reload.js';

export type { AppDeps, GatewayApp } from './composition/app-deps.js';

/** The password in a postgres:// or redis:// (or redis+cluster://) URL, if any. */
function passwordOf(url: string | undefined): string | undefined {
  if (url !== undefined && redisUrlPassword(url) !== null) return redisUrlPassword(url) ?? undefined;
  if (!url || !/^[a-z]+:\/\//.test(url)) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The composition root: every dependency comes in through `deps`; nothing is a module singleton.
 * Services start in dependency order on one stack (composition/service-stack.ts) and stop in
 * reverse, the HTTP server first; when start-up fails half-way, whatever had started is stopped.
 */
export async function buildApp(deps: AppDeps): Promise<GatewayApp> {
  const { config, logger } = deps;
  const secret = deps.secret ?? randomBytes(32).toString('base64url');
  // Whatever is logged from here on is scrubbed of the configured credentials and signing material.
  const { stripe } = deps;
  const secretsOf = (next: GatewayConfig) => [
    ...allProviderSecrets(next.providers),
    secret,
    stripe?.secretKey,
    stripe?.webhookSecret,
    passwordOf(next.databaseUrl),
    passwordOf(next.redisUrl),
  ];
  logScrubber(logger)?.replace(secretsOf(config));
  const production = deps.production ?? process.env.NODE_ENV === 'production';
  // Settings that can refuse to start are read before anything is started.
  const auth = parseAuthSettings(config.sections.auth, production);
  const billingConfig = parseBillingConfig(config.sections.billing);
  const paymentProvider = choosePaymentProvider(billingConfig, config.sections.billing, {
    stripeConfigured: stripe !== undefined,
    production,
  });
  const live = new LiveConfig(config);
  const onStopError = (name: string, error: unknown) => logger.error({ err: error }, `stopping ${name} failed`);
  const stack = new ServiceStack(onStopError, deps.lifecycle);
  return stack.build(async () => {
    const core = await startCoreServices(deps, stack);
    const accounts = await startAccountServices(deps, core, auth, stack);
    const { observability, metering, routing, directory, clock } = core;
    const server = {
      withAuth: deps.auth !== undefined,
      watch: (fastify: FastifyInstance) => observability.registerHooks(fastify),
    };
    // Started last, so stopped first: requests drain before the services they use stop.
    const app = await stack.start(
      'http server',
      () => createHttpServer(config.server, logger, server),
      (fastify) => fastify.close(),
    );
    const usageBacklog = metering ? () => metering.backlog : undefined;
    observability.watch({ directory, health: routing.health, usageBacklog, now: () => clock.now() });
    registerGatewayRoutes(app, core, config.server, deps.store, deps.observers ?? []);
    const settings = { auth, paymentProvider, secret };
    const payments = await mountAccountApi(app, deps, core, accounts, settings, live);
    observability.registerRoutes(app, [
      storeCheck(deps.store),
      migrationsCheck(deps.store),
      ...(metering ? [settlementCheck(() => metering.settlementStalled())] : []),
      ...(deps.readinessChecks ?? []),
    ]);
    await registerConsoleStatic(app, deps.consoleDir);
    const { keyCache, catalogFeatures } = core;
    return {
      app,
      keyCache,
      directory,
      catalogFeatures,
      metering,
      contentLog: core.contentLog,
      observability,
      accounts: { settings: auth, invitations: accounts.invitations, paymentProvider: payments },
      reloadConfig: reloader(core, live, logger, secretsOf, deps.routing?.overrides?.templates),
      close: () => stack.stop(),
    };
  });
}
