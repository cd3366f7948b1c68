import { Type } from '@sinclair/typebox';

const usd = (what: string) => ({
  [what]: Type.Number({ description: `${what}, USD (for display)` }),
  [`${what}_nanos`]: Type.Integer({ description: `${what}, exact nano-USD` }),
});

const totals = {
  requests: Type.Integer({
    description: 'Requests that reached a model; those refused before any provider was tried are in failures',
  }),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  cached_tokens: Type.Integer(),
  reasoning_tokens: Type.Integer(),
  total_tokens: Type.Integer(),
  ...usd('cost'),
};

export const BalanceSchema = Type.Object({
  currency: Type.String(),
  ...usd('balance'),
  ...usd('held'),
  ...usd('available'),
});

export const UsageReportSchema = Type.Object({
  start_date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  end_date: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  currency: Type.String(),
  totals: Type.Object(totals),
  daily: Type.Array(Type.Object({ date: Type.String(), ...totals })),
  by_model: Type.Array(Type.Object({ model: Type.String(), ...totals })),
  by_key: Type.Array(Type.Object({ key_id: Type.String(), name: Type.Union([Type.String(), Type.Null()]), ...totals })),
  failures: Type.Array(
    Type.Object({
      status: Type.Integer({ description: 'HTTP status answered' }),
      error_code: Type.Union([Type.String(), Type.Null()], { description: 'The error envelope code' }),
      requests: Type.Integer(),
      models: Type.Array(Type.String(), { description: 'Model ids (or unknown ids asked for), most frequent first' }),
    }),
    { description: 'Failed requests (status >= 400) by status and error code, most frequent first' },
  ),
});
