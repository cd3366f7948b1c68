import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../../config/gateway-config.js';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import type { IdGenerator } from '../../shared/ids.js';
import type { ModelDirectory } from '../../routing/model-directory.js';
import type { Auth } from '../../users/create-auth.js';
import { requireUser } from '../../http/account-auth.js';
import type { ApiKeyCache } from '../../keys/api-key-cache.js';
import { localAnnouncer, startRedisAnnouncer } from '../../keys/key-change-broadcast.js';
import { resolveRoutingTemplates } from '../../routing/resolve-routing-templates.js';
import { registerRoutingTemplatesRoute } from './routing-templates-routes.js';
import { registerApiKeyRoutes } from './api-key-routes.js';
import { ApiKeySchema } from './api-key-schemas.js';

export interface ApiKeyFeatureDeps {
  config: GatewayConfig;
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  directory: ModelDirectory;
  keyCache: ApiKeyCache;
  logger: Logger;
  /** Without accounts only the cross-instance invalidation and the templates are set up. */
  auth?: Auth;
  /** Redis channel for key changes (tests use one of their own). */
  invalidationChannel?: string;
}

/** The API key feature: the key API, routing templates and cross-instance key invalidation. */
export async function registerApiKeys(app: FastifyInstance, deps: ApiKeyFeatureDeps): Promise<void> {
  const templates = resolveRoutingTemplates(deps.config.sections.routing ?? {});
  const isKnownModel = (modelId: string) => deps.directory.get(modelId) !== undefined;
  const announcer = deps.config.redisUrl
    ? await startRedisAnnouncer({
        redisUrl: deps.config.redisUrl,
        channel: deps.invalidationChannel,
        cache: deps.keyCache,
        logger: deps.logger,
      })
    : localAnnouncer(deps.keyCache);
  app.addHook('onClose', async () => announcer.close());

  registerRoutingTemplatesRoute(app, templates, isKnownModel);
  if (deps.auth) {
    app.addSchema(ApiKeySchema);
    registerApiKeyRoutes(
      app,
      {
        store: deps.store,
        clock: deps.clock,
        ids: deps.ids,
        isKnownModel,
        templates: new Map(templates.map((template) => [template.id, template])),
        announcer,
      },
      requireUser(deps.auth),
    );
  }
}
