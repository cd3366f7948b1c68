import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * Request and response schemas of the key API (spec §4.1). They validate requests (a bad field is
 * a 400 naming it) and feed the OpenAPI document. Rules a schema cannot express (expiration in the
 * future, known models, unique priorities, existing templates) live in api-key-input.ts.
 */

const MAX_LIMIT = 1_000_000_000;
/** USD amounts up to a billion, so micro-USD stays a safe integer. */
const MAX_USD = 1_000_000_000;

function orNull<T extends TSchema>(schema: T, description: string) {
  return Type.Union([schema, Type.Null()], { description });
}

const ModelPattern = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '^\\S+$',
  description: 'a model id or a glob such as openai/*',
});

const DefaultModelSchema = Type.Object(
  {
    model_id: Type.String({ minLength: 1, maxLength: 200, description: 'A model id the gateway serves.' }),
    priority: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Order of use, 1 first; unique within the list.',
    }),
  },
  { additionalProperties: false },
);

const DefaultModelsSchema = Type.Array(DefaultModelSchema, {
  maxItems: 50,
  description: 'Default models: the fallback chain (code mode) or the models used (manual mode).',
});

const fields = {
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '\\S',
    description: 'a name of 1 to 100 characters, not only spaces',
  }),
  description: Type.String({ maxLength: 1000 }),
  routing_mode: Type.Union([Type.Literal('code'), Type.Literal('manual')], {
    description: 'code (default): the request names the model; manual: default_models decide.',
  }),
  allowed_models: orNull(
    Type.Array(ModelPattern, { minItems: 1, maxItems: 200 }),
    'a non-empty array of model ids or globs (openai/*), or null for every model',
  ),
  rpm_limit: orNull(
    Type.Integer({ minimum: 1, maximum: MAX_LIMIT }),
    'a positive integer (requests per minute), or null for no limit',
  ),
  tpm_limit: orNull(
    Type.Integer({ minimum: 1, maximum: MAX_LIMIT }),
    'a positive integer (tokens per minute), or null for no limit',
  ),
  monthly_quota: orNull(
    Type.Number({ minimum: 0, maximum: MAX_USD }),
    'an amount in USD of at least 0 (spend per calendar month, UTC), or null for none',
  ),
  credit_limit: orNull(
    Type.Number({ minimum: 0, maximum: MAX_USD }),
    "an amount in USD of at least 0 (spend over the key's life), or null for none",
  ),
  expiration: orNull(
    Type.String({ format: 'date-time' }),
    'an ISO 8601 date-time with a time zone, in the future, or null for never',
  ),
  template_id: orNull(
    Type.String({ minLength: 1, maxLength: 64 }),
    'the id of a routing template (GET /api-account/routing-templates), or null',
  ),
  default_models: DefaultModelsSchema,
  include_cost: Type.Boolean({
    description: 'true: every answer made with the key includes usage.cost, as if it asked (usage: {include: true}).',
  }),
};

/** `expires_at`: the name the record used before it followed the spec; accepted as an alias of `expiration`. */
const expiresAtAlias = Type.Optional(
  orNull(Type.String({ format: 'date-time' }), 'an alias of expiration (give one of the two, or both equal)'),
);

/**
 * Fields of the key record that cannot be written. PATCH accepts them so that a record read with
 * GET can be sent back whole ("write what you read"); their values are ignored, except that
 * `key_id` must name the key in the path.
 */
const ignored = { readOnly: true, description: 'read-only: accepted and ignored' };
const readOnlyFields = {
  key_id: Type.Optional(Type.String({ readOnly: true, description: 'read-only: must name the key in the path' })),
  masked_key: Type.Optional(Type.String(ignored)),
  status: Type.Optional(Type.String(ignored)),
  spend_this_month: Type.Optional(Type.Number(ignored)),
  spend_total: Type.Optional(Type.Number(ignored)),
  previous_key_expiration: Type.Optional(Type.Union([Type.String(), Type.Null()], ignored)),
  created_at: Type.Optional(Type.String(ignored)),
  updated_at: Type.Optional(Type.String(ignored)),
  last_used_at: Type.Optional(Type.Union([Type.String(), Type.Null()], ignored)),
};

/** Content logging (opt-in): keep this key's request and answer bodies, shown on each request's activity page. */
const logContentField = Type.Boolean({
  description:
    "Keep the bodies of this key's requests and answers (compressed, capped per request, erased after the retention); off by default.",
});

