/** Three models (two under test/*, one elsewhere) and templates overriding and extending the built-ins. */
export const KEY_TEST_CONFIG_EXTRA = `
  - id: test/other
    name: Test Other
    endpoints:
      - provider: mock
        upstream_model: mock-other
        pricing: { prompt: 1, completion: 2 }
  - id: elsewhere/model
    name: Elsewhere
    endpoints:
      - provider: mock
        upstream_model: mock-elsewhere
routing:
  templates:
    - id: starter
      name: Starter
      description: The two test models
      default_models:
        - { model_id: test/other, priority: 2 }
        - { model_id: test/chat, priority: 1 }
    - id: balanced
      name: Balanced here
      default_models:
        - { model_id: test/chat, priority: 1 }
        - { model_id: not/served, priority: 2 }
    - id: nothing-served
      name: Nothing served
      default_models:
        - { model_id: not/served, priority: 1 }
`;

export const FUTURE = '2999-01-01T00:00:00Z';

/** A create request with every field of spec §4.1 set. */
export const EVERY_FIELD = {
  name: 'production',
  description: 'the main service',
  routing_mode: 'code',
  allowed_models: ['test/*', 'elsewhere/model'],
  rpm_limit: 60,
  tpm_limit: 100000,
  monthly_quota: 12.5,
  credit_limit: 100.123456,
  expiration: FUTURE,
  template_id: 'starter',
  default_models: [{ model_id: 'test/other', priority: 1 }],
};
