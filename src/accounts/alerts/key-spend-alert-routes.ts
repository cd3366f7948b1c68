import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import { InvalidRequestError, NotFoundError } from '../../shared/errors.js';
import { nanosToUsdNumber, usdToNanos } from '../../metering/money.js';
import { findApiKeyForUser } from '../../keys/api-key-repository.js';
import {
  deleteKeySpendAlert,
  getKeySpendAlert,
  keyPeriodSpend,
  periodStarts,
  setKeySpendAlert,
  SPEND_PERIODS,
  type KeySpendAlert,
  type PeriodAmounts,
} from '../../credits/key-spend-alerts.js';
import { KeyIdParamsSchema } from '../keys/api-key-schemas.js';
import { checkWebhookUrl } from './webhook-url.js';

const Usd = Type.Union([Type.Number(), Type.Null()]);
const perPeriod = <T extends ReturnType<typeof Type.Union>>(schema: T, description: string) =>
  Type.Object({ daily: schema, weekly: schema, monthly: schema }, { description });

const KeySpendAlertSchema = Type.Object({
  key_id: Type.String(),
  configured: Type.Boolean(),
  currency: Type.Literal('USD'),
  thresholds: perPeriod(Usd, 'USD per UTC period (day, ISO week from Monday, calendar month); null: none'),
  thresholds_nanos: perPeriod(Type.Union([Type.Integer(), Type.Null()]), 'the thresholds in nano-USD'),
  spend: perPeriod(Usd, "the key's spend in the current period, USD"),
  period_start: perPeriod(Type.Union([Type.String(), Type.Null()]), 'where each current period started (UTC)'),
  fired: perPeriod(
    Type.Union([Type.Boolean(), Type.Null()]),
    'true once the threshold fired in the current period (it re-arms when the next starts)',
  ),
  email: Type.Boolean({ description: "mail the account's address" }),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_secret: Type.Optional(
    Type.String({ description: 'the HMAC key of the webhook signature: shown only when it is made' }),
  ),
});

const Threshold = Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000 }), Type.Null()]);

const SetKeySpendAlertSchema = Type.Object(
  {
    thresholds: Type.Object(
      { daily: Type.Optional(Threshold), weekly: Type.Optional(Threshold), monthly: Type.Optional(Threshold) },
      { additionalProperties: false, description: 'USD per period; at least one; absent or null: none' },
    ),
    email: Type.Optional(Type.Boolean({ default: true })),
    webhook_url: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    rotate_secret: Type.Optional(
      Type.Boolean({ description: 'make a new webhook secret (the old one stops working)' }),
    ),
  },
  { additionalProperties: false },
);

type Params = Static<typeof KeyIdParamsSchema>;
const errors = { 400: { $ref: 'ErrorEnvelope#' }, 401: { $ref: 'ErrorEnvelope#' }, 404: { $ref: 'ErrorEnvelope#' } };

/** /api-account/user/api-keys/{key_id}/alerts/spend (GET, PUT, DELETE): a key's spend thresholds (issue 27, item 5). */
export function registerKeySpendAlertRoutes(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; allowHttpWebhooks?: boolean },
): void {
  const tags = ['alerts'];
  const path = '/user/api-keys/:key_id/alerts/spend';
  const ownKey = async (userId: string, keyId: string) => {
    if (!(await findApiKeyForUser(deps.store.db, userId, keyId)))
      throw new NotFoundError(`No API key '${keyId}'.`, 'api_key_not_found', 'key_id');
  };
  const json = async (keyId: string, alert: KeySpendAlert | null, secret?: string | null) => {
    const now = deps.clock.now();
    const starts = periodStarts(now);
    const spent = (await keyPeriodSpend(deps.store.db, [keyId], now)).get(keyId);
    const per = <T>(value: (period: (typeof SPEND_PERIODS)[number]) => T) =>
      Object.fromEntries(SPEND_PERIODS.map((period) => [period, value(period)])) as Record<
        (typeof SPEND_PERIODS)[number],
        T
      >;
    const threshold = (period: (typeof SPEND_PERIODS)[number]) => alert?.thresholdsNanos[period] ?? null;
    return {
      key_id: keyId,
      configured: alert !== null,
      currency: 'USD' as const,
      thresholds: per((period) => {
        const nanos = threshold(period);
        return nanos === null ? null : nanosToUsdNumber(nanos);
      }),
      thresholds_nanos: per(threshold),
      spend: per((period) => nanosToUsdNumber(spent?.[period] ?? 0)),
      period_start: per((period) => new Date(starts[period]).toISOString()),
      fired: per((period) => {
        if (threshold(period) === null) return null;
        const firedFor = alert?.firedFor[period] ?? null;
        return firedFor !== null && firedFor >= starts[period];
      }),
      email: alert?.email ?? false,
      webhook_url: alert?.webhookUrl ?? null,
      ...(secret ? { webhook_secret: secret } : {}),
    };
  };

  app.get<{ Params: Params }>(
    path,
    {
      schema: {
        summary: "A key's spend alert: thresholds per day, week and month, and this period's spend",
        tags,
        params: KeyIdParamsSchema,
        response: { 200: KeySpendAlertSchema, ...errors },
      },
    },
    async (request) => {
      const { key_id: keyId } = request.params;
      await ownKey(request.user!.id, keyId);
      return json(keyId, await getKeySpendAlert(deps.store.db, request.user!.id, keyId));
    },
  );
  app.put<{ Params: Params; Body: Static<typeof SetKeySpendAlertSchema> }>(
    path,
    {
      schema: {
        summary:
          "Set a key's spend alert: an email, and optionally a signed webhook, once per period the key's spend reaches a threshold",
        tags,
        params: KeyIdParamsSchema,
        body: SetKeySpendAlertSchema,
        response: { 200: KeySpendAlertSchema, ...errors },
      },
    },
    async (request) => {
      const { key_id: keyId } = request.params;
      const userId = request.user!.id;
      await ownKey(userId, keyId);
      const body = request.body;
      const thresholdsNanos = {} as PeriodAmounts;
      for (const period of SPEND_PERIODS) {
        const usd = body.thresholds[period];
        try {
          thresholdsNanos[period] = usd === undefined || usd === null ? null : usdToNanos(usd);
        } catch {
          throw new InvalidRequestError(`thresholds.${period} has more than 9 decimal places.`, `thresholds.${period}`);
        }
      }
      if (SPEND_PERIODS.every((period) => thresholdsNanos[period] === null))
        throw new InvalidRequestError('Set at least one of thresholds.daily, weekly or monthly.', 'thresholds');
      const webhookUrl =
        body.webhook_url === undefined || body.webhook_url === null || body.webhook_url === ''
          ? null
          : checkWebhookUrl(body.webhook_url, deps.allowHttpWebhooks === true);
      const { alert, newSecret } = await setKeySpendAlert(
        deps.store.db,
        userId,
        keyId,
        { thresholdsNanos, email: body.email ?? true, webhookUrl, rotateSecret: body.rotate_secret },
        deps.clock.now(),
      );
      return json(keyId, alert, newSecret);
    },
  );
  app.delete<{ Params: Params }>(
    path,
    {
      schema: {
        summary: "Remove a key's spend alert",
        tags,
        params: KeyIdParamsSchema,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const { key_id: keyId } = request.params;
      await ownKey(request.user!.id, keyId);
      if (!(await deleteKeySpendAlert(deps.store.db, request.user!.id, keyId)))
        throw new NotFoundError('No spend alert is set on this key.', 'alert_not_found');
      return reply.code(204).send();
    },
  );
}
