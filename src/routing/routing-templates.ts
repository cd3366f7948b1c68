import type { RoutingTemplate } from './resolve-routing-templates.js';

/**
 * Where routing reads templates from. The key API (GET /api-account/routing-templates) serves
 * the same list; routing only needs lookups, so it depends on this small interface.
 */
export interface RoutingTemplateSource {
  get(templateId: string): RoutingTemplate | undefined;
  list(): RoutingTemplate[];
}

/** Templates declared in `routing.templates` of the config file. */
export function configRoutingTemplates(templates: RoutingTemplate[]): RoutingTemplateSource {
  const byId = new Map(templates.map((template) => [template.id, template]));
  return {
    get: (templateId) => byId.get(templateId),
    list: () => [...byId.values()],
  };
}
