import { Type } from '@sinclair/typebox';

export const ErrorEnvelopeSchema = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      type: Type.String(),
      code: Type.Union([Type.String(), Type.Null()]),
      param: Type.Union([Type.String(), Type.Null()]),
    }),
  },
  { $id: 'ErrorEnvelope', description: 'Every error, on every path (CONTRACT §3).' },
);