export const CreateApiKeyBodySchema = Type.Object(
  {
    name: fields.name,
    description: Type.Optional(fields.description),
    routing_mode: Type.Optional(fields.routing_mode),
    allowed_models: Type.Optional(fields.allowed_models),
    rpm_limit: Type.Optional(fields.rpm_limit),
    tpm_limit: Type.Optional(fields.tpm_limit),
    monthly_quota: Type.Optional(fields.monthly_quota),
    credit_limit: Type.Optional(fields.credit_limit),
    expiration: Type.Optional(fields.expiration),
    expires_at: expiresAtAlias,
    template_id: Type.Optional(fields.template_id),
    default_models: Type.Optional(fields.default_models),
    include_cost: Type.Optional(fields.include_cost),
    log_content: Type.Optional(logContentField),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBodySchema>;

export const UpdateApiKeyBodySchema = Type.Object(
  {
    name: Type.Optional(fields.name),
    description: Type.Optional(fields.description),
    routing_mode: Type.Optional(fields.routing_mode),
    allowed_models: Type.Optional(fields.allowed_models),
    rpm_limit: Type.Optional(fields.rpm_limit),
    tpm_limit: Type.Optional(fields.tpm_limit),
    monthly_quota: Type.Optional(fields.monthly_quota),
    credit_limit: Type.Optional(fields.credit_limit),
    expiration: Type.Optional(fields.expiration),
    template_id: Type.Optional(fields.template_id),
    default_models: Type.Optional(fields.default_models),
    disabled: Type.Optional(
      Type.Boolean({ description: 'true stops the key (403 key_disabled) until set back to false.' }),
    ),
    include_cost: Type.Optional(fields.include_cost),
    expires_at: expiresAtAlias,
    log_content: Type.Optional(logContentField),
    ...readOnlyFields,
  },
  {
    additionalProperties: false,
    description:
      'The fields to change; those left out keep their value, null clears. A whole record as GET returns it is accepted: its read-only fields are ignored.',
  },
);
export type UpdateApiKeyBody = Static<typeof UpdateApiKeyBodySchema>;

export const PutDefaultModelsBodySchema = Type.Object(
  {
    template_id: Type.Optional(fields.template_id),
    default_models: Type.Optional(fields.default_models),
  },
  { additionalProperties: false },
);
export type PutDefaultModelsBody = Static<typeof PutDefaultModelsBodySchema>;

export const KeyIdParamsSchema = Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 100 }) });

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);

export const ApiKeySchema = Type.Object(
  {
    key_id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    masked_key: Type.String({ description: 'The key with its middle hidden: sk-gw-ab12…wxyz.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('expired')]),
    disabled: Type.Boolean(),
    routing_mode: Type.Union([Type.Literal('code'), Type.Literal('manual')]),
    allowed_models: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'null: every model.' }),
    template_id: NullableString,
    default_models: Type.Array(DefaultModelSchema),
    rpm_limit: NullableInteger,
    tpm_limit: NullableInteger,
    monthly_quota: Type.Union([Type.Number(), Type.Null()], { description: 'USD per calendar month (UTC).' }),
    credit_limit: Type.Union([Type.Number(), Type.Null()], { description: "USD over the key's life." }),
    include_cost: fields.include_cost,
    spend_this_month: Type.Number({ description: 'USD spent in the current calendar month (UTC).' }),
    spend_total: Type.Number({ description: "USD spent over the key's life." }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    last_used_at: NullableString,
    expiration: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the key stops working (spec §2.1); null: never.',
    }),
    previous_key_expiration: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'After a rotation: until when the replaced secret still works (the grace period); null when there is none or it has ended.',
    }),
    log_content: logContentField,
  },
  { $id: 'ApiKey', description: 'An API key: metadata, routing settings and limits. Never the full key.' },
);
export type ApiKeyView = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Composite(
  [
    ApiKeySchema,
    Type.Object({
      key: Type.String({ description: 'The full key, sk-gw-…. Shown only in this response: store it now.' }),
    }),
  ],
  { description: 'The new key, with its full value shown this once.' },
);

/** The longest grace period a rotation may give the replaced secret: 7 days. */
const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;
/** The grace period when the request names none: 24 hours. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;

export const RotateApiKeyBodySchema = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_SECONDS,
        description:
          'How long the replaced secret keeps working, in seconds: 0 ends it at once; default 86400 (24 h), at most 604800 (7 days).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeyListSchema = Type.Object({ data: Type.Array(Type.Ref('ApiKey')) });

export const DefaultModelsConfigurationSchema = Type.Object({
  key_id: Type.String(),
  routing_mode: Type.Union([Type.Literal('code'), Type.Literal('manual')]),
  template_id: NullableString,
  default_models: Type.Array(DefaultModelSchema),
});

export const RoutingTemplateListSchema = Type.Object({
  data: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      default_models: Type.Array(
        Type.Object({
          model_id: Type.String(),
          priority: Type.Integer(),
          available: Type.Boolean({ description: 'Whether a configured provider serves this model here.' }),
        }),
      ),
    }),
  ),
});
