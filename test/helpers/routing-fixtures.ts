import { loadConfig } from '../../src/config/load-config.js';
import { ModelDirectory } from '../../src/routing/model-directory.js';
import type { ApiKeyRecord } from '../../src/routing/api-key-record.js';
import { toApiKeyRecord } from '../../src/keys/to-api-key-record.js';

/**
 * A directory for routing unit tests: chat/a (three endpoints), chat/b, chat/c (search), chat/d.
 * Prices: p1 cheapest, p2 dearest, p3 mid.
 */
export function routingDirectory(): ModelDirectory {
  const provider = (id: string) => `  - { id: ${id}, type: openai, base_url: http://127.0.0.1:9/v1 }`;
  const text = `
providers:
${['p1', 'p2', 'p3'].map(provider).join('\n')}
models:
  - id: chat/a
    endpoints:
      - { provider: p1, upstream_model: a-1, pricing: { prompt: 1, completion: 2 }, priority: 1 }
      - { provider: p2, upstream_model: a-2, pricing: { prompt: 3, completion: 6 }, priority: 1 }
      - { provider: p3, upstream_model: a-3, pricing: { prompt: 2, completion: 4 }, priority: 1 }
  - id: chat/b
    endpoints:
      - { provider: p2, upstream_model: b-2 }
  - id: chat/c
    endpoints:
      - { provider: p3, upstream_model: c-3, supports_search: true }
      - { provider: p1, upstream_model: c-1 }
  - id: chat/d
    endpoints:
      - { provider: p1, upstream_model: d-1 }
`;
  return new ModelDirectory(loadConfig({ text, env: {}, knownProviderTypes: ['openai'] }).config);
}

export function keyRecord(
  fields: {
    routing_mode?: string;
    allowed_models?: string[];
    default_models?: Array<{ model_id: string; priority: number }>;
    template_id?: string;
  } = {},
): ApiKeyRecord {
  return toApiKeyRecord({
    id: 'key_1',
    user_id: 'user_1',
    name: 'k',
    description: '',
    key_hash: 'h',
    key_start: 's',
    key_end: 'e',
    routing_mode: fields.routing_mode ?? 'code',
    allowed_models: fields.allowed_models ? JSON.stringify(fields.allowed_models) : null,
    rpm_limit: null,
    tpm_limit: null,
    monthly_quota_micros: null,
    credit_limit_micros: null,
    expires_at: null,
    disabled: 0,
    template_id: fields.template_id ?? null,
    default_models: fields.default_models ? JSON.stringify(fields.default_models) : null,
    created_at: 0,
    updated_at: 0,
    last_used_at: null,
    revoked_at: null,
  });
}
