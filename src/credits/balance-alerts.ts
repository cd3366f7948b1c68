import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Store } from '../store/database.js';
import type { Clock } from '../shared/clock.js';
import type { IdGenerator } from '../shared/ids.js';
import { nanosToUsd } from '../metering/money.js';
import { deliverWebhook } from './alert-webhook.js';
import './balance-alert-schema.js';
import './credits-schema.js';

type Db = Kysely<Database>;

export interface BalanceAlert {
  thresholdNanos: number;
  email: boolean;
  webhookUrl: string | null;
  hasWebhookSecret: boolean;
  armed: boolean;
}

export interface AlertDelivery {
  id: string;
  channel: string;
  event: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The mail sender the alerts use (the gateway's mailer fits it). */
export interface AlertMailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
}

export async function getBalanceAlert(db: Db, userId: string): Promise<BalanceAlert | null> {
  const row = await db.selectFrom('balance_alerts').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (!row) return null;
  return {
    thresholdNanos: Number(row.threshold_nanos),
    email: Number(row.email) === 1,
    webhookUrl: row.webhook_url,
    hasWebhookSecret: row.webhook_secret !== null,
    armed: Number(row.armed) === 1,
  };
}

/**
 * Sets the user's alert, armed: a balance already under the new threshold fires at the next
 * check, once. A webhook gets a secret when it has none (or `rotateSecret`); the new secret is
 * returned, the only time it is shown.
 */
export async function setBalanceAlert(
  db: Db,
  userId: string,
  input: { thresholdNanos: number; email: boolean; webhookUrl: string | null; rotateSecret?: boolean },
  now: number,
): Promise<{ alert: BalanceAlert; newSecret: string | null }> {
  const existing = await db
    .selectFrom('balance_alerts')
    .select('webhook_secret')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  const needsSecret = input.webhookUrl !== null && (!existing?.webhook_secret || input.rotateSecret === true);
  const newSecret = needsSecret ? `whsec_${randomBytes(24).toString('base64url')}` : null;
  const secret = input.webhookUrl === null ? null : (newSecret ?? existing?.webhook_secret ?? null);
  const values = {
    threshold_nanos: input.thresholdNanos,
    email: input.email ? 1 : 0,
    webhook_url: input.webhookUrl,
    webhook_secret: secret,
    armed: 1,
    updated_at: now,
  };
  await db
    .insertInto('balance_alerts')
    .values({ user_id: userId, ...values })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet(values))
    .execute();
  return { alert: (await getBalanceAlert(db, userId))!, newSecret };
}

export async function deleteBalanceAlert(db: Db, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('balance_alerts').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
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
    status: row.status,
    attempts: Number(row.attempts),
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    error: row.error,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }));
}

export interface BalanceAlertDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** Without a mailer, email deliveries are logged as skipped. */
  mailer?: AlertMailer;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  webhookBaseDelayMs?: number;
}

const BALANCE = sql<number>`coalesce((select b.balance_nanos from credit_balances b where b.user_id = balance_alerts.user_id), 0)`;

/**
 * One pass over the alerts (safe from several gateway instances at once): re-arms those whose
 * balance is back at or above the threshold, then claims each armed alert whose balance is under
 * it (a conditional update: only one instance wins the claim) and delivers it. Returns how many fired.
 */
export async function checkBalanceAlerts(deps: BalanceAlertDeps): Promise<number> {
  const db = deps.store.db;
  const now = deps.clock.now();
  await db
    .updateTable('balance_alerts')
    .set({ armed: 1, updated_at: now })
    .where('armed', '=', 0)
    .where(sql<boolean>`${BALANCE} >= threshold_nanos`)
    .execute();
  const crossed = await db
    .selectFrom('balance_alerts')
    .innerJoin('user', 'user.id', 'balance_alerts.user_id')
    .select([
      'balance_alerts.user_id',
      'balance_alerts.threshold_nanos',
      'balance_alerts.email',
      'balance_alerts.webhook_url',
      'balance_alerts.webhook_secret',
      'user.email as address',
      BALANCE.as('balance_nanos'),
    ])
    .where('balance_alerts.armed', '=', 1)
    .where(sql<boolean>`${BALANCE} < threshold_nanos`)
    .limit(500)
    .execute();
  let fired = 0;
  for (const alert of crossed) {
    const claim = await db
      .updateTable('balance_alerts')
      .set({ armed: 0, updated_at: now })
      .where('user_id', '=', alert.user_id)
      .where('armed', '=', 1)
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) continue;
    fired++;
    await deliver(deps, {
      userId: alert.user_id,
      address: alert.address,
      email: Number(alert.email) === 1,
      webhookUrl: alert.webhook_url,
      webhookSecret: alert.webhook_secret,
      balanceNanos: Number(alert.balance_nanos),
      thresholdNanos: Number(alert.threshold_nanos),
    });
  }
  return fired;
}

interface Crossing {
  userId: string;
  address: string;
  email: boolean;
  webhookUrl: string | null;
  webhookSecret: string | null;
  balanceNanos: number;
  thresholdNanos: number;
}

async function deliver(deps: BalanceAlertDeps, crossing: Crossing): Promise<void> {
  const db = deps.store.db;
  const record = async (
    channel: string,
    work: () => Promise<Omit<AlertDelivery, 'id' | 'channel' | 'event' | 'createdAt' | 'updatedAt'>>,
  ) => {
    const id = deps.ids.next('alrt');
    const created = deps.clock.now();
    await db
      .insertInto('alert_deliveries')
      .values({
        id,
        user_id: crossing.userId,
        channel,
        event: 'balance_below',
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
  const balance = nanosToUsd(crossing.balanceNanos);
  const threshold = nanosToUsd(crossing.thresholdNanos);
  if (crossing.email)
    await record('email', async () => {
      if (!deps.mailer) return { status: 'skipped', attempts: 0, responseStatus: null, error: 'no mailer configured' };
      try {
        await deps.mailer.send({
          to: crossing.address,
          subject: `Your balance is under ${threshold} USD`,
          text: `Your credit balance is ${balance} USD, under the alert threshold of ${threshold} USD you set.\n\nAdd credits before requests are refused. This alert fires again only after the balance is back at or above the threshold.`,
        });
        return { status: 'delivered', attempts: 1, responseStatus: null, error: null };
      } catch (error) {
        return { status: 'failed', attempts: 1, responseStatus: null, error: (error as Error).message.slice(0, 200) };
      }
    });
  if (crossing.webhookUrl && crossing.webhookSecret) {
    const body = JSON.stringify({
      type: 'balance.below_threshold',
      created_at: new Date(deps.clock.now()).toISOString(),
      data: {
        user_id: crossing.userId,
        currency: 'USD',
        balance,
        balance_nanos: crossing.balanceNanos,
        threshold,
        threshold_nanos: crossing.thresholdNanos,
      },
    });
    await record('webhook', async () => {
      const result = await deliverWebhook({
        url: crossing.webhookUrl!,
        secret: crossing.webhookSecret!,
        body,
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
}

/** Runs checkBalanceAlerts every `intervalMs` (one pass at a time) until closed. */
export function startBalanceAlerts(
  deps: BalanceAlertDeps,
  intervalMs: number,
  onError: (error: unknown) => void,
): { close(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = checkBalanceAlerts(deps)
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
