import { Type, type Static } from '@sinclair/typebox';
import { stringEnum } from '../../shared/typebox-type-provider.js';

const Block = Type.Object({ type: Type.String() }, { additionalProperties: true });

/**
 * JSON Schema of POST /v1/messages (Anthropic Messages): only what the gateway routes and meters on
 * (model, max_tokens, messages); blocks are read in messages-to-chat.ts, unknown fields pass.
 */
export const MessagesRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    max_tokens: Type.Integer({ minimum: 1 }),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(Block)], { description: 'a string or text blocks' })),
    messages: Type.Array(
      Type.Object(
        {
          role: stringEnum(['user', 'assistant', 'system']),
          content: Type.Union([Type.String(), Type.Array(Block)], { description: 'a string or content blocks' }),
        },
        { additionalProperties: true },
      ),
      { minItems: 1 },
    ),
    tools: Type.Optional(
      Type.Array(
        Type.Object(
          { name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,128}$', description: 'letters, digits, _ and -' }) },
          { additionalProperties: true },
        ),
      ),
    ),
    tool_choice: Type.Optional(
      Type.Object({ type: stringEnum(['auto', 'any', 'tool', 'none']) }, { additionalProperties: true }),
    ),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    top_k: Type.Optional(Type.Integer({ minimum: 0 })),
    thinking: Type.Optional(
      Type.Object(
        { type: Type.String({ description: 'enabled (with budget_tokens), adaptive or disabled' }) },
        { additionalProperties: true },
      ),
    ),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true, description: 'An Anthropic Messages API request.' },
);

/** POST /v1/messages/count_tokens: a Messages request without max_tokens. */
export const MessagesCountSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    messages: MessagesRequestSchema.properties.messages,
  },
  { additionalProperties: true, description: 'An Anthropic count_tokens request.' },
);

export type MessagesBody = Static<typeof MessagesRequestSchema>;
