import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The parts of an Anthropic message (a whole `/v1/messages` answer) the gateway reads, as a schema:
 * checked at run time (providers/shared/upstream-schema.ts) and the type the parser reads. Fields
 * the gateway does not read are not listed and pass through unchecked.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const AnthropicUsageSchema = Type.Object({
  input_tokens: Type.Optional(Type.Number()),
  output_tokens: Type.Optional(Type.Number()),
  cache_creation_input_tokens: Type.Optional(Nullable(Type.Number())),
  cache_read_input_tokens: Type.Optional(Nullable(Type.Number())),
  server_tool_use: Type.Optional(Nullable(Type.Object({ web_search_requests: Type.Optional(Type.Number()) }))),
});

export const AnthropicCitationSchema = Type.Object({
  type: Type.String(),
  url: Type.Optional(Type.String()),
  title: Type.Optional(Nullable(Type.String())),
  cited_text: Type.Optional(Type.String()),
});

/** Blocks the parser turns into the answer; others (server tools and their results) are the provider's own work. */
export const AnthropicTextBlockSchema = Type.Object({
  type: Type.Literal('text'),
  text: Type.String(),
  citations: Type.Optional(Nullable(Type.Array(AnthropicCitationSchema))),
});
export const AnthropicThinkingBlockSchema = Type.Object({ type: Type.Literal('thinking'), thinking: Type.String() });
export const AnthropicToolUseBlockSchema = Type.Object({
  type: Type.Literal('tool_use'),
  id: Type.String(),
  name: Type.String(),
  input: Type.Optional(Type.Unknown()),
});

export const AnthropicResponseSchema = Type.Object({
  id: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
  /** Each block is checked by its own type's schema when the parser reads it. */
  content: Type.Array(Type.Object({ type: Type.String() })),
  stop_reason: Type.Optional(Nullable(Type.String())),
  stop_sequence: Type.Optional(Nullable(Type.String())),
  usage: Type.Optional(Nullable(AnthropicUsageSchema)),
});
