import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { stringEnum } from '../../shared/typebox-type-provider.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * JSON Schema of POST /v1/responses: shapes and ranges. Items and tools are checked in
 * responses-to-chat.ts, where each error can name the exact item.
 */
export const ResponsesRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    input: Type.Optional(
      Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))], {
        description: 'a string or an array of input items',
      }),
    ),
    instructions: Type.Optional(Nullable(Type.String())),
    tools: Type.Optional(
      Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }), { maxItems: 128 }),
    ),
    tool_choice: Type.Optional(
      Type.Union([Type.String(), Type.Object({ type: Type.String() }, { additionalProperties: true })], {
        description: '"none", "auto", "required" or {"type": "function", "name": …}',
      }),
    ),
    text: Type.Optional(
      Type.Object(
        {
          format: Type.Optional(
            Type.Object({ type: stringEnum(['text', 'json_object', 'json_schema']) }, { additionalProperties: true }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
    max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
    top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
    reasoning: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    metadata: Type.Optional(
      Nullable(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 })),
    ),
    store: Type.Optional(Nullable(Type.Boolean())),
    previous_response_id: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    stream: Type.Optional(Nullable(Type.Boolean())),
    parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
    user: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: true, description: 'An OpenAI Responses API request.' },
);

/** GET /v1/responses/{id}. */
export const ResponseIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

export type ResponsesBody = Static<typeof ResponsesRequestSchema>;
