import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../shared/errors.js';
import { sendCacheable } from '../../http/cacheable-response.js';
import { describeTotals } from '../../statistics/rollup-queries.js';
import type { UsageStatsService } from '../../statistics/usage-stats-service.js';
import { WINDOW_NAMES, canonicalWindow } from '../../statistics/stats-windows.js';
import type { ProviderConfig } from '../../config/gateway-config.js';
import type { ModelCatalog, CatalogModel } from '../../catalog/model-catalog.js';
import { endpointStatus, presentPricing } from '../../catalog/present-catalog-model.js';
import { ProviderDetailSchema, ProviderListSchema, ProviderStatsSchema } from './provider-schemas.js';
import { typed } from '../../shared/typebox-type-provider.js';

const answers = (schema: unknown) => ({
  200: schema,
  400: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
});

const StatsQuerySchema = Type.Object(
  {
    window: Type.Optional(
      Type.Union(
        WINDOW_NAMES.map((window) => Type.Literal(window)),
        {
          default: '24h',
          description: '1h, 24h (default), 7d or 30d; day, week and month are aliases of 24h, 7d and 30d',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const union = (lists: string[][]) => [...new Set(lists.flat())].sort();

/** Active = configured and serving at least one model; each with its models. */
function activeProviders(providers: readonly ProviderConfig[], models: readonly CatalogModel[]) {
  const modelsOf = new Map<string, CatalogModel[]>();
  for (const model of models)
    for (const endpoint of model.endpoints)
      modelsOf.set(endpoint.providerId, [...(modelsOf.get(endpoint.providerId) ?? []), model]);
  return { modelsOf, active: providers.filter((provider) => modelsOf.has(provider.id)) };
}

/**
 * GET /api-account/providers, /providers/{id}, /providers/{id}/stats. `providers` is read per
 * request (a config reload replaces the list and the catalog); what is derived from them is
 * recomputed only when either changed.
 */
const ProviderIdParams = Type.Object({ id: Type.String({ description: 'the provider id' }) });

export function registerProviderRoutes(
  app: FastifyInstance,
  providers: () => readonly ProviderConfig[],
  catalog: ModelCatalog,
  stats: UsageStatsService,
): void {
  let derivedFrom: [readonly ProviderConfig[], readonly CatalogModel[]] | undefined;
  let derived: ReturnType<typeof activeProviders> | undefined;
  const current = () => {
    const [list, models] = [providers(), catalog.models];
    if (!derived || derivedFrom?.[0] !== list || derivedFrom[1] !== models) {
      derived = activeProviders(list, models);
      derivedFrom = [list, models];
    }
    return derived;
  };
  const modelsOf = { get: (id: string) => current().modelsOf.get(id) };
  const find = (id: string) => {
    const provider = current().active.find((candidate) => candidate.id === id);
    if (!provider)
      throw new NotFoundError(`The provider '${id}' does not exist or serves no model.`, 'provider_not_found', 'id');
    return provider;
  };
  const summary = async (provider: ProviderConfig) => {
    const models = modelsOf.get(provider.id)!;
    const [lastHour] = await stats.totals('minute', 60, [], { providerId: provider.id });
    return {
      id: provider.id,
      name: provider.name,
      model_count: models.length,
      input_modalities: union(models.map((model) => model.inputModalities)),
      output_modalities: union(models.map((model) => model.outputModalities)),
      status: endpointStatus(lastHour ? describeTotals(lastHour.totals) : undefined),
    };
  };

  typed(app).get('/providers', {
    schema: {
      summary: 'Active providers: model counts, modalities, status from measured health',
      tags: ['providers'],
      response: answers(ProviderListSchema),
    },
    handler: async (request, reply) =>
      sendCacheable(request, reply, { data: await Promise.all(current().active.map(summary)) }, 30),
  });

  typed(app).get('/providers/:id', {
    schema: {
      summary: 'One provider: its models, policies and token throughput',
      tags: ['providers'],
      params: ProviderIdParams,
      response: answers(ProviderDetailSchema),
    },
    handler: async (request, reply) => {
      const provider = find(request.params.id);
      const [day] = await stats.totals('hour', 24, [], { providerId: provider.id });
      const totals = day ? describeTotals(day.totals) : undefined;
      const models = modelsOf.get(provider.id)!.map((model) => {
        const endpoint = model.endpoints.find((candidate) => candidate.providerId === provider.id)!;
        return {
          id: model.id,
          name: model.name,
          upstream_model: endpoint.upstreamModel,
          pricing: presentPricing(endpoint.pricing),
          context_length: endpoint.contextLength,
        };
      });
      return sendCacheable(
        request,
        reply,
        {
          ...(await summary(provider)),
          type: provider.type,
          policies: provider.policies,
          models,
          throughput_24h: {
            requests: totals?.requests ?? 0,
            prompt_tokens: totals?.prompt_tokens ?? 0,
            completion_tokens: totals?.completion_tokens ?? 0,
            tokens_per_second: totals?.tokens_per_second ?? null,
          },
        },
        30,
      );
    },
  });

  typed(app).get('/providers/:id/stats', {
    schema: {
      summary: 'Provider statistics over a window (1h, 24h, 7d, 30d; default 24h), per time bucket, with its status',
      tags: ['providers'],
      params: ProviderIdParams,
      querystring: StatsQuerySchema,
      response: answers(ProviderStatsSchema),
    },
    handler: async (request, reply) => {
      const provider = find(request.params.id);
      const window = canonicalWindow(request.query.window ?? '24h');
      const measured = await stats.providerStats(provider.id, window);
      return sendCacheable(request, reply, { ...measured, status: endpointStatus(measured.totals) }, 15);
    },
  });
}
