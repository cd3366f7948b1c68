import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The parts of an OpenAI chat stream chunk the gateway reads, as a schema: checked at run time
 * (providers/shared/upstream-schema.ts) and the type the decoder reads. Everything is optional
 * where OpenAI-compatible servers (vLLM, Ollama, Groq, Together, Mistral) leave it out; fields the
 * gateway does not read are not listed and pass through unchecked.
 */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Usage as OpenAI-compatible servers report it; normalizeUsage fills what is missing. */
const OpenAIUsageSchema = Type.Object({
  prompt_tokens: Type.Optional(Type.Number()),
  completion_tokens: Type.Optional(Type.Number()),
  total_tokens: Type.Optional(Type.Number()),
  /** DeepSeek's cache hits. */
  prompt_cache_hit_tokens: Type.Optional(Type.Number()),
  prompt_tokens_details: Type.Optional(Nullable(Type.Object({ cached_tokens: Type.Optional(Type.Number()) }))),
  completion_tokens_details: Type.Optional(Nullable(Type.Object({ reasoning_tokens: Type.Optional(Type.Number()) }))),
});
export type OpenAIWireUsage = Static<typeof OpenAIUsageSchema>;

const ToolCallDeltaSchema = Type.Object({
  /** Mistral sends whole tool calls without `index` or `type`. */
  index: Type.Optional(Type.Number()),
  id: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  function: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), arguments: Type.Optional(Type.String()) })),
});

const DeltaSchema = Type.Object({
  /** A string, or Mistral Magistral's array of thinking/text parts (normalizeDelta reads them). */
  content: Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(Type.Unknown())]))),
  /** DeepSeek, vLLM and SGLang's name for the reasoning text. */
  reasoning_content: Type.Optional(Nullable(Type.String())),
  tool_calls: Type.Optional(Nullable(Type.Array(ToolCallDeltaSchema))),
});
export type OpenAIWireDelta = Static<typeof DeltaSchema>;

/** Where a chunk or a whole answer carries its usage (read alone by the pass-through's usage reader). */
const usageFields = {
  usage: Type.Optional(Nullable(OpenAIUsageSchema)),
  /** Groq reports usage here. */
  x_groq: Type.Optional(Nullable(Type.Object({ usage: Type.Optional(Nullable(OpenAIUsageSchema)) }))),
};
export const OpenAIUsageCarrierSchema = Type.Object(usageFields);

export const OpenAIChunkSchema = Type.Object({
  ...usageFields,
  created: Type.Optional(Type.Number()),
  /** A chunk without choices (or `choices: []`) carries only usage. */
  choices: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          index: Type.Optional(Type.Number()),
          delta: Type.Optional(Nullable(DeltaSchema)),
          finish_reason: Type.Optional(Nullable(Type.String())),
        }),
      ),
    ),
  ),
});

const MessageSchema = Type.Object({
  content: Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(Type.Unknown())]))),
  reasoning_content: Type.Optional(Nullable(Type.String())),
  tool_calls: Type.Optional(
    Nullable(
      Type.Array(
        Type.Object({
          /** Made when a server leaves it out; Mistral leaves out `type`. */
          id: Type.Optional(Type.String()),
          type: Type.Optional(Type.String()),
          function: Type.Object({ name: Type.String(), arguments: Type.String() }),
        }),
      ),
    ),
  ),
});
export type OpenAIWireMessage = Static<typeof MessageSchema>;

/** A whole (stream: false) chat answer, as far as the gateway reads it. */
export const OpenAIResponseSchema = Type.Object({
  ...usageFields,
  created: Type.Optional(Type.Number()),
  choices: Type.Array(
    Type.Object({
      index: Type.Optional(Type.Number()),
      message: Type.Optional(Nullable(MessageSchema)),
      finish_reason: Type.Optional(Nullable(Type.String())),
    }),
  ),
});
