import { Type, type TSchema } from '@sinclair/typebox';
import { stringEnum } from './typebox-type-provider.js';

/**
 * JSON Schema of POST /v1/chat/completions (spec §4.2, ranges of §8), and through `Static` the one
 * declaration of the request's type (shared/openai-types.ts). It validates the shape and ranges,
 * feeds /openapi.json, and lets unknown top-level parameters through (they are passed to
 * OpenAI-compatible upstreams). Rules that span fields live in gateway/validate-chat-request.ts.
 * `Type.Unsafe` gives a string enum its literal type while Ajv keeps checking the same `enum`.
 */

export const TextPartSchema = Type.Object({ type: Type.Literal('text'), text: Type.String() });
export const ImagePartSchema = Type.Object({
  type: Type.Literal('image_url'),
  image_url: Type.Object({
    url: Type.String({ minLength: 1 }),
    detail: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('low'), Type.Literal('high')])),
  }),
});
export const AudioPartSchema = Type.Object({
  type: Type.Literal('input_audio'),
  input_audio: Type.Object({ data: Type.String(), format: Type.String() }),
});
export const FilePartSchema = Type.Object({
  type: Type.Literal('file'),
  file: Type.Object({
    file_data: Type.Optional(Type.String()),
    file_id: Type.Optional(Type.String()),
    filename: Type.Optional(Type.String()),
  }),
});

export const ToolCallSchema = Type.Object({
  id: Type.String({ minLength: 1 }),
  type: Type.Literal('function'),
  function: Type.Object({ name: Type.String({ minLength: 1 }), arguments: Type.String() }),
});

export const MessageSchema = Type.Object(
  {
    role: stringEnum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: Type.Optional(
      Type.Union(
        [
          Type.String(),
          Type.Array(Type.Union([TextPartSchema, ImagePartSchema, AudioPartSchema, FilePartSchema])),
          Type.Null(),
        ],
        {
          description: 'a string or an array of content parts',
        },
      ),
    ),
    name: Type.Optional(Type.String()),
    tool_calls: Type.Optional(Type.Array(ToolCallSchema)),
    tool_call_id: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: true },
);

export const FunctionToolSchema = Type.Object({
  type: Type.Literal('function'),
  function: Type.Object({
    name: Type.String({
      pattern: '^[a-zA-Z0-9_-]{1,64}$',
      description: 'letters, digits, underscores and dashes, at most 64',
    }),
    description: Type.Optional(Type.String()),
    parameters: Type.Optional(Type.Object({}, { additionalProperties: true })),
    strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  }),
});

export const ToolChoiceSchema = Type.Union(
  [
    stringEnum(['none', 'auto', 'required']),
    Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String({ minLength: 1 }) }) }),
  ],
  { description: '"none", "auto", "required" or {"type": "function", "function": {"name": …}}' },
);

const ResponseFormatSchema = Type.Object({
  type: stringEnum(['text', 'json_object', 'json_schema']),
  json_schema: Type.Optional(
    Type.Object({
      name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
      description: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
      strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    }),
  ),
});

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ChatCompletionRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: Type.Array(MessageSchema, { minItems: 1 }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(
      Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }), Type.Null()]),
    ),
    temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    max_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    max_completion_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    frequency_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2 }))),
    presence_penalty: Type.Optional(Nullable(Type.Number({ minimum: -2, maximum: 2 }))),
    n: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 128 }))),
    stop: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 }), Type.Null()], {
        description: 'a string or an array of at most 4 strings',
      }),
    ),
    seed: Type.Optional(Nullable(Type.Integer())),
    user: Type.Optional(Type.String({ maxLength: 512 })),
    logprobs: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
    logit_bias: Type.Optional(
      Type.Union([Type.Record(Type.String(), Type.Number({ minimum: -100, maximum: 100 })), Type.Null()]),
    ),
    tools: Type.Optional(Type.Array(FunctionToolSchema, { maxItems: 128 })),
    tool_choice: Type.Optional(ToolChoiceSchema),
    parallel_tool_calls: Type.Optional(Type.Boolean()),
    response_format: Type.Optional(ResponseFormatSchema),
    enable_search: Type.Optional(Type.Boolean()),
    // Routing fields (docs/routing.md); checked by src/routing/provider-preferences.ts so each error names its exact field.
    provider: Type.Optional(
      Type.Unknown({
        description:
          'OpenRouter-style provider preferences: order, only, ignore, allow_fallbacks, sort (price|throughput|latency), max_price',
      }),
    ),
    models: Type.Optional(
      Type.Unknown({ description: 'fallback model ids tried after model, in order (array of strings, at most 16)' }),
    ),
  },
  {
    additionalProperties: true,
    description: 'An OpenAI chat completion request. Unknown parameters are passed to OpenAI-compatible providers.',
  },
);
