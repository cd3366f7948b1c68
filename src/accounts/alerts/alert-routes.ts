import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Store } from '../../store/database.js';
import type { Clock } from '../../shared/clock.js';
import { InvalidRequestError, NotFoundError } from '../../shared/errors.js';
import { nanosToUsdNumber, usdToNanos } from '../../metering/money.js';
import {
  deleteBalanceAlert,
  getBalanceAlert,
  setBalanceAlert,
  type BalanceAlert,
} from '../../credits/balance-alerts.js';
import { listAlertDeliveries } from '../../credits/alert-delivery.js';
import { checkWebhookUrl } from './webhook-url.js';
import { registerKeySpendAlertRoutes } from './key-spend-alert-routes.js';
import { limitParameter } from '../paging-schemas.js';

const AlertSchema = Type.Object({
  configured: Type.Boolean(),
  currency: Type.Literal('USD'),
  threshold: Type.Union([Type.Number(), Type.Null()], { description: 'USD: alert when the balance falls under it' }),
  threshold_nanos: Type.Union([Type.Integer(), Type.Null()]),
  email: Type.Boolean({ description: "mail the account's address" }),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  armed: Type.Boolean({ description: 'false after it fired, until the balance is back at or above the threshold' }),
  webhook_secret: Type.Optional(
    Type.String({ description: 'the HMAC key of the webhook signature: shown only when it is made' }),
  ),
});

const SetAlertSchema = Type.Object(
  {
    threshold: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'USD' }),
    email: Type.Optional(Type.Boolean({ default: true })),
    webhook_url: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    rotate_secret: Type.Optional(
      Type.Boolean({ description: 'make a new webhook secret (the old one stops working)' }),
    ),
  },
  { additionalProperties: false },
);

const DeliverySchema = Type.Object({
  id: Type.String(),
  channel: Type.String({ description: 'email or webhook' }),
  event: Type.String({ description: 'balance_below, key_spend_daily, key_spend_weekly or key_spend_monthly' }),
  key_id: Type.Union([Type.String(), Type.Null()], { description: 'the key a key spend alert was about' }),
  status: Type.String({ description: 'pending, delivered, failed or skipped' }),
  attempts: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});

const errors = { 400: { $ref: 'ErrorEnvelope#' }, 401: { $ref: 'ErrorEnvelope#' } };

function alertJson(alert: BalanceAlert | null, secret?: string | null) {
  return {
    configured: alert !== null,
    currency: 'USD' as const,
    threshold: alert ? nanosToUsdNumber(alert.thresholdNanos) : null,
    threshold_nanos: alert?.thresholdNanos ?? null,
    email: alert?.email ?? false,
    webhook_url: alert?.webhookUrl ?? null,
    armed: alert?.armed ?? false,
    ...(secret ? { webhook_secret: secret } : {}),
  };
}

/**
 * /api-account/user/alerts/balance (GET, PUT, DELETE), /user/alerts/deliveries and each key's
 * /user/api-keys/{key_id}/alerts/spend (issue 27, item 5).
 */
export function registerAlertRoutes(
  app: FastifyInstance,
  deps: { store: Store; clock: Clock; allowHttpWebhooks?: boolean },
): void {
  const tags = ['alerts'];
  app.get(
    '/user/alerts/balance',
    { schema: { summary: 'Your balance alert', tags, response: { 200: AlertSchema, ...errors } } },
    async (request) => alertJson(await getBalanceAlert(deps.store.db, request.user!.id)),
  );
  app.put<{ Body: Static<typeof SetAlertSchema> }>(
    '/user/alerts/balance',
    {
      schema: {
        summary: 'Set your balance alert: an email, and optionally a signed webhook, once per fall under the threshold',
        tags,
        body: SetAlertSchema,
        response: { 200: AlertSchema, ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      let thresholdNanos: number;
      try {
        thresholdNanos = usdToNanos(body.threshold);
      } catch {
        throw new InvalidRequestError('threshold has more than 9 decimal places.', 'threshold');
      }
      const webhookUrl =
        body.webhook_url === undefined || body.webhook_url === null || body.webhook_url === ''
          ? null
          : checkWebhookUrl(body.webhook_url, deps.allowHttpWebhooks === true);
      const { alert, newSecret } = await setBalanceAlert(
        deps.store.db,
        request.user!.id,
        { thresholdNanos, email: body.email ?? true, webhookUrl, rotateSecret: body.rotate_secret },
        deps.clock.now(),
      );
      return alertJson(alert, newSecret);
    },
  );
  app.delete(
    '/user/alerts/balance',
    {
      schema: {
        summary: 'Remove your balance alert',
        tags,
        response: { 204: Type.Null(), ...errors, 404: { $ref: 'ErrorEnvelope#' } },
      },
    },
    async (request, reply) => {
      if (!(await deleteBalanceAlert(deps.store.db, request.user!.id)))
        throw new NotFoundError('No balance alert is set.', 'alert_not_found');
      return reply.code(204).send();
    },
  );
  app.get<{ Querystring: { limit?: number } }>(
    '/user/alerts/deliveries',
    {
      schema: {
        summary: 'Your alerts sent: email and webhook deliveries, newest first',
        tags,
        querystring: Type.Object({ limit: limitParameter(200, 50) }, { additionalProperties: false }),
        response: { 200: Type.Object({ data: Type.Array(DeliverySchema) }), ...errors },
      },
    },
    async (request) => ({
      data: (await listAlertDeliveries(deps.store.db, request.user!.id, request.query.limit ?? 50)).map((row) => ({
        id: row.id,
        channel: row.channel,
        event: row.event,
        key_id: row.keyId,
        status: row.status,
        attempts: row.attempts,
        response_status: row.responseStatus,
        error: row.error,
        created_at: new Date(row.createdAt).toISOString(),
        updated_at: new Date(row.updatedAt).toISOString(),
      })),
    }),
  );
  registerKeySpendAlertRoutes(app, deps);
}
