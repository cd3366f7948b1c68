import type { FastifyInstance } from 'fastify';
import type { RedisClient } from '../store/redis-client.js';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import { createPurchaseLedger } from '../credits/purchase-ledger.js';
import { registerBilling } from '../billing/register-billing.js';
import type { PaymentProviderChoice } from '../billing/billing-config.js';
import { startBalanceAlerts } from '../credits/balance-alerts.js';
import { startKeySpendAlerts } from '../credits/key-spend-alerts.js';
import { requireUser } from '../http/account-auth.js';
import { registerPasswordResetPage } from '../http/password-reset-page.js';
import { accountRoutes } from '../accounts/account-routes.js';
import { ApiKeySchema } from '../accounts/keys/api-key-schemas.js';
import type { AuthSettings } from '../users/auth-settings.js';
import { InvitationService } from '../users/invitations.js';
import { MemorySignInLimiter, type SignInLimiter } from '../users/sign-in-limiter.js';
import { RedisSignInLimiter } from '../users/redis-sign-in-limiter.js';
import { PasswordResetRequests } from '../users/password-reset-requests.js';
import { originSettingsOf } from './http-server.js';
import type { AppDeps } from './app-deps.js';
import type { CoreServices } from './core-services.js';
import type { LiveConfig } from './live-config.js';
import type { ServiceStack } from './service-stack.js';

/** What the account side runs besides its routes: invitations, sign-in limits, reset mails, alerts. */
export interface AccountServices {
  invitations: InvitationService;
  signInLimiter: SignInLimiter;
  passwordResets: PasswordResetRequests | undefined;
}

/** A limiter shared through Redis when there is one (keys under `name`), else kept in this process. */
function limiterFor(
  redis: RedisClient | undefined,
  limits: AuthSettings['signInLimits'],
  clock: Clock,
  prefix: string,
  logger: Logger,
  name?: string,
): SignInLimiter {
  return redis
    ? new RedisSignInLimiter(redis, limits, () => clock.now(), prefix, logger, name)
    : new MemorySignInLimiter(limits, () => clock.now());
}

export async function startAccountServices(
  deps: AppDeps,
  core: CoreServices,
  settings: AuthSettings,
  stack: ServiceStack,
): Promise<AccountServices> {
  const { store, logger, auth, config } = deps;
  const { clock, ids, redis, redisKeyPrefix } = core;
  const invitations = new InvitationService(store.db, clock, ids, {
    publicUrl: config.server.publicUrl,
    ttlMs: settings.invitationTtlMs,
  });
  // Sign-in limits shared through Redis when there is one (a connection of their own), else per process.
  const signInLimiter = await stack.start(
    'sign-in limiter',
    () => limiterFor(auth ? redis : undefined, settings.signInLimits, clock, redisKeyPrefix, logger),
    (limiter) => limiter.close(),
  );
  // Password-reset requests: the sign-in limiter's rule under their own keys and settings.
  const passwordResets = auth
    ? await stack.start(
        'password resets',
        () =>
          new PasswordResetRequests(
            auth,
            limiterFor(redis, settings.passwordResetLimits, clock, redisKeyPrefix, logger, 'password-reset'),
            logger,
          ),
        (requests) => requests.close(),
      )
    : undefined;
  if (auth) {
    const { intervalMs, allowHttpWebhooks: _allowHttp, ...hooks } = deps.balanceAlerts ?? {};
    await stack.start(
      'balance alerts',
      () =>
        startBalanceAlerts({ store, clock, ids, mailer: deps.mailer, ...hooks }, intervalMs ?? 30_000, (error) =>
          logger.error({ err: error }, 'balance alert check failed'),
        ),
      (alerts) => alerts.close(),
    );
    await stack.start(
      'key spend alerts',
      () =>
        startKeySpendAlerts({ store, clock, ids, mailer: deps.mailer, ...hooks }, intervalMs ?? 30_000, (error) =>
          logger.error({ err: error }, 'key spend alert check failed'),
        ),
      (alerts) => alerts.close(),
    );
  }
  return { invitations, signInLimiter, passwordResets };
}

/**
 * The account API under /api-account, billing's own routes and the password-reset page.
 * Returns who takes payments (null without accounts).
 */
export async function mountAccountApi(
  app: FastifyInstance,
  deps: AppDeps,
  core: CoreServices,
  accounts: AccountServices,
  settings: { auth: AuthSettings; paymentProvider: PaymentProviderChoice; secret: string },
  live: LiveConfig,
): Promise<string | null> {
  const { store, logger, auth, config } = deps;
  const { clock, ids, metering, routing, directory, catalogFeatures } = core;
  const billing = auth
    ? registerBilling(
        app,
        {
          store,
          ledger: createPurchaseLedger(store, clock),
          section: config.sections.billing,
          clock,
          ids,
          publicUrl: config.server.publicUrl,
          logger,
          secret: settings.secret,
          stripe: deps.stripe,
          paymentProvider: settings.paymentProvider,
        },
        requireUser(auth),
      )
    : undefined;
  if (auth) app.addSchema(ApiKeySchema);
  await app.register(accountRoutes, {
    prefix: '/api-account',
    store,
    clock,
    ids,
    publicUrl: config.server.publicUrl,
    // Accessors, not values: a config reload replaces these (CONVENTIONS 14).
    providers: live.providers,
    catalog: catalogFeatures.catalog,
    stats: catalogFeatures.stats,
    rankings: catalogFeatures.rankings,
    templates: () => routing.settings.templates,
    isKnownModel: (modelId) => directory.get(modelId) !== undefined,
    announcer: core.announcer,
    metering,
    contentLog: core.contentLog,
    auth,
    authGuard: { store, settings: settings.auth, invitations: accounts.invitations, limiter: accounts.signInLimiter },
    passwordResets: accounts.passwordResets,
    origins: originSettingsOf(config.server),
    billing,
    allowHttpWebhooks: deps.balanceAlerts?.allowHttpWebhooks,
    async flushUsage() {
      await metering?.writer.flush();
      await catalogFeatures.recorder.flush();
      // Content still being written would outlive the erasure it precedes.
      await core.contentLog.flush();
    },
  });
  if (auth) registerPasswordResetPage(app);
  return billing?.billing.provider.name ?? null;
}
