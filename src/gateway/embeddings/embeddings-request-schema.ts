import { Type, type Static } from '@sinclair/typebox';
import { stringEnum } from '../../shared/typebox-type-provider.js';

/** JSON Schema of POST /v1/embeddings (OpenAI's CreateEmbeddingRequest, plus the gateway's routing fields). */
export const EmbeddingsRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 256 }),
    input: Type.Union(
      [
        Type.String(),
        Type.Array(Type.String(), { minItems: 1, maxItems: 2048 }),
        Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 }),
        Type.Array(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 }), { minItems: 1, maxItems: 2048 }),
      ],
      {
        description:
          'a string, an array of at most 2048 strings, an array of token ids, or an array of at most 2048 token-id arrays',
      },
    ),
    dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536 })),
    encoding_format: Type.Optional(stringEnum(['float', 'base64'])),
    user: Type.Optional(Type.String({ maxLength: 512 })),
    provider: Type.Optional(Type.Unknown({ description: 'provider preferences, as on chat (docs/routing.md)' })),
    models: Type.Optional(Type.Unknown({ description: 'fallback model ids, as on chat' })),
  },
  { additionalProperties: true, description: 'An OpenAI embeddings request.' },
);

/** The request's type is its schema's (unknown fields are kept and passed on). */
export type EmbeddingsRequest = Static<typeof EmbeddingsRequestSchema> & { [extra: string]: unknown };
