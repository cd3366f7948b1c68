import { sectionError, settleConfigSection } from '../config/config-section.js';
import { RoutingSectionSchema } from '../config/section-schemas.js';
import type { DefaultModel } from './api-key-record.js';

/**
 * Routing templates (CONTRACT §4): curated, named lists of default models a key can adopt
 * with `template_id`. The built-in ones below use OpenRouter-style model ids; an operator
 * replaces or extends them under `routing.templates` in the config file.
 */
export interface RoutingTemplate {
  id: string;
  name: string;
  description: string;
  defaultModels: DefaultModel[];
}

export const BUILT_IN_ROUTING_TEMPLATES: readonly RoutingTemplate[] = [
  {
    id: 'balanced',
    name: 'Balanced',
    description:
      'Capable, inexpensive general-purpose models from three providers, each the fallback of the one before.',
    defaultModels: [
      { model_id: 'openai/gpt-4o-mini', priority: 1 },
      { model_id: 'anthropic/claude-3.5-haiku', priority: 2 },
      { model_id: 'google/gemini-2.0-flash-001', priority: 3 },
    ],
  },
  {
    id: 'frontier',
    name: 'Frontier quality',
    description: 'The strongest models of the major labs, for hard reasoning and writing.',
    defaultModels: [
      { model_id: 'anthropic/claude-sonnet-4', priority: 1 },
      { model_id: 'openai/gpt-4o', priority: 2 },
      { model_id: 'google/gemini-2.5-pro', priority: 3 },
    ],
  },
  {
    id: 'budget',
    name: 'Lowest cost',
    description: 'The cheapest models that still follow instructions well.',
    defaultModels: [
      { model_id: 'google/gemini-2.0-flash-lite-001', priority: 1 },
      { model_id: 'deepseek/deepseek-chat', priority: 2 },
      { model_id: 'meta-llama/llama-3.1-8b-instruct', priority: 3 },
    ],
  },
  {
    id: 'open-weights',
    name: 'Open weights',
    description: 'Only models whose weights are published, for teams that want to be able to self-host later.',
    defaultModels: [
      { model_id: 'meta-llama/llama-3.3-70b-instruct', priority: 1 },
      { model_id: 'deepseek/deepseek-chat', priority: 2 },
      { model_id: 'mistralai/mistral-small', priority: 3 },
    ],
  },
];

/**
 * The templates in effect: the built-in ones, with config templates replacing a built-in of the
 * same id and adding the rest. Throws a ConfigError naming the bad field.
 */
export function resolveRoutingTemplates(routingSection: Record<string, unknown>): RoutingTemplate[] {
  const { templates, builtin_templates: useBuiltIns } = settleConfigSection(
    'routing',
    routingSection,
    RoutingSectionSchema,
  );
  const byId = new Map<string, RoutingTemplate>();
  if (useBuiltIns) for (const template of BUILT_IN_ROUTING_TEMPLATES) byId.set(template.id, template);
  const seen = new Set<string>();
  templates.forEach((template, index) => {
    if (seen.has(template.id))
      throw sectionError(routingSection, `routing.templates[${index}].id`, `"${template.id}" appears twice`);
    seen.add(template.id);
    const priorities = new Set(template.default_models.map((item) => item.priority));
    if (priorities.size !== template.default_models.length) {
      throw sectionError(routingSection, `routing.templates[${index}].default_models`, 'must have unique priorities');
    }
    byId.set(template.id, {
      id: template.id,
      name: template.name,
      description: template.description ?? '',
      defaultModels: [...template.default_models].sort((a, b) => a.priority - b.priority),
    });
  });
  return [...byId.values()];
}
