import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/load-config.js';
import { BUILT_IN_ROUTING_TEMPLATES, resolveRoutingTemplates } from './resolve-routing-templates.js';

describe('resolveRoutingTemplates', () => {
  it('serves the built-in templates when the config has none', () => {
    expect(resolveRoutingTemplates({}).map((template) => template.id)).toEqual(
      BUILT_IN_ROUTING_TEMPLATES.map((template) => template.id),
    );
  });

  it('lets the config replace a built-in by id, add its own, or drop the built-ins', () => {
    const templates = [
      {
        id: 'balanced',
        name: 'Ours',
        default_models: [
          { model_id: 'x/y', priority: 2 },
          { model_id: 'x/z', priority: 1 },
        ],
      },
      { id: 'extra', name: 'Extra', description: 'more', default_models: [{ model_id: 'x/y', priority: 1 }] },
    ];
    const merged = resolveRoutingTemplates({ templates });
    expect(merged.find((template) => template.id === 'balanced')).toEqual({
      id: 'balanced',
      name: 'Ours',
      description: '',
      defaultModels: [
        { model_id: 'x/z', priority: 1 },
        { model_id: 'x/y', priority: 2 },
      ],
    });
    expect(merged.map((template) => template.id)).toContain('frontier');
    expect(merged.map((template) => template.id)).toContain('extra');
    expect(resolveRoutingTemplates({ templates, builtin_templates: false }).map((template) => template.id)).toEqual([
      'balanced',
      'extra',
    ]);
  });

  it.each([
    [{ templates: [{ id: 'a', default_models: [{ model_id: 'x', priority: 1 }] }] }, /routing\.templates\[0\]/],
    [
      { templates: [{ id: 'a', name: 'A', default_models: [{ model_id: 'x', priority: 0 }] }] },
      /routing\.templates\[0\]\.default_models\[0\]\.priority/,
    ],
    [
      {
        templates: [
          {
            id: 'a',
            name: 'A',
            default_models: [
              { model_id: 'x', priority: 1 },
              { model_id: 'y', priority: 1 },
            ],
          },
        ],
      },
      /routing\.templates\[0\]\.default_models must have unique priorities/,
    ],
    [
      {
        templates: [
          { id: 'a', name: 'A', default_models: [{ model_id: 'x', priority: 1 }] },
          { id: 'a', name: 'B', default_models: [{ model_id: 'x', priority: 1 }] },
        ],
      },
      /routing\.templates\[1\]\.id/,
    ],
    [{ templates: 'nope' }, /routing\.templates/],
  ])('refuses a bad config naming the field: %j', (section, message) => {
    expect(() => resolveRoutingTemplates(section)).toThrow(ConfigError);
    expect(() => resolveRoutingTemplates(section)).toThrow(message);
  });

  it('gives every built-in template unique priorities', () => {
    for (const template of BUILT_IN_ROUTING_TEMPLATES) {
      expect(new Set(template.defaultModels.map((item) => item.priority)).size).toBe(template.defaultModels.length);
    }
  });
});
