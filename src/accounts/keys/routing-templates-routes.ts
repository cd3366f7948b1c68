import type { FastifyInstance } from 'fastify';
import { RoutingTemplateListSchema } from './api-key-schemas.js';
import type { RoutingTemplate } from '../../routing/resolve-routing-templates.js';

/** GET /api-account/routing-templates: public, like the catalog; `available` says what is served here. */
export function registerRoutingTemplatesRoute(
  app: FastifyInstance,
  /** Read per request: a config reload replaces the templates. */
  templates: () => readonly RoutingTemplate[],
  isKnownModel: (modelId: string) => boolean,
): void {
  app.get('/routing-templates', {
    schema: {
      tags: ['api-keys'],
      summary: 'The curated routing templates a key can adopt with template_id',
      response: { 200: RoutingTemplateListSchema },
    },
    async handler() {
      return {
        data: templates().map((template) => ({
          id: template.id,
          name: template.name,
          description: template.description,
          default_models: template.defaultModels.map((item) => ({
            model_id: item.model_id,
            priority: item.priority,
            available: isKnownModel(item.model_id),
          })),
        })),
      };
    },
  });
}
