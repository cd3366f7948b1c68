import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { deliverWebhook } from './alert-webhook.js';
import './balance-alert-schema.js';

type Db = Kysely<Database>;

/** The mail sender the alerts use (the gateway's mailer fits it). */
export interface AlertMailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
}

/** What every alert pass needs to deliver: the balance alerts and the key spend alerts share it. */
export interface AlertDeliveryDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** Without a mailer, email deliveries are logged as skipped. */
  mailer?: AlertMailer;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  webhookBaseDelayMs?: number;
}

export interface AlertDelivery {
  id: string;
  channel: string;
  event: string;
  /** The key a key alert is about; null for account alerts. */
  keyId: string | null;
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A webhook's signing key: made by the gateway, shown to the user once. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** One alert to send: a mail when `mail` is set, a signed webhook when `webhook` is; each logged. */
export interface AlertMessage {
  userId: string;
  /** The delivery log's event name (balance_below, key_spend_daily, …). */
  event: string;
  keyId?: string;
  mail: { to: string; subject: string; text: string } | null;
  webhook: { url: string; secret: string; body: string } | null;
}

/**
 * An alert row's channels as an AlertMessage takes them: the mail when its email box is on, the
 * signed webhook (body `{ type, created_at, data }`) when it has a URL and a secret.
 */
export function alertChannels(
  alert: { email: unknown; address: string; webhook_url: string | null; webhook_secret: string | null },
  mail: { subject: string; text: string },
  webhook: { type: string; now: number; data: Record<string, unknown> },
): Pick<AlertMessage, 'mail' | 'webhook'> {
  return {
    mail: Number(alert.email) === 1 ? { to: alert.address, ...mail } : null,
    webhook:
      alert.webhook_url && alert.webhook_secret
        ? {
            url: alert.webhook_url,
            secret: alert.webhook_secret,
            body: JSON.stringify({
              type: webhook.type,
              created_at: new Date(webhook.now).toISOString(),
              data: webhook.data,
            }),
          }
        : null,
  };
}

type Outcome = Pick<AlertDelivery, 'status' | 'attempts' | 'responseStatus' | 'error'>;

/** Sends an alert on its channels, one after the other, writing each to the user's delivery log. */
export async function deliverAlert(deps: AlertDeliveryDeps, message: AlertMessage): Promise<void> {
  const db = deps.store.db;
  const record = async (channel: string, work: () => Promise<Outcome>) => {
    const id = deps.ids.next('alrt');
    const created = deps.clock.now();
    await db
      .insertInto('alert_deliveries')
      .values({
        id,
        user_id: message.userId,
        channel,
        event: message.event,
        key_id: message.keyId ?? null,
        status: 'pending',
        attempts: 0,
        response_status: null,
        error: null,
        created_at: created,
        updated_at: created,
      })
      .execute();
    const outcome = await work();
    await db
      .updateTable('alert_deliveries')
      .set({
        status: outcome.status,
        attempts: outcome.attempts,
        response_status: outcome.responseStatus,
        error: outcome.error,
        updated_at: deps.clock.now(),
      })
      .where('id', '=', id)
      .execute();
  };
  const mail = message.mail;
  if (mail)
    await record('email', async () => {
      if (!deps.mailer) return { status: 'skipped', attempts: 0, responseStatus: null, error: 'no mailer configured' };
      try {
        await deps.mailer.send(mail);
        return { status: 'delivered', attempts: 1, responseStatus: null, error: null };
      } catch (error) {
        return { status: 'failed', attempts: 1, responseStatus: null, error: (error as Error).message.slice(0, 200) };
      }
    });
  const webhook = message.webhook;
  if (webhook)
    await record('webhook', async () => {
      const result = await deliverWebhook({
        ...webhook,
        fetch: deps.fetch ?? fetch,
        now: () => deps.clock.now(),
        sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        baseDelayMs: deps.webhookBaseDelayMs,
      });
      return {
        status: result.delivered ? 'delivered' : 'failed',
        attempts: result.attempts,
        responseStatus: result.responseStatus,
        error: result.error,
      };
    });
}

export async function listAlertDeliveries(db: Db, userId: string, limit: number): Promise<AlertDelivery[]> {
  const rows = await db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    channel: row.channel,
    event: row.event,
    keyId: row.key_id ?? null,
    status: row.status,
    attempts: Number(row.attempts),
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }));
}

/** Runs `pass` every `intervalMs` (one pass at a time) until closed. */
export function runEvery(
  pass: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): { close(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = pass()
      .catch(onError)
      .finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
