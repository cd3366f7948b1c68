import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ProviderConfig } from '../config/gateway-config.js';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import type { RoutingTemplate } from '../routing/resolve-routing-templates.js';
import type { TemplateLookup } from './keys/api-key-input.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { UsageStatsService } from '../statistics/usage-stats-service.js';
import type { RankingsService } from '../rankings/rankings-service.js';
import type { KeyChangeAnnouncer } from '../keys/key-change-broadcast.js';
import type { Metering } from '../metering/metering.js';
import type { BillingService } from '../billing/billing-service.js';
import type { DocumentService } from '../billing/document-service.js';
import type { Auth } from '../users/create-auth.js';
import { registerAuthRoutes, requireUser } from '../http/account-auth.js';
import type { AuthRouteGuardDeps } from '../http/auth-route-guard.js';
import type { PasswordResetRequests } from '../users/password-reset-requests.js';
import type { OriginSettings } from '../http/trusted-origins.js';
import { registerCatalogRoutes } from './catalog/catalog-routes.js';
import { registerProviderRoutes } from './providers/provider-routes.js';
import { registerRankingsRoutes } from './rankings/rankings-routes.js';
import { registerRoutingTemplatesRoute } from './keys/routing-templates-routes.js';
import { registerApiKeyRoutes } from './keys/api-key-routes.js';
import { registerUsageRoutes } from './usage/usage-routes.js';
import { registerActivityRoutes, type ContentReader } from './activity/activity-routes.js';
import { registerAlertRoutes } from './alerts/alert-routes.js';
import { registerBillingRoutes } from './billing/billing-routes.js';
import { registerAdminRoutes } from './admin/admin-routes.js';
import { registerInvitationRoutes } from './admin/invitation-routes.js';
import { registerAdminOrderRoutes } from './admin/admin-order-routes.js';
import { registerProfileRoutes } from './profile/profile-routes.js';
import { registerSessionRoutes } from './profile/session-routes.js';
import { registerPasswordResetRoutes } from './profile/password-reset-routes.js';
import { requireAdmin } from '../http/require-admin.js';
import { registerTransactionsRoutes } from './credits/transactions-routes.js';

export interface AccountRoutesOptions {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  publicUrl: string;
  /** Read per request: a config reload replaces providers, templates and the catalog's models. */
  providers: () => readonly ProviderConfig[];
  catalog: ModelCatalog;
  stats: UsageStatsService;
  rankings: RankingsService;
  templates: () => readonly RoutingTemplate[];
  isKnownModel: (modelId: string) => boolean;
  announcer: KeyChangeAnnouncer;
  metering: Metering | null;
  /** Kept request and answer bodies (content logging), shown on a request's activity page. */
  contentLog?: ContentReader;
  /** Accounts (better-auth): without it only the public routes are served. */
  auth?: Auth;
  /** Sign-up mode, invitations, password policy and sign-in limits around better-auth's routes. */
  authGuard?: AuthRouteGuardDeps;
  /** Which browser origins may act with the session cookie (required with `auth`). */
  origins?: OriginSettings;
  /** Password-reset requests: limits and the background work (required with `auth`). */
  passwordResets?: PasswordResetRequests;
  billing?: { billing: BillingService; documents: DocumentService };
  /** Balance alert webhooks may use plain http (a local receiver in tests); https only otherwise. */
  allowHttpWebhooks?: boolean;
  /** Writes buffered usage and statistics now (before an account is erased). */
  flushUsage?: () => Promise<void>;
}

/**
 * The account API: one plugin, mounted by the app under /api-account. Public routes (catalog,
 * providers, rankings, routing templates, better-auth's own) sit at its top; everything about the
 * signed-in user sits in one child scope with one auth hook. The hook runs at preValidation, before
 * the body is checked, so a request without a session is answered 401 whatever its body.
 */
export const accountRoutes: FastifyPluginAsync<AccountRoutesOptions> = async (app, options) => {
  registerCatalogRoutes(app, options.catalog, options.stats);
  registerProviderRoutes(app, options.providers, options.catalog, options.stats);
  registerRankingsRoutes(app, options.rankings, { all: true });
  registerRoutingTemplatesRoute(app, options.templates, options.isKnownModel);
  const auth = options.auth;
  if (!auth) return;
  registerAuthRoutes(app, auth, options.publicUrl, options.authGuard!, options.origins!);
  registerPasswordResetRoutes(app, auth, options.passwordResets!);
  await app.register(async (signedIn: FastifyInstance) => {
    signedIn.addHook('preValidation', requireUser(auth));
    // Every route here takes a session (not an API key), and can answer 401: said once, for all.
    signedIn.addHook('onRoute', (route) => {
      const schema = (route.schema ??= {}) as { security?: unknown; response?: Record<string, unknown> };
      schema.security = [{ sessionAuth: [] }];
      if (schema.response && !schema.response[401]) schema.response[401] = { $ref: 'ErrorEnvelope#' };
    });
    registerProfileRoutes(signedIn, {
      store: options.store,
      publicUrl: options.publicUrl,
      clock: options.clock,
      auth,
      announcer: options.announcer,
      flushUsage: options.flushUsage,
    });
    registerSessionRoutes(signedIn, auth, options.store);
    registerUsageRoutes(signedIn, { store: options.store, clock: options.clock, metering: options.metering });
    registerActivityRoutes(signedIn, { store: options.store, content: options.contentLog });
    registerAlertRoutes(signedIn, {
      store: options.store,
      clock: options.clock,
      allowHttpWebhooks: options.allowHttpWebhooks,
    });
    registerApiKeyRoutes(signedIn, {
      store: options.store,
      clock: options.clock,
      ids: options.ids,
      isKnownModel: options.isKnownModel,
      templates: liveTemplateLookup(options.templates),
      announcer: options.announcer,
    });
    registerTransactionsRoutes(signedIn, { store: options.store });
    if (options.billing) registerBillingRoutes(signedIn, options.billing.billing, options.billing.documents);
    // Admin routes: one more hook in a scope of their own, so a signed-in non-admin gets 403 on each.
    await signedIn.register(async (admins: FastifyInstance) => {
      admins.addHook('preValidation', requireAdmin(options.store));
      // Actions whose body is optional (a reason) may be sent with none.
      admins.addHook('preValidation', async (request) => {
        if (request.method === 'POST' && request.body === undefined) request.body = {};
      });
      registerAdminRoutes(admins, {
        store: options.store,
        clock: options.clock,
        auth,
        announcer: options.announcer,
        billing: options.billing?.billing,
        content: options.contentLog,
      });
      if (options.billing) registerAdminOrderRoutes(admins, { store: options.store });
      if (options.authGuard)
        registerInvitationRoutes(admins, {
          store: options.store,
          clock: options.clock,
          invitations: options.authGuard.invitations,
        });
    });
  });
};

/** get/has over whatever templates are in service at the time of the call (they change on reload). */
function liveTemplateLookup(templates: () => readonly RoutingTemplate[]): TemplateLookup {
  const find = (id: string) => templates().find((template) => template.id === id);
  return { get: find, has: (id) => find(id) !== undefined };
}
