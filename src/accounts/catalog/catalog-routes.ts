import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../shared/errors.js';
import { sendCacheable } from '../../http/cacheable-response.js';
import { describeTotals } from '../../statistics/rollup-queries.js';
import type { UsageStatsService } from '../../statistics/usage-stats-service.js';
import { CAPABILITIES } from '../../catalog/catalog-data.js';
import {
  CATALOG_SORTS,
  catalogFilterValues,
  checkKnownValues,
  queryCatalog,
  type CatalogQuery,
  type KnownValues,
} from '../../catalog/catalog-query.js';
import type { ModelCatalog } from '../../catalog/model-catalog.js';
import { presentCatalogModel } from '../../catalog/present-catalog-model.js';
import { CatalogFiltersSchema, CatalogModelSchema, CatalogPageSchema } from './catalog-schemas.js';
import { limitParameter, offsetParameter } from '../paging-schemas.js';
import { typed } from '../../shared/typebox-type-provider.js';

const answers = (schema: unknown) => ({
  200: schema,
  400: { $ref: 'ErrorEnvelope#' },
  404: { $ref: 'ErrorEnvelope#' },
});

const MODALITIES = ['text', 'image', 'audio', 'video', 'file'];
const enumOf = (values: readonly string[]) => Type.Union(values.map((value) => Type.Literal(value)));
const listOf = (values: readonly string[]) => Type.Array(enumOf(values), { maxItems: 10 });

const CatalogQuerySchema = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 200 })),
    author: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    input_modality: Type.Optional(listOf(MODALITIES)),
    output_modality: Type.Optional(listOf(MODALITIES)),
    capability: Type.Optional(listOf(CAPABILITIES)),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    max_prompt_price: Type.Optional(Type.Number({ minimum: 0, description: 'USD per million prompt tokens' })),
    min_context: Type.Optional(Type.Integer({ minimum: 1 })),
    available: Type.Optional(Type.Boolean({ description: 'Only the models this gateway can route' })),
    sort: Type.Optional(enumOf(CATALOG_SORTS)),
    order: Type.Optional(enumOf(['asc', 'desc'])),
    limit: limitParameter(500, 50),
    offset: offsetParameter(),
  },
  { additionalProperties: false },
);

const CATALOG_MAX_AGE = 60;

function knownValuesOf(filters: ReturnType<typeof catalogFilterValues>): KnownValues {
  return {
    authors: new Set(filters.authors.map((entry) => entry.value)),
    providers: new Set(filters.providers.map((entry) => entry.value)),
    tags: new Set(filters.tags.map((entry) => entry.value)),
  };
}

/** GET /api-account/models, /models/filters, /models/{model_path}: the public catalog. */
export function registerCatalogRoutes(app: FastifyInstance, catalog: ModelCatalog, stats: UsageStatsService): void {
  // Derived from the catalog's models, again only when a config reload replaced them.
  let derivedFrom: readonly unknown[] | undefined;
  let filters = catalogFilterValues(catalog.models);
  let known: KnownValues = knownValuesOf(filters);
  const current = () => {
    if (derivedFrom !== catalog.models) {
      derivedFrom = catalog.models;
      filters = catalogFilterValues(catalog.models);
      known = knownValuesOf(filters);
    }
    return { filters, known };
  };

  typed(app).get('/models', {
    schema: {
      summary: 'The public model catalog: filter, sort and page',
      tags: ['catalog'],
      querystring: CatalogQuerySchema,
      response: answers(CatalogPageSchema),
    },
    handler: async (request, reply) => {
      const raw = request.query;
      const query: CatalogQuery = {
        ...raw,
        sort: (raw.sort ?? 'popularity') as CatalogQuery['sort'],
        order: raw.order as CatalogQuery['order'],
        limit: raw.limit ?? 50,
        offset: raw.offset ?? 0,
      };
      checkKnownValues(query, current().known);
      const popularity = query.sort === 'popularity' ? await stats.popularity() : new Map<string, number>();
      const { data, total } = queryCatalog(catalog.models, query, popularity);
      return sendCacheable(
        request,
        reply,
        { data: data.map((model) => presentCatalogModel(model)), total, limit: query.limit, offset: query.offset },
        CATALOG_MAX_AGE,
      );
    },
  });

  typed(app).get('/models/filters', {
    schema: {
      summary: 'Available catalog filter values, with counts',
      tags: ['catalog'],
      response: answers(CatalogFiltersSchema),
    },
    handler: async (request, reply) => sendCacheable(request, reply, current().filters, CATALOG_MAX_AGE),
  });

  // model_path may contain slashes (anthropic/claude-sonnet-4), hence the wildcard.
  typed(app).get<{ Params: { '*': string } }>('/models/*', {
    schema: {
      summary: 'One model page, with its endpoints and their live statistics',
      tags: ['catalog'],
      response: answers(CatalogModelSchema),
    },
    handler: async (request, reply) => {
      // The router has already decoded the path once; decoding again would turn a model id with a
      // literal '%' (a request for /models/%25) into a URIError.
      const path = request.params['*'];
      const model = catalog.get(path);
      if (!model)
        throw new NotFoundError(`The model '${path}' is not in the catalog.`, 'model_not_found', 'model_path');
      const rows =
        model.endpoints.length > 0 ? await stats.totals('hour', 24, ['provider_id'], { modelId: model.id }) : [];
      const endpointStats = new Map(rows.map((row) => [row.providerId!, describeTotals(row.totals)]));
      return sendCacheable(request, reply, presentCatalogModel(model, endpointStats), 30);
    },
  });
}
